/**
 * `npm start` (`handoff demo`): the short story, run in-process through the CLI main. It fits in
 * 60 lines, shows the three cheats refused, the honest answer accepted with a `<run_id>#<seq>`
 * cite, the gate's one send-back and the chain seam's refusal, puts no tick on a failure, suggests
 * only commands that work in a clone (`npx handoff …`) and exits 0. `--verbose` adds the details.
 */
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { storyHeaders } from '../../src/cli/demo-story.js';
import { cliMain } from '../helpers/cli-main.js';

async function demo(...args: string[]) {
  const r = await cliMain(['demo', ...args], process.cwd());
  const project = /\(a temporary git project: (.+)\)/.exec(r.out)?.[1];
  if (project !== undefined) await rm(dirname(project), { recursive: true, force: true });
  return r;
}

describe('handoff demo (npm start)', () => {
  it('tells the story in at most 60 lines and exits 0', async () => {
    const r = await demo();
    const lines = r.out.trimEnd().split('\n');
    expect(r.err).toBe('');
    expect(r.code, r.out).toBe(0);
    expect(lines.length).toBeLessThanOrEqual(60);
    expect(r.out).not.toContain('demo failure');
    expect(r.out).not.toContain('✓');
    expect(r.out).toContain('REFUSED  a sub-agent that also edited README.md, a file it was not given');
    expect(r.out).toMatch(
      /never reached your tree \(it ran in a sandbox\)|README\.md and its own files are back to their bytes/,
    );
    expect(r.out).toContain('REFUSED  a sub-agent that weakened the test: toBe(90) became toBe(100)');
    expect(r.out).toContain(
      'REFUSED  a sub-agent that answered "solved" with the new bytes\' hash, but never wrote them',
    );
    expect(r.out).toMatch(/ACCEPTED status solved; journaled as \d{8}T\d{6}Z-[0-9a-f]{8}#1\n/);
    expect(r.out).toMatch(/see it: npx handoff inspect \S+#1 --project \S+/);
    expect(r.out).toContain('SENT BACK once');
    expect(r.out).toContain('READY FOR REVIEW');
    expect(r.out).toContain("STOPPED  the seam after stage 'settle' refused its baton: 'net_total'");
    expect(r.out).toContain('paid: nothing');
    // every suggested command is an npx command (a clone has no `handoff` on its PATH)
    for (const m of r.out.matchAll(/(\S+) handoff (?:demo|chain|inspect)\b/g)) expect(m[1]).toBe('npx');
  }, 120_000);

  it('--verbose adds the checks behind each line', async () => {
    const r = await demo('--verbose');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/outside_owned: .*README\.md/);
    expect(r.out).toContain('statement_fence:');
    expect(r.out).toContain('machine path: provisional');
  }, 120_000);

  it('refuses an unknown demo as a usage error', async () => {
    const r = await cliMain(['demo', 'nosuch'], process.cwd());
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown demo 'nosuch'");
  });
});

describe('storyHeaders (the demo fence)', () => {
  it('reads exported function signatures and assertions', () => {
    expect(
      storyHeaders('export function discount(price: number): number {\n  expect(discount(100)).toBe(90);\n'),
    ).toEqual([
      { name: 'discount', kind: 'function', signature: '(price: number): number', line: 1 },
      { name: 'assertion@1', kind: 'assertion', signature: 'expect(discount(100)).toBe(90);', line: 2 },
    ]);
  });
});
