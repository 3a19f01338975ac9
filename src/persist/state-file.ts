/**
 * The invocation state file (layer 3, I/O): created exclusively (O_EXCL) at start, replaced
 * whole afterwards (temp file + fsync + rename + directory fsync) — both with src/durable's
 * mechanisms. The file system calls go through {@link StateFs} so tests can inject a failure at
 * any step.
 */

import { type BigIntStats, fstatSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  causeOf,
  createExclusiveFile,
  fsyncDir,
  nodeFsLayer,
  O,
  publishFile,
  writeFully,
} from '../durable/index.js';
import { randomHex } from '../ids/index.js';
import { safeValidate } from '../validation/index.js';
import { type PersistState, PersistStateSchema } from './state-schema.js';

/** The file operations the state file needs. Failures reject with the Node error (its `code`: `EEXIST`…). */
export interface StateFs {
  /** Creates `path` exclusively with `text` (fails with EEXIST when it exists) and fsyncs it. */
  createExclusive(path: string, text: string): Promise<void>;
  /** Replaces `path` atomically with `text` (temp + fsync + rename + directory fsync). */
  replace(path: string, text: string): Promise<void>;
  /** Reads `path` as UTF-8. */
  read(path: string): Promise<string>;
  /**
   * Appends `text` to the existing file `path` and syncs it (fails with ENOENT when it does not
   * exist). Optional: without it (with `fingerprint` and `remove`), every save rewrites the state
   * file whole. May resolve to the file's {@link StateFs.fingerprint} after the write, taken from
   * the descriptor it wrote through (saves the store a stat per save); `undefined` when it does not.
   */
  append?(path: string, text: string): Promise<string | undefined>;
  /** An identity of `path`'s current bytes (inode, size, modification time); `null` when absent. */
  fingerprint?(path: string): Promise<string | null>;
  /** Removes `path`; a missing file is not an error. */
  remove?(path: string): Promise<void>;
}

const fsl = nodeFsLayer();

/** `<inode>:<size>:<mtime ns>`: the identity of a file's current bytes (see `StateFs.fingerprint`). */
function statsFingerprint(s: BigIntStats): string {
  return `${s.ino}:${s.size}:${s.mtimeNs}`;
}

/**
 * The real {@link StateFs} on node:fs (through src/durable; synchronous calls behind promises).
 *
 * @example
 * ```ts
 * await nodeStateFs.createExclusive('/tmp/x/state.json', '{}');
 * ```
 */
export const nodeStateFs: StateFs = {
  async createExclusive(path, text) {
    // a body that cannot be written is left in place, as before: the start is refused either way
    const r = createExclusiveFile(fsl, path, Buffer.from(text, 'utf8'), {
      mode: 0o600,
      sync: true,
      keepOnFailure: true,
    });
    if (!r.ok) throw r.cause;
    try {
      fsyncDir(fsl, dirname(path), 'state_dir_fsync');
    } catch (e) {
      throw causeOf(e);
    }
  },
  async replace(path, text) {
    try {
      publishFile(fsl, path, Buffer.from(text, 'utf8'), {
        label: 'state',
        tmpPath: `${path}.${randomHex(8)}.tmp`,
        mode: 0o600,
      });
    } catch (e) {
      throw causeOf(e);
    }
  },
  read(path) {
    return readFile(path, 'utf8');
  },
  async append(path, text) {
    let fd: number;
    try {
      fd = fsl.open(path, O.O_WRONLY | O.O_APPEND | O.O_NOFOLLOW);
    } catch (e) {
      throw causeOf(e);
    }
    try {
      writeFully(fsl, fd, Buffer.from(text, 'utf8'), 'state_log_write');
      fsl.fsync(fd);
      // the fingerprint of what this descriptor wrote (the file the path named when it was opened)
      return statsFingerprint(fstatSync(fd, { bigint: true }));
    } catch (e) {
      throw causeOf(e);
    } finally {
      fsl.close(fd);
    }
  },
  async fingerprint(path) {
    try {
      return statsFingerprint(statSync(path, { bigint: true }));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  },
  async remove(path) {
    try {
      fsl.unlink(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw causeOf(e);
    }
  },
};

/** Result of reading the state file. */
export type StateRead =
  | { readonly ok: true; readonly state: PersistState }
  | { readonly ok: false; readonly reason: 'missing' | 'unreadable' | 'invalid'; readonly detail: string };

/**
 * Reads and validates the state file.
 *
 * @example
 * ```ts
 * const r = await readState(nodeStateFs, path);
 * if (r.ok) r.state.run_id;
 * ```
 */
export async function readState(fs: StateFs, path: string): Promise<StateRead> {
  const t = await readStateText(fs, path);
  if (!t.ok) return t;
  const p = parseStateJson(t.text, path);
  return p.ok ? validateState(p.value, path) : p;
}

/**
 * Parses the state file's text (not yet validated); text that is not JSON is an `invalid` read.
 *
 * @example
 * ```ts
 * const p = parseStateJson(text, path); if (p.ok) validateState(p.value, path);
 * ```
 */
export function parseStateJson(
  text: string,
  path: string,
): { readonly ok: true; readonly value: unknown } | Extract<StateRead, { ok: false }> {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, reason: 'invalid', detail: `${path}: not JSON (${(e as Error).message})` };
  }
}

/**
 * Reads the file at `path` as text; a missing or unreadable file is a {@link StateRead} failure.
 *
 * @example
 * ```ts
 * const t = await readStateText(nodeStateFs, path); if (t.ok) JSON.parse(t.text);
 * ```
 */
export async function readStateText(
  fs: StateFs,
  path: string,
): Promise<{ readonly ok: true; readonly text: string } | Extract<StateRead, { ok: false }>> {
  try {
    return { ok: true, text: await fs.read(path) };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return {
      ok: false,
      reason: code === 'ENOENT' ? 'missing' : 'unreadable',
      detail: `${path}: ${code ?? String(e)}`,
    };
  }
}

/**
 * Validates a parsed state (`path` names it in the detail). Never throws.
 *
 * @example
 * ```ts
 * const r = validateState(JSON.parse(text), path); if (r.ok) r.state.last_seq;
 * ```
 */
export function validateState(value: unknown, path: string): StateRead {
  const r = safeValidate(PersistStateSchema, value);
  if (!r.ok) {
    return {
      ok: false,
      reason: 'invalid',
      detail: `${path}: ${r.issues
        .slice(0, 3)
        .map((i) => `${i.path || '(root)'} ${i.message}`)
        .join('; ')}`,
    };
  }
  return { ok: true, state: r.value };
}

/**
 * Serializes a state for writing (pretty JSON and a newline).
 *
 * @example
 * ```ts
 * await fs.replace(path, stateText(state));
 * ```
 */
export function stateText(state: PersistState): string {
  return `${JSON.stringify(state, null, 2)}\n`;
}
