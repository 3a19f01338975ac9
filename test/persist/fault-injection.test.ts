/**
 * Fault injection through the controller on the real fs store: for every file-system call a note
 * append or a finish makes, the verb is rerun with exactly that call failing (EIO; for writes also
 * a partial write and a write that writes nothing). The controller's action must be the one the
 * failure-policy table gives for the store's outcome, the journal must agree with what the helper
 * reported, and a `continue`/`stored:true` is only ever given for an event that is in the journal.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateHandoff } from '../../src/contract/index.js';
import { exitCodeOf } from '../../src/persist/failure-policy.js';
import type { PersistResult } from '../../src/persist/result.js';
import { createFsStore, type Store } from '../../src/store/index.js';
import { type FaultMode, type FaultyFs, faultyFs } from '../store/faulty-fs.js';
import { controller, dispatch, fixedClock, note, stuckHandoff, tempDir } from './fixtures.js';

type Verb = 'note' | 'finish';

interface Trial {
  readonly result: PersistResult;
  readonly f: FaultyFs;
  readonly seqs: number[];
  readonly project: string;
  /** The fs calls the verb made (taken when it returned: a dropped store's descriptors may be closed later, when the garbage collector runs). */
  readonly calls: number;
}

/** Starts a run with one committed note on a clean store, then runs `verb` with call `failAt` failing. */
async function trial(verb: Verb, failAt: number, mode: FaultMode): Promise<Trial> {
  const { dir, cleanup } = await tempDir();
  try {
    const root = join(dir, '.handoff');
    const clean = createFsStore({ root, now: fixedClock });
    const f = faultyFs();
    let faulty = false;
    const { c } = controller(dir, clean, {
      openStore: (): Store => (faulty ? createFsStore({ root, now: fixedClock, fs: f }) : clean),
      storageRoot: root,
    });
    expect((await c.start({ dispatch: dispatch() })).action).toBe('continue');
    expect((await c.note(note('a'))).action).toBe('continue');
    faulty = true;
    f.failAt = failAt;
    f.mode = mode;
    const result = verb === 'note' ? await c.note(note('b')) : await c.finish(stuckHandoff());
    const calls = f.trace.length;
    const runId = result.run_id as string;
    const loaded = await createFsStore({ root }).load(runId);
    if (!loaded.ok) throw new Error(`reload failed: ${loaded.code}`);
    // the journal is never damaged silently: a damaged tail is reported by load, never hidden
    const seqs = loaded.value.events.map((e) => e.seq);
    const raw = readFileSync(join(root, 'runs', runId, 'events.jsonl'), 'utf8');
    if (!loaded.value.damaged) expect(raw.split('\n').filter(Boolean)).toHaveLength(seqs.length);
    return { result, f, seqs, project: dir, calls };
  } finally {
    await cleanup();
  }
}

function check(verb: Verb, t: Trial): string {
  const { result: r, f, seqs } = t;
  const ctx = `${verb} failing ${f.failed ?? '(none)'} → ${JSON.stringify(r).slice(0, 400)}`;
  const outcome = r.outcome as string;
  if (verb === 'note') {
    if (r.action === 'continue') {
      // continue only for a committed append that is in the journal, with its cite
      expect(outcome, ctx).toBe('committed');
      expect(r.cite, ctx).toBe(`${r.run_id}#2`);
      expect(seqs, ctx).toEqual([1, 2]);
      expect(exitCodeOf(r), ctx).toBe(0);
    } else {
      expect(r.action, ctx).toBe('stop');
      expect(r.cite, ctx).toBeUndefined();
      expect(r.seq, ctx).toBeUndefined();
      expect(exitCodeOf(r), ctx).toBe(5);
      expect(r.terminal_enforced, ctx).toBe(true);
      const h = validateHandoff(r.handoff);
      expect(h.ok, ctx).toBe(true);
      expect(r.handoff?.stop_reason, ctx).toBe('operational-error');
      expect(r.handoff?.next_action, ctx).toBe('stop');
      // the failed note informs the handoff once, by text (no cite for an unconfirmed event)
      expect(r.handoff?.failed_avenues, ctx).toEqual([`${r.run_id}#1`, 'b']);
      if (outcome.startsWith('refused:')) {
        expect(r.unpersisted, ctx).toMatchObject({ kind: 'note', seq: null, status: 'not-stored' });
        expect(r.handoff?.stop_detail, ctx).toMatch(/^run-store [a-z_]+: /);
        expect(seqs, ctx).toEqual([1]);
      } else {
        expect(outcome, ctx).toBe('indeterminate');
        expect(r.unpersisted, ctx).toMatchObject({ kind: 'note', seq: null, status: 'unconfirmed' });
      }
    }
  } else {
    expect(r.action, ctx).toBe('done');
    if (r.stored === true) {
      expect(['committed', 'journal_only'], ctx).toContain(outcome);
      expect(r.cite, ctx).toBe(`${r.run_id}#2`);
      expect(seqs, ctx).toEqual([1, 2]);
      if (outcome === 'journal_only') expect(r.warning, ctx).toContain('handoff cache not confirmed');
      expect(exitCodeOf(r), ctx).toBe(0);
    } else {
      expect(r.stored, ctx).toBe(false);
      expect(r.cite, ctx).toBeUndefined();
      expect(exitCodeOf(r), ctx).toBe(5);
      expect(validateHandoff(r.fallback_handoff).ok, ctx).toBe(true);
      expect(r.persistence, ctx).toBe(outcome.startsWith('refused:') ? 'not-stored' : 'unconfirmed');
      if (outcome.startsWith('refused:')) expect(seqs, ctx).toEqual([1]);
      else expect(outcome, ctx).toBe('indeterminate');
    }
  }
  return outcome;
}

describe('fault injection through the controller (real fs store)', () => {
  for (const verb of ['note', 'finish'] as const) {
    it(`${verb}: every failing step yields the policy action for the store outcome; never a false success`, async () => {
      const clean = await trial(verb, -1, 'eio');
      expect(check(verb, clean)).toBe('committed');
      const n = clean.calls;
      expect(n).toBeGreaterThan(10);
      const seen = new Set<string>();
      for (let i = 0; i < n; i++) {
        const modes: FaultMode[] = clean.f.trace[i]?.startsWith('write ')
          ? ['eio', 'partial', 'enospc-nothing']
          : ['eio'];
        for (const mode of modes) {
          const t = await trial(verb, i, mode);
          expect(t.f.failed, `call ${i} not reached`).not.toBeNull();
          seen.add(check(verb, t));
        }
      }
      // the table is really exercised: refusals before the write, uncertainty at write/fsync,
      // success when only post-commit steps fail
      expect([...seen].some((o) => o.startsWith('refused:'))).toBe(true);
      expect(seen).toContain('indeterminate');
      expect(seen).toContain('committed');
      if (verb === 'finish') expect(seen).toContain('journal_only');
    });
  }
});
