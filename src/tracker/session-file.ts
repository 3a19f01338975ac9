/**
 * Persistence of tracker sessions (layer 3): one JSON state file per session under
 * `HANDOFF_SESSION_DIR` (or the OS temp dir), written atomically (temp file + fsync + rename,
 * src/durable's `publishFile`).
 */

import { readFile, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { causeOf, nodeFsLayer, publishFile } from '../durable/index.js';
import { HandoffError } from '../errors/index.js';
import { randomHex } from '../ids/index.js';
import { type TrackerState, TrackerStateSchema } from './schema.js';

/** Environment variable naming the session directory. */
export const SESSION_DIR_ENV = 'HANDOFF_SESSION_DIR';
/** Environment variable naming the current session. */
export const SESSION_ID_ENV = 'HANDOFF_TRACKER_SESSION';
/** Environment variable naming an env file that `init` appends the session id to. */
export const ENV_FILE_ENV = 'HANDOFF_ENV_FILE';

/**
 * The directory holding session files.
 *
 * @example
 * ```ts
 * sessionDir({ HANDOFF_SESSION_DIR: '/run/s' }); // '/run/s'
 * ```
 */
export function sessionDir(env: Readonly<Record<string, string | undefined>>): string {
  const d = env[SESSION_DIR_ENV];
  return d !== undefined && d !== '' ? d : tmpdir();
}

/**
 * The state file of a session.
 *
 * @example
 * ```ts
 * sessionPath('/tmp', 's1'); // '/tmp/handoff-tracker-s1.json'
 * ```
 */
export function sessionPath(dir: string, sessionId: string): string {
  return join(dir, `handoff-tracker-${sessionId}.json`);
}

/**
 * A fresh random session id (`t` + time + random hex).
 *
 * @example
 * ```ts
 * newSessionId(); // 't-mi4x2k-9f3a1c0d'
 * ```
 */
export function newSessionId(nowMs: number = Date.now()): string {
  return `t-${nowMs.toString(36)}-${randomHex(8)}`;
}

const fsl = nodeFsLayer();

/**
 * Writes `data` to `file` atomically: exclusive temp file beside it, fsync, rename, then a
 * best-effort fsync of the directory (src/durable's `publishFile`).
 *
 * @example
 * ```ts
 * await writeFileAtomic('/tmp/x.json', '{}\n');
 * ```
 * @throws the Node error of the failing step (the temp file is removed).
 */
export async function writeFileAtomic(file: string, data: string): Promise<void> {
  try {
    publishFile(fsl, file, Buffer.from(data, 'utf8'), {
      label: 'session',
      tmpPath: `${file}.${process.pid}.${randomHex(8)}.tmp`,
      mode: 0o600,
      sync: 'dir-best-effort',
    });
  } catch (e) {
    throw causeOf(e);
  }
}

/**
 * Saves a session state atomically.
 *
 * @example
 * ```ts
 * await saveSession(dir, state);
 * ```
 */
export async function saveSession(dir: string, state: TrackerState): Promise<void> {
  await writeFileAtomic(sessionPath(dir, state.session_id), `${JSON.stringify(state, null, 2)}\n`);
}

/**
 * Loads a session state.
 *
 * @example
 * ```ts
 * const s = await loadSession(dir, 's1');
 * ```
 * @throws HandoffError `no_session` (missing) or `corrupt_state` (unparseable or invalid), both exit 2.
 */
export async function loadSession(dir: string, sessionId: string): Promise<TrackerState> {
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(sessionId)) {
    throw new HandoffError('usage', `bad session id '${sessionId}'`);
  }
  let text: string;
  try {
    text = await readFile(sessionPath(dir, sessionId), 'utf8');
  } catch (e) {
    throw new HandoffError('no_session', `no tracker session '${sessionId}' in ${dir}`, {
      details: { session_id: sessionId, cause: (e as NodeJS.ErrnoException).code ?? 'io' },
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HandoffError('corrupt_state', `tracker session '${sessionId}' is not JSON`, {
      details: { session_id: sessionId },
    });
  }
  const r = TrackerStateSchema.safeParse(value);
  if (!r.success || r.data.session_id !== sessionId) {
    throw new HandoffError('corrupt_state', `tracker session '${sessionId}' has an invalid state`, {
      details: { session_id: sessionId },
    });
  }
  return r.data;
}

/**
 * Deletes a session's state file (missing is not an error).
 *
 * @example
 * ```ts
 * await deleteSession(dir, 's1');
 * ```
 */
export async function deleteSession(dir: string, sessionId: string): Promise<void> {
  await unlink(sessionPath(dir, sessionId)).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'ENOENT') throw e;
  });
}

/**
 * Appends `HANDOFF_TRACKER_SESSION=<id>` to an env file (replacing an earlier line).
 *
 * @example
 * ```ts
 * await persistEnvLine('/tmp/env', 's1');
 * ```
 */
export async function persistEnvLine(envFile: string, sessionId: string): Promise<void> {
  const old = await readFile(envFile, 'utf8').catch(() => '');
  const kept = old.split('\n').filter((l) => l !== '' && !l.startsWith(`${SESSION_ID_ENV}=`));
  await writeFile(envFile, `${[...kept, `${SESSION_ID_ENV}=${sessionId}`].join('\n')}\n`);
}

/**
 * Removes the session line from an env file (no-op when absent).
 *
 * @example
 * ```ts
 * await unpersistEnvLine('/tmp/env');
 * ```
 */
export async function unpersistEnvLine(envFile: string): Promise<void> {
  const old = await readFile(envFile, 'utf8').catch(() => null);
  if (old === null) return;
  const kept = old.split('\n').filter((l) => l !== '' && !l.startsWith(`${SESSION_ID_ENV}=`));
  await writeFile(envFile, kept.length === 0 ? '' : `${kept.join('\n')}\n`);
}
