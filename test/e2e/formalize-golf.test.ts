/**
 * The synthesis loop's golf route end to end (real git, subprocess workers): a claim whose inner
 * cycle is stuck and reviewed to `golf` gets one real golf dispatch (`mode: golf`,
 * `worker: proof-golfer`, the proved declaration's `file:line`, the target file owned) through the
 * delegating worker's custody; the example worker's golf (a `by` / one-tactic proof collapsed onto
 * one line) is accepted and committed (`golf: two_eq`, only the target file), or left in the tree
 * under `--commit never`; a hostile golfer that changes the statement is refused by the fence and
 * one that puts a `sorry` back is declined by the diagnostics — both leave the file's bytes exactly
 * as before the pass.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSynthesisJournal, runSynthesis } from '../../src/runtime/synthesis-run.js';
import { createMemoryStore } from '../../src/store/index.js';
import { GOLF_DIST as DIST, gitIn as git, golfSessionOptions, golfTools } from '../helpers/golf-session.js';
import { gitLog, TS_WORKER, withGitProject } from './helpers.js';

/**
 * A hostile golfer: any non-golf dispatch goes to the example worker; a golf dispatch is recorded
 * (argv[4]) and answered by rewriting the proved declaration — its statement (`statement`) or its
 * proof into `sorry` (`sorry`) — with a well-formed handoff and an advanced baseline.
 */
const HOSTILE_MJS = `
import { readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
const [kind, worker, dist, record] = process.argv.slice(2);
const text = readFileSync(0, 'utf8');
const d = JSON.parse(text);
if (d.mode !== 'golf') {
  const r = spawnSync(process.execPath, [worker], { input: text, env: process.env });
  process.stdout.write(r.stdout);
  process.exit(r.status ?? 1);
}
writeFileSync(record, text);
const { advanceBaseline } = await import(dist + '/baseline/index.js');
const { handoffFor } = await import(dist + '/contract/index.js');
const file = d.owned_files[0];
const c = readFileSync(file, 'utf8');
writeFileSync(file, kind === 'statement'
  ? c.replace('1 + 1 = 2 := by\\n  decide', '2 = 2 := by\\n  rfl')
  : c.replace('1 + 1 = 2 := by\\n  decide', '1 + 1 = 2 := by\\n  sorry'));
const fb = await advanceBaseline(d.file_baseline, [file]);
process.stdout.write(JSON.stringify({ ...handoffFor(d), files_changed: [file], file_baseline: fb }) + '\\n');
`;

let tools = '';
beforeAll(async () => {
  tools = await golfTools('golf-tools-', { 'hostile.mjs': HOSTILE_MJS });
});
afterAll(async () => {
  await rm(tools, { recursive: true, force: true });
});

const FILES = { 'Paper.lean': '-- the paper\n', 'README.md': 'unrelated\n' };

describe('the golf route: a real golf-mode dispatch under custody', () => {
  it('dispatches proof-golfer in golf mode on the proved declaration, accepts the shorter proof and commits it', async () => {
    await withGitProject(FILES, async ({ dir }) => {
      const store = createMemoryStore();
      const journal = createSynthesisJournal({ projectRoot: dir, store });
      const r = await runSynthesis(golfSessionOptions(dir, tools, { journal }));
      const rep = r.output.reports[0];
      expect(rep?.routes).toContain('golf');
      // the hard companion still holds its sorry: the claim stays stuck after the golf
      expect(rep?.status).toBe('stuck');
      const text = await readFile(join(dir, 'Paper.lean'), 'utf8');
      expect(text).toContain('theorem two_eq : 1 + 1 = 2 := by decide\n');
      expect(text).toContain('theorem two_eq_hard : 2 + 2 = 5 := by\n  sorry');
      expect(gitLog(dir)).toContain('golf: two_eq');
      const sha = git(dir, 'log', '--format=%H', '--grep=^golf: ').trim();
      expect(git(dir, 'show', '--name-only', '--format=', sha).trim()).toBe('Paper.lean');
      expect(git(dir, 'status', '--porcelain').trim()).toBe('');
      // the journal holds the golf dispatch's identity
      const loaded = await store.load(r.journalRun as string);
      expect(loaded.ok).toBe(true);
      if (!loaded.ok) return;
      const golf = loaded.value.events
        .filter((e) => e.kind === 'note')
        .map((e) => JSON.parse((e.payload as { text: string }).text) as Record<string, unknown>)
        .find((n) => n.schema === 'synthesis-golf/v1');
      expect(golf?.outcome).toBe('accepted');
      expect(golf?.declaration).toBe('two_eq');
      const header = text.split('\n').indexOf('theorem two_eq : 1 + 1 = 2 := by decide') + 1;
      expect(golf?.dispatch).toEqual({
        target: `Paper.lean:${header}`,
        mode: 'golf',
        worker: 'proof-golfer',
      });
    });
  }, 120_000);

  it('--commit never: the accepted golf stays in the working tree, uncommitted', async () => {
    await withGitProject(FILES, async ({ dir }) => {
      const r = await runSynthesis(golfSessionOptions(dir, tools, { commit: 'never' }));
      expect(r.output.reports[0]?.routes).toContain('golf');
      expect(await readFile(join(dir, 'Paper.lean'), 'utf8')).toContain(
        'theorem two_eq : 1 + 1 = 2 := by decide\n',
      );
      expect(gitLog(dir).some((l) => l.startsWith('golf: '))).toBe(false);
    });
  }, 120_000);

  for (const kind of ['statement', 'sorry'] as const) {
    it(`a hostile golfer (${kind}) is ${kind === 'statement' ? 'refused by the fence' : 'refused by the golf role'} and the bytes restored`, async () => {
      await withGitProject(FILES, async ({ dir }) => {
        const record = join(tools, `dispatch-${kind}.json`);
        const logs: string[] = [];
        const r = await runSynthesis(
          golfSessionOptions(dir, tools, {
            worker: { argv: [process.execPath, join(tools, 'hostile.mjs'), kind, TS_WORKER, DIST, record] },
            // the golf worker is sandboxed with the session's workers now, and this one records its
            // dispatch in a host file outside the project (a sandbox's /tmp is its own)
            sandbox: 'off',
            onLog: (l) => logs.push(l),
          }),
        );
        expect(r.output.reports[0]?.routes).toContain('golf');
        const d = JSON.parse(await readFile(record, 'utf8')) as Record<string, unknown>;
        expect(d.mode).toBe('golf');
        expect(d.worker).toBe('proof-golfer');
        expect(d.owned_files).toEqual([join(dir, 'Paper.lean')]);
        expect(d.parameters).toMatchObject({ search_mode: 'off', candidate_targets: [d.target] });
        // the file is exactly the drafted bytes: nothing of the golf stays behind
        const text = await readFile(join(dir, 'Paper.lean'), 'utf8');
        expect(text).toBe(git(dir, 'show', 'HEAD:Paper.lean'));
        expect(text).toContain('theorem two_eq : 1 + 1 = 2 := by\n  decide\n');
        expect(gitLog(dir).some((l) => l.startsWith('golf: '))).toBe(false);
        const line = logs.find((l) => l.startsWith('golf pass')) ?? '';
        if (kind === 'statement') expect(line).toMatch(/refused — fence-violation/);
        else expect(line).toMatch(/refused — fence-violation: golf: two_eq holds 1 sorry/);
      });
    }, 120_000);
  }
});
