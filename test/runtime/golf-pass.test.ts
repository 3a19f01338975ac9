/**
 * The golf role (`WorkRole` `golf`) of the synthesis loop's golf pass, with real git and real
 * subprocess workers: the dispatch builder sends `proof-golfer` in the contract's golf mode with
 * the session's `search_mode`; the delegating worker lets a golf worker change only the golfed
 * declaration's proof (statement fenced, no `sorry` brought back, nothing else touched) — a
 * hostile golfer is refused and nothing is committed; under `--persist` the golf dispatch and its
 * handoff are dispatch/handoff events the golf note cites; a golf route is listed once.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatch } from '../../src/contract/index.js';
import type { WorkerInput } from '../../src/cycle/types.js';
import { leanProfile } from '../../src/profile/index.js';
import { GOLFABLE_PATTERNS, roleFields } from '../../src/runtime/dispatch-builder.js';
import { runGolfPass } from '../../src/runtime/golf-pass.js';
import { createMarkerDiagnostics } from '../../src/runtime/marker-diagnostics.js';
import { createSynthesisJournal, runSynthesis } from '../../src/runtime/synthesis-run.js';
import { createMemoryStore } from '../../src/store/index.js';
import { golfViolation } from '../../src/synthesis/golf-guard.js';
import { gitLog, TS_WORKER, withGitProject } from '../e2e/helpers.js';
import {
  GOLF_DIST as DIST,
  golfDrafter as drafter,
  GOLF_DRAFT,
  gitIn as git,
  golfSessionOptions,
  golfTools,
  GOLF_PAPER as PAPER,
} from '../helpers/golf-session.js';

const TEXT = `-- the paper\n\n${GOLF_DRAFT}`;
const FILES = { 'Paper.lean': TEXT, 'README.md': 'unrelated\n' };

/**
 * A hostile golfer: records the dispatch (argv[4]) and rewrites the golfed declaration — its
 * statement (`statement`), its proof into `sorry` (`sorry`), or a line outside it (`outside`) —
 * answering with a well-formed handoff and an advanced baseline.
 */
const HOSTILE_MJS = `
import { readFileSync, writeFileSync } from 'node:fs';
const [kind, dist, record] = process.argv.slice(2);
const text = readFileSync(0, 'utf8');
const d = JSON.parse(text);
writeFileSync(record, text);
const { advanceBaseline } = await import(dist + '/baseline/index.js');
const { handoffFor } = await import(dist + '/contract/index.js');
const file = d.owned_files[0];
const c = readFileSync(file, 'utf8');
const edits = {
  statement: (s) => s.replace('1 + 1 = 2 := by\\n  decide', '2 = 2 := by rfl'),
  sorry: (s) => s.replace('1 + 1 = 2 := by\\n  decide', '1 + 1 = 2 := by sorry'),
  outside: (s) => s.replace('1 + 1 = 2 := by\\n  decide', '1 + 1 = 2 := by decide').replace('-- the paper', '-- a paper'),
};
writeFileSync(file, edits[kind](c));
const fb = await advanceBaseline(d.file_baseline, [file]);
process.stdout.write(JSON.stringify({ ...handoffFor(d), files_changed: [file], file_baseline: fb }) + '\\n');
`;

let tools = '';
beforeAll(async () => {
  tools = await golfTools('golf-role-', { 'hostile.mjs': HOSTILE_MJS });
});
afterAll(async () => {
  await rm(tools, { recursive: true, force: true });
});

function pass(
  dir: string,
  scratch: string,
  argv: readonly string[],
  over: { searchMode?: 'off' | 'quick' | 'full' } = {},
) {
  const profile = leanProfile();
  return runGolfPass({
    projectRoot: dir,
    rel: 'Paper.lean',
    abs: join(dir, 'Paper.lean'),
    declarations: ['two_eq', 'two_eq_hard'],
    worker: { argv },
    diagnostics: createMarkerDiagnostics({
      projectRoot: dir,
      target: 'Paper.lean',
      scope: 'file',
      markers: profile.markers,
      errorComment: profile.errorComment,
    }),
    scratch,
    commit: true,
    timeoutMs: 60_000,
    ...over,
  });
}

describe('the golf role: pure parts', () => {
  const input: Pick<WorkerInput, 'role' | 'parameters' | 'target' | 'priorFailure'> = {
    role: 'golf',
    parameters: { search_mode: 'full' },
    target: { id: 'P.lean:3', file: 'P.lean', line: 3, goal: '' },
    priorFailure: null,
  };

  it('roleFields: proof-golfer with the given search mode; a bad mode from data falls back to off', () => {
    const r = roleFields(input);
    expect(r.worker).toBe('proof-golfer');
    expect(r.parameters).toEqual({
      search_mode: 'full',
      golfable_patterns: [...GOLFABLE_PATTERNS],
      candidate_targets: ['P.lean:3'],
    });
    expect(roleFields({ ...input, parameters: { search_mode: 'rm -rf' } }).parameters.search_mode).toBe(
      'off',
    );
  });

  it('golfViolation: only the proof may change, the statement is fenced, no sorry comes back', () => {
    const before = 'x\ntheorem t : 1 + 1 = 2 := by\n  decide\n\ntheorem u : True := trivial\n';
    expect(golfViolation(before, before.replace(':= by\n  decide', ':= by decide'), 't')).toBeNull();
    expect(golfViolation(before, before.replace('1 + 1 = 2', '2 = 2'), 't')).toMatch(
      /statement of t changed/,
    );
    expect(golfViolation(before, before.replace('  decide', '  sorry'), 't')).toMatch(/holds 1 sorry/);
    expect(golfViolation(before, before.replace('  decide', '  admit'), 't')).toMatch(/holds 1 sorry/);
    expect(golfViolation(before, before.replace('trivial', 'by trivial'), 't')).toMatch(/outside t/);
    expect(golfViolation(before, before.replace('theorem t', 'theorem t2'), 't')).toMatch(/is gone/);
    expect(golfViolation(before, before, 'zzz')).toMatch(/no declaration zzz/);
  });
});

describe('the golf role: real subprocess golfers under custody', () => {
  it('an honest golfer: a golf-mode proof-golfer dispatch with the session search mode, accepted and committed', async () => {
    await withGitProject(FILES, async ({ dir }) => {
      const scratch = await mkdtemp(join(tmpdir(), 'golf-scratch-'));
      try {
        const r = await pass(dir, scratch, [process.execPath, TS_WORKER], { searchMode: 'quick' });
        expect(r.outcome).toBe('accepted');
        expect(r.declaration).toBe('two_eq');
        const d = r.dispatch as Dispatch;
        expect(d.mode).toBe('golf');
        expect(d.worker).toBe('proof-golfer');
        expect(d.target).toBe('Paper.lean:3');
        expect(d.parameters).toEqual({
          search_mode: 'quick',
          golfable_patterns: [...GOLFABLE_PATTERNS],
          candidate_targets: ['Paper.lean:3'],
        });
        expect(r.handoff?.target).toBe('Paper.lean:3');
        expect(await readFile(join(dir, 'Paper.lean'), 'utf8')).toBe(
          TEXT.replace('1 + 1 = 2 := by\n  decide', '1 + 1 = 2 := by decide'),
        );
        expect(gitLog(dir)[0]).toBe('golf: two_eq');
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    });
  }, 60_000);

  for (const kind of ['statement', 'sorry', 'outside'] as const) {
    it(`hostile golfer (${kind}): refused by the golf role's check, bytes restored, nothing committed`, async () => {
      await withGitProject(FILES, async ({ dir }) => {
        const scratch = await mkdtemp(join(tmpdir(), 'golf-scratch-'));
        try {
          const record = join(tools, `dispatch-${kind}.json`);
          const head = git(dir, 'rev-parse', 'HEAD');
          const r = await pass(dir, scratch, [
            process.execPath,
            join(tools, 'hostile.mjs'),
            kind,
            DIST,
            record,
          ]);
          expect(r.outcome).toBe('refused');
          expect(r.detail).toMatch(/^fence-violation: /);
          if (kind === 'sorry') expect(r.detail).toMatch(/two_eq holds 1 sorry/);
          if (kind === 'outside') expect(r.detail).toMatch(/lines outside two_eq changed/);
          expect(r.handoff).toBeNull();
          expect(r.commit).toBeNull();
          const sent = JSON.parse(await readFile(record, 'utf8')) as Dispatch;
          expect(sent.mode).toBe('golf');
          expect(sent.parameters).toMatchObject({ search_mode: 'off' });
          expect(await readFile(join(dir, 'Paper.lean'), 'utf8')).toBe(TEXT);
          expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
          expect(git(dir, 'status', '--porcelain').trim()).toBe('');
        } finally {
          await rm(scratch, { recursive: true, force: true });
        }
      });
    }, 60_000);
  }
});

describe('the golf route in a session: journaled as dispatch/handoff events, listed once', () => {
  it('--persist: the golf dispatch (its search mode from --golf-search) and handoff are events the golf note cites', async () => {
    await withGitProject({ 'Paper.lean': '-- the paper\n' }, async ({ dir }) => {
      const store = createMemoryStore();
      const r = await runSynthesis(
        golfSessionOptions(dir, tools, {
          golfSearch: 'full',
          journal: createSynthesisJournal({ projectRoot: dir, store }),
        }),
      );
      const rep = r.output.reports[0];
      expect(rep?.routes.filter((x) => x === 'golf')).toEqual(['golf']);
      expect(gitLog(dir)).toContain('golf: two_eq');
      const loaded = await store.load(r.journalRun as string);
      expect(loaded.ok).toBe(true);
      if (!loaded.ok) return;
      const events = loaded.value.events;
      const golfDispatch = events.find(
        (e) => e.kind === 'dispatch' && (e.payload as Dispatch).mode === 'golf',
      );
      if (golfDispatch === undefined) throw new Error('no golf dispatch event');
      const sent = golfDispatch.payload as Dispatch;
      expect(sent.worker).toBe('proof-golfer');
      expect(sent.parameters).toMatchObject({ search_mode: 'full' });
      const handoff = events.find((e) => e.kind === 'handoff' && e.seq > golfDispatch.seq);
      expect(handoff).toBeDefined();
      const note = events
        .filter((e) => e.kind === 'note')
        .map((e) => JSON.parse((e.payload as { text: string }).text) as Record<string, unknown>)
        .find((n) => n.schema === 'synthesis-golf/v1');
      expect(note?.outcome).toBe('accepted');
      const run = r.journalRun as string;
      expect(note?.cites).toEqual(
        expect.arrayContaining([`${run}#${golfDispatch.seq}`, `${run}#${handoff?.seq}`]),
      );
    });
  }, 120_000);

  it('rejects a --golf-search that is not a contract search mode (usage, before anything runs)', async () => {
    await expect(
      runSynthesis({
        projectRoot: tmpdir(),
        mode: 'auto',
        source: PAPER,
        target: 'Paper.lean',
        drafter: { port: drafter },
        worker: { argv: [process.execPath, TS_WORKER] },
        golfSearch: 'deep',
        commit: 'never',
      }),
    ).rejects.toThrow(/--golf-search must be off\|quick\|full/);
  });
});
