/**
 * Where the controller keeps its invocation state (`run-persist-state/v1`):
 * - {@link fileStateStore}: the state file of the `handoff persist …` verbs, which run as separate
 *   processes and must find the state of the previous call (created exclusively, replaced whole
 *   with temp + fsync + rename + directory fsync — two syncs per save, two saves per mutation);
 * - {@link memoryStateStore}: an in-process run (`runCycle`/`runProject` with `--persist`), whose
 *   controller lives as long as the run. Nothing but the journal is written: the run store is the
 *   only durable record, the in-flight/resolved bookkeeping costs no I/O, and a mutation's cost
 *   does not grow with the run (no file to re-read, re-validate and rewrite per call). A crash
 *   loses only what a crash of the run loses anyway; what was acknowledged is in the journal.
 */
import { readState, type StateFs, type StateRead, stateText } from './state-file.js';
import type { PersistState } from './state-schema.js';

/** The controller's state persistence. Failures reject (a save that rejects is a failed save). */
export interface StateStore {
  /** Where the state lives, for messages (`memory` for the in-process store). */
  readonly location: string;
  /** Creates the state; rejects with an `EEXIST`-coded error when it exists already. */
  create(state: PersistState): Promise<void>;
  /** Replaces the state. */
  save(state: PersistState): Promise<void>;
  /** Reads and validates the state. */
  load(): Promise<StateRead>;
}

/**
 * The state file at `path`, through `fs` (the default {@link StateFs} is node:fs with fsync).
 *
 * @example
 * ```ts
 * const s = fileStateStore(nodeStateFs, '/tmp/run-persist.json');
 * ```
 */
export function fileStateStore(fs: StateFs, path: string): StateStore {
  return {
    location: path,
    create: (state) => fs.createExclusive(path, stateText(state)),
    save: (state) => fs.replace(path, stateText(state)),
    load: () => readState(fs, path),
  };
}

/**
 * In-memory state for an in-process run: the controller's states are immutable values, so the
 * store keeps the last one as it is (no serialization, no validation round trip).
 *
 * @example
 * ```ts
 * const c = new PersistController({ stateStore: memoryStateStore(), openStore, storageRoot });
 * ```
 */
export function memoryStateStore(): StateStore {
  let current: PersistState | null = null;
  return {
    location: 'memory',
    async create(state) {
      if (current !== null)
        throw Object.assign(new Error('the in-memory state exists already'), { code: 'EEXIST' });
      current = state;
    },
    async save(state) {
      current = state;
    },
    async load() {
      return current === null
        ? { ok: false, reason: 'missing', detail: 'memory: no state (start first)' }
        : { ok: true, state: current };
    },
  };
}
