/**
 * Where the controller keeps its invocation state (`run-persist-state/v1`):
 * - {@link fileStateStore}: the state file of the `handoff persist …` verbs, which run as separate
 *   processes and must find the state of the previous call (created exclusively; each save
 *   appends its delta to `<state>.log` with one fsync, and the state file is rewritten whole —
 *   temp + fsync + rename + directory fsync — only when that log outgrows it);
 * - {@link memoryStateStore}: an in-process run (`runCycle`/`runProject` with `--persist`), whose
 *   controller lives as long as the run. Nothing but the journal is written: the run store is the
 *   only durable record, the in-flight/resolved bookkeeping costs no I/O, and a mutation's cost
 *   does not grow with the run (no file to re-read, re-validate and rewrite per call). A crash
 *   loses only what a crash of the run loses anyway; what was acknowledged is in the journal.
 */
import { sha256Hex } from '../canonical/index.js';
import { applyDelta, stateDelta } from './state-delta.js';
import {
  parseStateJson,
  readState,
  readStateText,
  type StateFs,
  type StateRead,
  stateText,
  validateState,
} from './state-file.js';
import { readStateLog, stateLogHeader, stateLogLine } from './state-log.js';
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

/** The state log's size below which a save never rewrites the state file whole (default). */
export const MIN_COMPACT_BYTES = 256 * 1024;

/** Options of {@link fileStateStore}. */
export interface FileStateStoreOptions {
  /**
   * The log size below which a save appends rather than rewriting the state file whole (default
   * {@link MIN_COMPACT_BYTES}); above it, and above the state file's own size, the next save
   * rewrites the state file and starts a new log.
   */
  readonly minCompactBytes?: number;
}

/** What this store last read or wrote, and whether it still describes the files. */
interface Known {
  readonly state: PersistState;
  /** sha256 and byte length of the state file's text. */
  readonly stateSha: string;
  readonly stateBytes: number;
  /** Bytes of the log extending that state file (0: no log for it yet). */
  readonly logBytes: number;
  /** The files' fingerprints when this was taken. */
  readonly fp: string;
  /** Whether a save may append (false after a torn tail or a failed append: rewrite whole first). */
  readonly clean: boolean;
}

/**
 * The state file at `path`, through `fs` (the default {@link StateFs} is node:fs with fsync).
 *
 * When `fs` can append, fingerprint and remove (node:fs can), a save appends one delta line to
 * `<path>.log` (state-log.ts: one write and one fsync, its size independent of the run's length)
 * instead of rewriting the state file, which is rewritten whole only when the log has grown past
 * the state file's own size (amortized: a long run pays a constant share per save). A load
 * whose files are unchanged since this store's last read or write (same inode, size and
 * modification time) returns the state it holds without re-reading; any other load reads the
 * state file, replays its log and validates the result. Without those operations every save
 * rewrites the state file whole, as before.
 *
 * @example
 * ```ts
 * const s = fileStateStore(nodeStateFs, '/tmp/run-persist.json');
 * ```
 */
export function fileStateStore(fs: StateFs, path: string, options: FileStateStoreOptions = {}): StateStore {
  const minCompact = options.minCompactBytes ?? MIN_COMPACT_BYTES;
  const { append, fingerprint, remove } = fs;
  if (append === undefined || fingerprint === undefined || remove === undefined) {
    return {
      location: path,
      create: (state) => fs.createExclusive(path, stateText(state)),
      save: (state) => fs.replace(path, stateText(state)),
      load: () => readState(fs, path),
    };
  }
  const logPath = `${path}.log`;
  let known: Known | null = null;
  const fingerprints = async () =>
    `${await fingerprint.call(fs, path)}|${await fingerprint.call(fs, logPath)}`;
  const removeLog = async () => {
    try {
      await remove.call(fs, logPath);
    } catch {
      // a log left behind is stale (its base is not the new state file) and is ignored on load
    }
  };
  const wrote = async (state: PersistState, text: string): Promise<void> => {
    await removeLog();
    known = {
      state,
      stateSha: sha256Hex(text),
      stateBytes: Buffer.byteLength(text),
      logBytes: 0,
      fp: await fingerprints(),
      clean: true,
    };
  };
  return {
    location: path,
    async create(state) {
      const text = stateText(state);
      await fs.createExclusive(path, text);
      await wrote(state, text);
    },
    async save(state) {
      const k = known;
      // another writer since this store's last read or write: rewrite whole (the last writer wins)
      if (
        k === null ||
        !k.clean ||
        k.logBytes > Math.max(minCompact, k.stateBytes) ||
        (await fingerprints()) !== k.fp
      ) {
        known = null;
        const text = stateText(state);
        await fs.replace(path, text);
        await wrote(state, text);
        return;
      }
      const ops = stateDelta(k.state, state);
      if (ops.length === 0) return;
      const line = stateLogLine(ops);
      try {
        if (k.logBytes === 0) {
          const head = stateLogHeader(k.stateSha);
          await fs.replace(logPath, head + line);
          known = { ...k, state, logBytes: Buffer.byteLength(head + line), fp: await fingerprints() };
        } else {
          const logFp = await append.call(fs, logPath, line);
          // the state file is as the check above found it (k.fp's first part); the log's new
          // fingerprint comes from the descriptor that wrote it when the StateFs gives it
          const fp =
            typeof logFp === 'string' ? `${k.fp.slice(0, k.fp.indexOf('|'))}|${logFp}` : await fingerprints();
          known = { ...k, state, logBytes: k.logBytes + Buffer.byteLength(line), fp };
        }
      } catch (e) {
        // the log may now end in part of this line: never append after it, rewrite whole next
        known = { ...k, clean: false };
        throw e;
      }
    },
    async load() {
      const fp = await fingerprints();
      if (known !== null && known.fp === fp) return { ok: true, state: known.state };
      known = null;
      const t = await readStateText(fs, path);
      if (!t.ok) return t;
      const parsed = parseStateJson(t.text, path);
      if (!parsed.ok) return parsed;
      let value = parsed.value;
      const stateSha = sha256Hex(t.text);
      const lt = await readStateText(fs, logPath);
      let logBytes = 0;
      let clean = true;
      if (lt.ok) {
        const log = readStateLog(lt.text, stateSha);
        if (!log.ok && log.reason === 'invalid')
          return { ok: false, reason: 'invalid', detail: `${logPath}: ${log.detail}` };
        if (log.ok) {
          for (const [i, d] of log.deltas.entries()) {
            const r = applyDelta(value, d);
            if (!r.ok)
              return { ok: false, reason: 'invalid', detail: `${logPath}: save ${i + 1}: ${r.detail}` };
            value = r.value;
          }
          logBytes = Buffer.byteLength(lt.text);
          clean = !log.torn;
        }
      } else if (lt.reason !== 'missing') {
        return lt;
      }
      const r = validateState(value, path);
      if (r.ok)
        known = { state: r.state, stateSha, stateBytes: Buffer.byteLength(t.text), logBytes, fp, clean };
      return r;
    },
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
