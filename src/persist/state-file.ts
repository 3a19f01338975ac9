/**
 * The invocation state file (layer 3, I/O): created exclusively (O_EXCL) at start, replaced
 * whole afterwards (temp file + fsync + rename + directory fsync). The file system calls go
 * through {@link StateFs} so tests can inject a failure at any step.
 */

import { constants } from 'node:fs';
import { type FileHandle, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { randomHex } from '../ids/index.js';
import { safeValidate } from '../validation/index.js';
import { type PersistState, PersistStateSchema } from './state-schema.js';

/** The file operations the state file needs. */
export interface StateFs {
  /** Creates `path` exclusively with `text` (fails with EEXIST when it exists) and fsyncs it. */
  createExclusive(path: string, text: string): Promise<void>;
  /** Replaces `path` atomically with `text` (temp + fsync + rename + directory fsync). */
  replace(path: string, text: string): Promise<void>;
  /** Reads `path` as UTF-8. */
  read(path: string): Promise<string>;
}

async function syncDir(dir: string): Promise<void> {
  let h: FileHandle | undefined;
  try {
    h = await open(dir, constants.O_RDONLY);
    await h.sync();
  } finally {
    await h?.close();
  }
}

/**
 * The real {@link StateFs} on node:fs.
 *
 * @example
 * ```ts
 * await nodeStateFs.createExclusive('/tmp/x/state.json', '{}');
 * ```
 */
export const nodeStateFs: StateFs = {
  async createExclusive(path, text) {
    const h = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await h.writeFile(text, 'utf8');
      await h.sync();
    } finally {
      await h.close();
    }
    await syncDir(dirname(path));
  },
  async replace(path, text) {
    const tmp = `${path}.${randomHex(8)}.tmp`;
    try {
      const h = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
      try {
        await h.writeFile(text, 'utf8');
        await h.sync();
      } finally {
        await h.close();
      }
      await rename(tmp, path);
    } catch (e) {
      await unlink(tmp).catch(() => {});
      throw e;
    }
    await syncDir(dirname(path));
  },
  read(path) {
    return readFile(path, 'utf8');
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
  let text: string;
  try {
    text = await fs.read(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return {
      ok: false,
      reason: code === 'ENOENT' ? 'missing' : 'unreadable',
      detail: `${path}: ${code ?? String(e)}`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, reason: 'invalid', detail: `${path}: not JSON (${(e as Error).message})` };
  }
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
