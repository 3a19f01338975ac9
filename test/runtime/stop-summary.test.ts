/**
 * The Markdown stop summary (pure): what was solved, what is stuck and why, what to do next, with
 * cites; every untrusted string (file names, worker text, commit messages) inert — one line, no
 * control character, no Markdown or HTML that renders as more than its own characters.
 */
import { describe, expect, it } from 'vitest';
import { type Dispatch, type Handoff, handoffFor } from '../../src/contract/index.js';
import { markdownText, renderStopSummary } from '../../src/runtime/stop-summary.js';

const RUN = '20261206T120000Z-0a1b2c3d';
const d = {
  target: 'A.lean:2',
  scope: 'sorry',
  mode: 'autoprove',
  owned_files: ['/p/A.lean'],
  file_baseline: null,
} as unknown as Dispatch;

describe('markdownText', () => {
  it('escapes controls, bidi, HTML and Markdown; stays on one line', () => {
    const t = markdownText('x\n# h\r\u001b[31m<img src=x onerror=a()>[l](javascript:x) *e* `c` \u202eevil');
    expect(t).not.toMatch(/[\n\r\u001b\u202e<>]/);
    expect(t).toContain('\\u{a}');
    expect(t).toContain('\\u{1b}');
    expect(t).toContain('\\u{202e}');
    expect(t).toContain('&lt;img');
    expect(t).toContain('\\[l\\]\\(javascript\\:x\\)');
    expect(t).toContain('\\*e\\*');
    expect(t).toContain('\\`c\\`');
  });
  it('an existing entity or backslash cannot be smuggled through', () => {
    expect(markdownText('&lt;b&gt; \\*')).toBe('&amp;lt;b&amp;gt; \\\\\\*');
  });
  it('cuts long text', () => {
    expect(markdownText('a'.repeat(500), 10)).toBe(`${'a'.repeat(10)}…`);
  });
});

describe('renderStopSummary', () => {
  it('a solved run: the solved targets with their cites, the commits, nothing stuck', () => {
    const md = renderStopSummary({
      runId: RUN,
      handoff: handoffFor(d, { target: '.', scope: 'project', next_action: 'stop' }),
      finalCite: `${RUN}#7`,
      cited: [
        {
          cite: `${RUN}#2`,
          target: 'A.lean:2',
          solved: false,
          words: `${RUN}#2: A.lean:2 claimed solved; the claim did not hold`,
        },
        { cite: `${RUN}#4`, target: 'A.lean:2', solved: true, words: `solved: ${RUN}#4` },
      ],
      checkpoints: [
        {
          cycle: 1,
          commit: '0123456789abcdef0123',
          files: ['A.lean'],
          message: 'checkpoint: cycle 1: A.lean:2 solved',
        },
      ],
    });
    expect(md).toMatch(new RegExp(`^# Run ${RUN}: solved\\n`));
    expect(md).toContain(`Final handoff: ${RUN}#7.`);
    expect(md).toContain(`- A\\.lean\\:2 — accepted handoff ${RUN}#4`);
    expect(md).toContain('- committed 0123456789ab (cycle 1)');
    expect(md).toContain(`- A\\.lean\\:2 claimed solved; the claim did not hold — handoff ${RUN}#2`);
    expect(md).toContain('next action: stop');
    expect(md.endsWith('\n')).toBe(true);
  });

  it('a stuck run: the blocker and what a rerun needs; hostile worker text stays inert', () => {
    const stuck: Handoff = handoffFor(d, {
      target: 'E<vil>.lean:3',
      status: 'stuck',
      blocker_kind: 'proof',
      blocker_class: 'missing-library-lemma',
      blocker_signature: 'E.lean:3:\n## injected\n<script>x</script>',
      next_action: 'redraft',
      new_evidence_required_for_rerun: '[click](http://x)',
    });
    const md = renderStopSummary({
      runId: RUN,
      handoff: stuck,
      finalCite: null,
      cited: [{ cite: 'not-a-cite', target: 'x', solved: true, words: 'solved: not-a-cite' }],
      checkpoints: [{ cycle: 1, commit: 'zz\n# x', files: [], message: 'm' }],
    });
    expect(md).toContain('The final handoff could not be stored.');
    expect(md).toContain('Nothing was solved.');
    expect(md).not.toContain('not-a-cite');
    expect(md).toContain('- committed uncommitted (cycle 1)');
    expect(md).toContain('E&lt;vil&gt;\\.lean');
    expect(md).not.toMatch(/<script>|\n## injected|\]\(http/);
    expect(md).toContain('blocker proof/missing\\-library\\-lemma');
    expect(md).toContain(`handoff run --persist --prior-run ${RUN}`);
    // only the renderer's own headings start a line with #
    expect(md.match(/^#.*$/gm)).toEqual([`# Run ${RUN}: stuck`, '## Solved', '## Stuck or open', '## Next']);
  });
});
