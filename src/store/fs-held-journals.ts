/**
 * The fs store's journal descriptor cache: what one store instance knows about each run's journal
 * (the inode it validated, the size validated so far, the last seq and chain tail) and, between
 * appends, the open descriptor of that inode — at most {@link HELD_JOURNALS} of them, least
 * recently used closed first. Descriptors of a collected store are closed by a finalizer.
 */
import type { FsLayer } from '../durable/index.js';
import type { ChainTail } from './chain-rules.js';

/**
 * How many journal descriptors one fs store keeps open between appends (least recently used are closed).
 *
 * @example
 * ```ts
 * for (const id of runIds.slice(0, HELD_JOURNALS)) await store.append(id, 'note', n); // all held
 * ```
 */
export const HELD_JOURNALS = 8;

/** How many journal states (without a descriptor) one instance remembers at most. */
const REMEMBERED = 1000;

/**
 * What this instance knows about a run's journal: the inode it validated, the size validated so
 * far and the last seq in it, and (between appends) the open descriptor of that inode. `ino` -1:
 * created empty by this instance, inode not yet seen.
 *
 * @example
 * ```ts
 * const fresh: JournalState = { fd: null, ino: -1, dev: -1, size: 0, lastSeq: 0, tail: null };
 * ```
 */
export interface JournalState {
  fd: number | null;
  ino: number;
  dev: number;
  size: number;
  lastSeq: number;
  /** Chain runs: the last committed baton's revision and fingerprint at `lastSeq`. */
  tail: ChainTail | null;
  /**
   * The batch sidecar as last seen under the lock: null when absent, undefined when not known
   * (read again before the next write).
   */
  sidecar?: SidecarKnown | null | undefined;
}

/**
 * What an instance knows of a run's batch sidecar (`batches.jsonl`): the file it read (inode,
 * device, size), whether it ends with a newline, and the greatest first seq of its records (a
 * record starting after the journal's last seq is an aborted batch that the next write must
 * supersede).
 *
 * @example
 * ```ts
 * const k: SidecarKnown = { ino, dev, size: 120, endsWithNewline: true, maxFirst: 4 };
 * ```
 */
export interface SidecarKnown {
  readonly ino: number;
  readonly dev: number;
  readonly size: number;
  readonly endsWithNewline: boolean;
  readonly maxFirst: number;
}

/**
 * A journal state with its descriptor open.
 *
 * @example
 * ```ts
 * const s: HeldJournal = { ...state, fd };
 * ```
 */
export type HeldJournal = JournalState & { fd: number };

function closeQuietly(fsl: FsLayer, fd: number): void {
  try {
    fsl.close(fd);
  } catch {
    // nothing pending on it: every acknowledged line was fsync'd before it was kept open
  }
}

/**
 * The journal states of one store instance, by run id (most recently used last).
 *
 * @example
 * ```ts
 * const held = new HeldJournals(fsl);
 * held.remember(runId, { fd, ino, dev, size, lastSeq: 3, tail: null });
 * held.forget(runId); // closes fd
 * ```
 */
export class HeldJournals {
  readonly #fsl: FsLayer;
  readonly #states = new Map<string, JournalState>();

  constructor(fsl: FsLayer) {
    this.#fsl = fsl;
  }

  /** The state known for `runId`, if any. */
  get(runId: string): JournalState | undefined {
    return this.#states.get(runId);
  }

  /** Forgets a run's journal state, closing its held descriptor. */
  forget(runId: string): void {
    const s = this.#states.get(runId);
    this.#states.delete(runId);
    if (s?.fd != null) closeQuietly(this.#fsl, s.fd);
  }

  /** Records a run's journal state (most recently used last), keeping at most {@link HELD_JOURNALS} descriptors open. */
  remember(runId: string, state: JournalState): void {
    const states = this.#states;
    states.delete(runId);
    states.set(runId, state);
    let held = 0;
    for (const s of states.values()) if (s.fd !== null) held++;
    for (const [id, s] of states) {
      if (held <= HELD_JOURNALS) break;
      if (s.fd === null || id === runId) continue;
      closeQuietly(this.#fsl, s.fd);
      s.fd = null;
      held--;
    }
    if (states.size > REMEMBERED) {
      for (const [id, s] of states) {
        if (states.size <= REMEMBERED) break;
        if (s.fd === null) states.delete(id);
      }
    }
  }

  /** Closes every held descriptor (the states stay: the next append reopens and re-checks). */
  closeAll(): void {
    for (const s of this.#states.values()) {
      if (s.fd === null) continue;
      closeQuietly(this.#fsl, s.fd);
      s.fd = null;
    }
  }
}

/** Held journal descriptors of collected stores are closed (each store registers its cache). */
const finalizer = new FinalizationRegistry<HeldJournals>((held) => held.closeAll());

/**
 * Closes `held`'s descriptors once `owner` (the store object) is garbage collected.
 *
 * @example
 * ```ts
 * closeWhenCollected(store, held);
 * ```
 */
export function closeWhenCollected(owner: object, held: HeldJournals): void {
  finalizer.register(owner, held);
}
