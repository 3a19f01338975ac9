/**
 * Two controllers on one state file (two `handoff persist` invocations given the same `--state`):
 * the second reads the state, the first then completes a note (seq 1, acknowledged to it), the
 * second appends at another seq than it expected and stops. Both stop — and the state file keeps
 * the seq acknowledged to the first, because a stop takes its committed history from the journal
 * (before, it recorded `last_seq: 0` and an empty history). Plus the pure rule's cases.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reconcileWithJournal } from '../../src/persist/journal-truth.js';
import { nodeStateFs, type StateFs } from '../../src/persist/state-file.js';
import type { PersistState } from '../../src/persist/state-schema.js';
import { createFsStore } from '../../src/store/index.js';
import { controller, dispatch, note, readStateFile, tempDir } from './fixtures.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await cleanup();
});

describe('a stop keeps what the journal committed', () => {
  it('two controllers on one state file: both stop, and the acknowledged seq stays in the state', async () => {
    const store = createFsStore({ root: join(dir, 'store'), env: {} });
    const a = controller(dir, store);
    const started = await a.c.start({ dispatch: dispatch(), trackerSessionId: null });
    expect(started.action).toBe('continue');
    const runId = started.run_id as string;
    let interleave: (() => Promise<unknown>) | null = null;
    const racing: StateFs = {
      ...nodeStateFs,
      async read(path) {
        const text = await nodeStateFs.read(path);
        // the other controller writes after this one has read the whole state (file and log)
        if (!path.endsWith('.log')) return text;
        const go = interleave;
        interleave = null;
        if (go !== null) await go();
        return text;
      },
    };
    const b = controller(dir, store, { stateFs: racing });
    let firstResult: unknown;
    interleave = async () => {
      firstResult = await a.c.note(note());
    };
    const second = await b.c.note(note());
    expect(firstResult).toMatchObject({ action: 'continue', seq: 1, cite: `${runId}#1` });
    expect(second.action).toBe('stop');
    expect((await a.c.note(note())).action).toBe('stop');
    const state = await readStateFile(a.statePath);
    expect(state.last_seq).toBe(2);
    expect(state.history.map((h) => h.cite)).toEqual([`${runId}#1`, `${runId}#2`]);
    expect(state.stopped).not.toBeNull();
  });
});

describe('reconcileWithJournal', () => {
  const base = {
    run_id: '20261201T120000Z-0123abcd',
    last_seq: 1,
    history: [{ seq: 1, kind: 'note', cite: '20261201T120000Z-0123abcd#1' }],
  } as unknown as PersistState;
  it('takes the journal when it knows more, never lowers, ignores another run', () => {
    const more = reconcileWithJournal(base, {
      run_id: '20261201T120000Z-0123abcd',
      events: [
        { seq: 1, kind: 'note' },
        { seq: 2, kind: 'handoff' },
      ],
    });
    expect(more.last_seq).toBe(2);
    expect(more.history.at(-1)).toEqual({ seq: 2, kind: 'handoff', cite: '20261201T120000Z-0123abcd#2' });
    expect(reconcileWithJournal(base, { run_id: '20261201T120000Z-0123abcd', events: [] })).toBe(base);
    expect(reconcileWithJournal(base, { run_id: 'X', events: [{ seq: 5, kind: 'note' }] })).toBe(base);
  });
});
