/**
 * The state log's format (layer 1, pure): `<state>.log` beside the state file holds the saves
 * made since the state file was last written whole, one delta (state-delta.ts) per line.
 *
 * ```
 * {"base_sha256":"<sha256 of the state file's bytes>","schema":"run-persist-state-log/v1"}
 * {"ops":[{"op":"set","path":["last_seq"],"value":4},{"op":"push","path":["history"],"values":[…]}],"sha256":"<sha256 of the ops' JSON>"}
 * ```
 *
 * The header binds the log to the exact state file it extends: a log whose base is not the
 * state file's digest is stale (the state file was rewritten whole since — it already holds
 * those deltas) and is ignored. A last line without its newline is a save that was never
 * acknowledged (torn by a crash) and is ignored; any other unreadable line is damage.
 */
import { sha256Hex } from '../canonical/index.js';
import type { DeltaOp } from './state-delta.js';

/** Schema id of the state log's header. */
export const STATE_LOG_SCHEMA = 'run-persist-state-log/v1';

/**
 * The header line of a log extending the state file whose bytes hash to `baseSha256`.
 *
 * @example
 * ```ts
 * stateLogHeader(sha256Hex(stateBytes)); // '{"base_sha256":"…","schema":"run-persist-state-log/v1"}\n'
 * ```
 */
export function stateLogHeader(baseSha256: string): string {
  return `${JSON.stringify({ base_sha256: baseSha256, schema: STATE_LOG_SCHEMA })}\n`;
}

/**
 * One save's line: its operations and their digest.
 *
 * @example
 * ```ts
 * stateLogLine([{ op: 'set', path: ['last_seq'], value: 4 }]); // '{"ops":[…],"sha256":"…"}\n'
 * ```
 */
export function stateLogLine(ops: readonly DeltaOp[]): string {
  const body = JSON.stringify(ops);
  return `{"ops":${body},"sha256":"${sha256Hex(body)}"}\n`;
}

/** What a log says about the state file it sits beside. */
export type StateLogRead =
  /** The log extends this state file: replay `deltas` in order (`torn`: an unacknowledged last save was dropped). */
  | { readonly ok: true; readonly deltas: readonly (readonly DeltaOp[])[]; readonly torn: boolean }
  /** The log extends another state file (a whole rewrite happened since): ignore it. */
  | { readonly ok: false; readonly reason: 'stale' }
  /** A line is unreadable before the end: the state cannot be trusted. */
  | { readonly ok: false; readonly reason: 'invalid'; readonly detail: string };

function isOp(v: unknown): v is DeltaOp {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  if (!Array.isArray(o.path) || !o.path.every((k) => typeof k === 'string')) return false;
  if (o.op === 'set') return Object.hasOwn(o, 'value');
  if (o.op === 'push') return Array.isArray(o.values) && Number.isSafeInteger(o.at) && (o.at as number) >= 0;
  return o.op === 'del' && o.path.length > 0;
}

function parseLine(line: string): readonly DeltaOp[] | string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return 'not JSON';
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not an object';
  const o = v as Record<string, unknown>;
  if (!Array.isArray(o.ops) || typeof o.sha256 !== 'string' || Object.keys(o).length !== 2)
    return 'not a state delta';
  if (!o.ops.every(isOp)) return 'an operation is malformed';
  if (sha256Hex(JSON.stringify(o.ops)) !== o.sha256) return 'digest mismatch';
  return o.ops;
}

/**
 * Reads a log's text against the digest of the state file beside it. Never throws.
 *
 * @example
 * ```ts
 * const r = readStateLog(logText, sha256Hex(stateBytes));
 * if (r.ok) for (const d of r.deltas) state = applyDelta(state, d);
 * ```
 */
export function readStateLog(text: string, baseSha256: string): StateLogRead {
  const lines = text.split('\n');
  const tail = lines.pop() as string; // '' when the text ends with its newline
  const torn = tail !== '';
  const [header, ...body] = lines;
  if (header === undefined) {
    // not even a complete header: the log's creation was never acknowledged
    return torn ? { ok: true, deltas: [], torn: true } : { ok: true, deltas: [], torn: false };
  }
  let h: unknown;
  try {
    h = JSON.parse(header);
  } catch {
    return { ok: false, reason: 'invalid', detail: 'line 1: the header is not JSON' };
  }
  const ho = h as Record<string, unknown> | null;
  if (
    typeof ho !== 'object' ||
    ho === null ||
    ho.schema !== STATE_LOG_SCHEMA ||
    typeof ho.base_sha256 !== 'string'
  )
    return { ok: false, reason: 'invalid', detail: `line 1: not a ${STATE_LOG_SCHEMA} header` };
  if (ho.base_sha256 !== baseSha256) return { ok: false, reason: 'stale' };
  const deltas: (readonly DeltaOp[])[] = [];
  for (const [i, line] of body.entries()) {
    const r = parseLine(line);
    if (typeof r === 'string') return { ok: false, reason: 'invalid', detail: `line ${i + 2}: ${r}` };
    deltas.push(r);
  }
  return { ok: true, deltas, torn };
}
