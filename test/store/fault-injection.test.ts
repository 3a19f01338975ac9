/**
 * Fault injection at every step: for each file-system call an operation makes, the operation is
 * rerun with exactly that call failing (EIO; and, for writes, a partial write or a write that
 * writes nothing). The reported outcome must match what is on disk, and `committed` must only
 * follow durable writes (the faulty layer's durability model).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFsStore, type StoreResult } from '../../src/store/index.js';
import { type FaultMode, faultyFs } from './faulty-fs.js';
import { dispatch, fixedClock, note, solvedHandoff } from './fixtures.js';
import { tempDir } from './tmp.js';

type Op = 'append' | 'set-handoff';

async function setupRun(): Promise<{ project: string; id: string; dir: string }> {
  const project = tempDir('fault-');
  const store = createFsStore({ projectRoot: project, env: {}, now: fixedClock() });
  const c = await store.createRun({ dispatch: dispatch() });
  const id = c.run_id as string;
  await store.append(id, 'note', note('a'));
  await store.append(id, 'note', note('b'));
  return { project, id, dir: c.run_directory as string };
}

async function mutate(op: Op, failAt: number, mode: FaultMode) {
  const { project, id, dir } = await setupRun();
  const journal = join(dir, 'events.jsonl');
  const before = readFileSync(journal);
  const f = faultyFs();
  f.failAt = failAt;
  f.mode = mode;
  const store = createFsStore({ projectRoot: project, env: {}, now: fixedClock(), fs: f });
  const result =
    op === 'append' ? await store.append(id, 'note', note('c')) : await store.setHandoff(id, solvedHandoff());
  const reloaded = await createFsStore({ projectRoot: project, env: {} }).load(id);
  return { project, id, dir, journal, before, f, result, reloaded };
}

function checkMutation(op: Op, r: Awaited<ReturnType<typeof mutate>>): void {
  const { result, reloaded, f, before, journal, dir } = r;
  const ctx = `${op} failing ${f.failed ?? '(none)'} → ${JSON.stringify(result)}`;
  expect(result.schema, ctx).toBe('run-store-result/v1');
  if (!reloaded.ok) throw new Error(`${ctx}: reload failed ${reloaded.code}`);
  const events = reloaded.value.events;
  const after = readFileSync(journal);
  switch (result.outcome) {
    case 'committed':
    case 'journal_only':
      if (result.outcome === 'journal_only') expect(op, ctx).toBe('set-handoff');
      expect(result.seq, ctx).toBe(3);
      expect(
        events.map((e) => e.seq),
        ctx,
      ).toEqual([1, 2, 3]);
      expect(f.unsyncedContent.has(journal), `${ctx}: journal not fsync'd`).toBe(false);
      expect(reloaded.value.damaged, ctx).toBe(false);
      if (op === 'set-handoff' && result.outcome === 'committed') {
        const cache = join(dir, 'handoff.json');
        expect(
          f.unsyncedContent.has(cache) || f.unsyncedEntries.has(cache),
          `${ctx}: cache not durable`,
        ).toBe(false);
        expect(reloaded.value.handoff_cache, ctx).toBe('current');
      }
      break;
    case 'nothing_written':
      expect(result.code, ctx).toBeDefined();
      expect(after.equals(before), `${ctx}: journal changed`).toBe(true);
      break;
    case 'indeterminate':
      expect(result.step, ctx).toBeDefined();
      // whatever reached the disk is either a whole event or detected damage — never silent
      if (after.length !== before.length) {
        expect(events.length === 3 || reloaded.value.damaged, ctx).toBe(true);
      }
      break;
  }
  if (!(f.failed ?? '').startsWith(`unlink ${join(dir, '.lock')}`)) {
    expect(existsSync(join(dir, '.lock')), `${ctx}: lock left behind`).toBe(false);
  }
}

describe('fault injection: append and set-handoff', () => {
  for (const op of ['append', 'set-handoff'] as const) {
    it(`${op}: every failing step yields a truthful outcome, never a false committed`, async () => {
      const clean = await mutate(op, -1, 'eio');
      expect(clean.result.outcome).toBe('committed');
      const n = clean.f.trace.length;
      expect(n).toBeGreaterThan(10);
      const outcomes = new Map<string, string>();
      for (let i = 0; i < n; i++) {
        const modes: FaultMode[] = clean.f.trace[i]?.startsWith('write ')
          ? ['eio', 'partial', 'enospc-nothing']
          : ['eio'];
        for (const mode of modes) {
          const r = await mutate(op, i, mode);
          expect(r.f.failed, `call ${i} not reached`).not.toBeNull();
          checkMutation(op, r);
          outcomes.set(`${mode} ${(r.f.failed as string).replace(r.project, '')}`, r.result.outcome);
        }
      }
      const values = [...outcomes.values()];
      // the step table really is exercised: refusals before the write, indeterminate at write/fsync,
      // committed for failures after the fsync (close, lock release)
      expect(values).toContain('nothing_written');
      expect(values).toContain('indeterminate');
      expect(values).toContain('committed');
      if (op === 'set-handoff') expect(values).toContain('journal_only');
      const byStep = (prefix: string) =>
        [...outcomes.entries()].filter(([k]) => k.startsWith(prefix)).map(([, v]) => v);
      expect(byStep('eio fsync /.handoff/runs/').length).toBeGreaterThan(0);
      for (const [k, v] of outcomes) {
        if (/^eio fsync .*events\.jsonl$/.test(k)) expect(v, k).toBe('indeterminate');
        if (/^partial write .*events\.jsonl$/.test(k)) expect(v, k).toBe('indeterminate');
        if (/^enospc-nothing write .*events\.jsonl$/.test(k)) expect(v, k).toBe('nothing_written');
        if (/^eio open .*\.lock$/.test(k)) expect(v, k).toBe('nothing_written');
      }
    });
  }
});

describe('fault injection: create', () => {
  it('every failing step yields a truthful outcome; committed only when the run is durable', async () => {
    const run = async (failAt: number, mode: FaultMode) => {
      const project = tempDir('fault-create-');
      const f = faultyFs();
      f.failAt = failAt;
      f.mode = mode;
      // one run id for every trial: the faulted creates are compared with the clean one's directory
      const store = createFsStore({
        projectRoot: project,
        env: {},
        now: fixedClock(),
        fs: f,
        runIdSuffix: () => '0a1b2c3d',
      });
      const result: StoreResult = await store.createRun({ dispatch: dispatch() });
      return { project, f, result };
    };
    const clean = await run(-1, 'eio');
    expect(clean.result.outcome).toBe('committed');
    const n = clean.f.trace.length;
    const seen = new Set<string>();
    for (let i = 0; i < n; i++) {
      const modes: FaultMode[] = clean.f.trace[i]?.startsWith('write ') ? ['eio', 'partial'] : ['eio'];
      for (const mode of modes) {
        const { project, f, result } = await run(i, mode);
        const ctx = `create failing ${f.failed} → ${JSON.stringify(result)}`;
        seen.add(result.outcome);
        const root = join(project, '.handoff');
        const id = clean.result.run_id as string;
        const dir = join(root, 'runs', id);
        const loaded = await createFsStore({ root, env: {} }).load(id);
        if (result.outcome === 'committed') {
          expect(loaded.ok, ctx).toBe(true);
          for (const p of [join(dir, 'manifest.json'), join(dir, 'events.jsonl'), dir, join(root, 'runs')]) {
            expect(f.unsyncedEntries.has(p) || f.unsyncedContent.has(p), `${ctx}: ${p} not durable`).toBe(
              false,
            );
          }
        } else if (result.outcome === 'nothing_written') {
          expect(result.code, ctx).toBeDefined();
          expect(loaded.ok, `${ctx}: a refused create left a loadable run`).toBe(false);
          expect(existsSync(join(dir, 'manifest.json')), ctx).toBe(false);
        } else {
          expect(result.outcome, ctx).toBe('indeterminate');
          expect(result.step, ctx).toBeDefined();
        }
      }
    }
    expect(seen).toContain('nothing_written');
    expect(seen).toContain('indeterminate');
  });
});

describe('fault injection: load', () => {
  it('a failing read step is a refusal or a reported partial result, never an exception or a longer history', async () => {
    const { project, id } = await setupRun();
    const real = await createFsStore({ projectRoot: project, env: {} }).load(id);
    if (!real.ok) throw new Error(real.detail);
    const clean = faultyFs();
    await createFsStore({ projectRoot: project, env: {}, fs: clean }).load(id);
    const allowed = [
      'journal_unreadable',
      'incomplete_run',
      'integrity_failure',
      'no_such_run',
      'no_runs_dir',
      'no_storage_root',
    ];
    for (let i = 0; i < clean.trace.length; i++) {
      const f = faultyFs();
      f.failAt = i;
      const r = await createFsStore({ projectRoot: project, env: {}, fs: f }).load(id);
      const ctx = `load failing ${f.failed}`;
      if (r.ok) {
        // only the disposable cache (or a diagnostic realpath) may fail without failing the load
        expect(r.value.events, ctx).toEqual(real.value.events);
      } else {
        expect(allowed, `${ctx}: ${r.code}`).toContain(r.code);
      }
    }
  });
});
