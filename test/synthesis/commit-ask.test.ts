/**
 * Guided `--commit ask` (real git, the real subprocess worker): the human is asked a second
 * question — through the same human port as the draft approval — before the `draft:` commit.
 * `commit` makes it; `keep` leaves the checked draft in the working tree and commits nothing of
 * the claim (the inner cycle's proof stays uncommitted too); `stop` ends the session. Under
 * autoformalize `ask` is coerced to `auto` with a warning (as autoprove does) and nobody is asked.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runSynthesis, type SynthesisRunOptions } from '../../src/runtime/synthesis-run.js';
import { inProcessDrafter } from '../../src/synthesis/drafter-port.js';
import type { ApproveInput } from '../../src/synthesis/loop/types.js';
import { gitLog, TS_WORKER, withGitProject } from '../e2e/helpers.js';

const PAPER = fileURLToPath(new URL('../../examples/formalize/paper.md', import.meta.url));
const DRAFT = 'theorem two_eq : 1 + 1 = 2 := by\n  sorry -- hint: decide\n';

const drafter = inProcessDrafter(async (req) => {
  await writeFile(req.temp_path, DRAFT);
  return {
    response: { schema: 'draft-response/v1', status: 'drafted', declarations: ['two_eq'], detail: null },
    text: DRAFT,
  };
});

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });

/** A scripted human answering `answers[question]` and recording every question asked. */
function human(answers: Record<'draft' | 'commit', string>, asked: ApproveInput[]) {
  return async (q: ApproveInput) => {
    asked.push(q);
    return answers[q.question];
  };
}

function options(dir: string, over: Partial<SynthesisRunOptions>): SynthesisRunOptions {
  let t = Date.UTC(2026, 11, 2, 0, 0, 0);
  return {
    projectRoot: dir,
    mode: 'guided',
    source: PAPER,
    claimSelect: '2',
    target: 'Paper.lean',
    drafter: { port: drafter },
    worker: { argv: [process.execPath, TS_WORKER] },
    commit: 'ask',
    maxCycles: 3,
    maxStuck: 1,
    clock: () => (t += 1000),
    ...over,
  };
}

describe('guided --commit ask: its own question before the draft: commit', () => {
  it('commit: the human is asked after approving the draft, with the commit message; the draft: commit is made', async () => {
    await withGitProject({ 'Paper.lean': '-- the paper\n' }, async ({ dir }) => {
      const asked: ApproveInput[] = [];
      const r = await runSynthesis(
        options(dir, { human: human({ draft: 'approve', commit: 'commit' }, asked) }),
      );
      expect(asked.map((q) => q.question)).toEqual(['draft', 'commit']);
      expect(asked[1]?.options).toEqual(['commit', 'keep', 'stop']);
      expect(asked[1]?.message).toMatch(/^draft: /);
      expect(gitLog(dir)).toContain(asked[1]?.message);
      expect(r.output.reports[0]?.status).toBe('proved');
      expect(r.output.reports[0]?.commits.length).toBeGreaterThan(0);
    });
  }, 120_000);

  it('keep: the checked draft stays in the working tree and nothing of the claim is committed', async () => {
    await withGitProject({ 'Paper.lean': '-- the paper\n' }, async ({ dir }) => {
      const head = git(dir, 'rev-parse', 'HEAD');
      const asked: ApproveInput[] = [];
      const r = await runSynthesis(
        options(dir, { human: human({ draft: 'approve', commit: 'keep' }, asked) }),
      );
      expect(asked.map((q) => q.question)).toEqual(['draft', 'commit']);
      // the inner cycle still proved it, but committed nothing either
      expect(r.output.reports[0]?.status).toBe('proved');
      expect(r.output.reports[0]?.commits).toEqual([]);
      expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
      const text = await readFile(join(dir, 'Paper.lean'), 'utf8');
      expect(text).toContain('theorem two_eq : 1 + 1 = 2 := by');
      expect(text).not.toContain('sorry');
      expect(git(dir, 'status', '--porcelain').trim()).toBe('M Paper.lean');
    });
  }, 120_000);

  it('stop: the session ends at the commit question, the draft uncommitted in the working tree', async () => {
    await withGitProject({ 'Paper.lean': '-- the paper\n' }, async ({ dir }) => {
      const head = git(dir, 'rev-parse', 'HEAD');
      const r = await runSynthesis(options(dir, { human: human({ draft: 'approve', commit: 'stop' }, []) }));
      expect(r.output.ending).toBe('human-stop');
      expect(r.output.reports[0]?.status).toBe('declined');
      expect(r.output.reports[0]?.reason).toMatch(/draft: commit question/);
      expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
      expect(await readFile(join(dir, 'Paper.lean'), 'utf8')).toContain('sorry -- hint: decide');
    });
  }, 120_000);

  it('hostile human input: an answer outside the options is a stop, never a commit', async () => {
    await withGitProject({ 'Paper.lean': '-- the paper\n' }, async ({ dir }) => {
      const head = git(dir, 'rev-parse', 'HEAD');
      const r = await runSynthesis(
        options(dir, { human: human({ draft: 'approve', commit: 'commit; rm -rf /' }, []) }),
      );
      expect(r.output.reports[0]?.status).toBe('declined');
      expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    });
  }, 120_000);

  it('autoformalize: ask is coerced to auto with a warning (as autoprove does); nobody is asked', async () => {
    await withGitProject({ 'Paper.lean': '-- the paper\n' }, async ({ dir }) => {
      const asked: ApproveInput[] = [];
      const r = await runSynthesis(
        options(dir, { mode: 'auto', human: human({ draft: 'approve', commit: 'keep' }, asked) }),
      );
      expect(r.warnings).toContain('autoformalize: --commit=ask coerced to auto (no human to ask)');
      expect(asked).toEqual([]);
      expect(gitLog(dir).some((l) => l.startsWith('draft: '))).toBe(true);
    });
  }, 120_000);
});
