/**
 * The fs ledger's append-only line format (`gate-ledger-line/v1`, pure): one line per appended
 * event in `<problem>/log.jsonl`, carrying its own checksum so that a torn write is detectable
 * without a rename — one fsync per entry instead of two (temp file + directory).
 *
 * A line is `<sha256 hex of BODY> BODY\n`, BODY being the JSON text
 * `{"event":<the ledger event>,"nonce":"<16 hex>","schema":"gate-ledger-line/v1"}`, or, on an entry
 * a traced gate run wrote, the same with a last key `"trace":{"start":…,"steps":[…]}` (the gate
 * machine's transitions since the run's previous entry, ledger-trace.ts; readers before the trace
 * did not know the key). The nonce
 * names the writer's attempt: racing processes may append lines for the same seq, and the first
 * such line in the file wins (O_APPEND fixes the order at write time; an acknowledged line was
 * fsync'd, which makes every byte before it durable too, so the winner never changes after a
 * crash). A writer learns whether it won by finding its nonce in the winning line.
 *
 * Reading (`parseLedgerLines`), line by line:
 * - a valid line whose event's seq is the next one wins; one whose seq is taken lost a race and is
 *   skipped; one that skips a seq is a gap (`ledger_damaged`);
 * - an empty line is skipped (a writer's leading newline after a torn tail);
 * - the last segment without a newline is a **torn tail**: a write that never completed, so never
 *   acknowledged — reported, never used;
 * - a damaged newline-terminated line (bad checksum, not JSON, not a ledger event) is crash
 *   residue only when a valid line follows it (a torn tail that the next writer's leading newline
 *   closed); as the last complete line it is `ledger_damaged` (fail closed).
 */
import * as crypto from 'node:crypto';

/** sha256 hex of `data`: the one-shot `crypto.hash` where Node has it (20.12+), else a Hash object. */
const sha256Hex: (data: string | Uint8Array) => string =
  typeof (crypto as { hash?: unknown }).hash === 'function'
    ? (data) =>
        (crypto as unknown as { hash(a: string, d: string | Uint8Array, e: 'hex'): string }).hash(
          'sha256',
          data,
          'hex',
        )
    : (data) => crypto.createHash('sha256').update(data).digest('hex');

import { safeValidate } from '../validation/index.js';
import { ledgerDamaged } from './ledger-log-entry.js';
import { type LedgerEvent, LedgerEventSchema } from './ledger-state.js';
import { type LedgerTrace, LedgerTraceSchema } from './ledger-trace.js';

/** The schema id in every line's body. */
export const LEDGER_LINE_SCHEMA = 'gate-ledger-line/v1';

/** The file name of a problem's append-only log. */
export const LEDGER_LOG_FILE = 'log.jsonl';

const HEX64 = /^[0-9a-f]{64}$/;
const NONCE = /^[0-9a-f]{16}$/;

/**
 * The line (newline included) that appends `event` under the writer's `nonce` (16 hex digits).
 *
 * @example
 * ```ts
 * ledgerLineText(event, '0123456789abcdef'); // '<64 hex> {"event":{…},"nonce":"0123456789abcdef","schema":"gate-ledger-line/v1"}\n'
 * ```
 */
export function ledgerLineText(event: LedgerEvent, nonce: string): string {
  return ledgerLineOfJson(JSON.stringify(event), nonce);
}

/**
 * {@link ledgerLineText} for an event already serialized as JSON (`eventJson`, as
 * `JSON.stringify(event)` gives it): the append path serializes once, validates what a reader will
 * parse back, and builds the line from the same text.
 *
 * @example
 * ```ts
 * ledgerLineOfJson(JSON.stringify(event), '0123456789abcdef') === ledgerLineText(event, '0123456789abcdef'); // true
 * ledgerLineOfJson(JSON.stringify(event), '0123456789abcdef', JSON.stringify({ start: true, steps: [] })); // a traced line
 * ```
 */
export function ledgerLineOfJson(eventJson: string, nonce: string, traceJson?: string): string {
  const trace = traceJson === undefined ? '' : `,"trace":${traceJson}`;
  const body = `{"event":${eventJson},"nonce":${JSON.stringify(nonce)},"schema":"${LEDGER_LINE_SCHEMA}"${trace}}`;
  return `${sha256Hex(body)} ${body}\n`;
}

/** A decoded line: its event and nonce, or why it is not a line. */
function decodeLine(
  raw: Buffer,
): { ok: true; event: LedgerEvent; nonce: string; trace: LedgerTrace | null } | { ok: false; why: string } {
  if (raw.length < 66 || raw[64] !== 0x20) return { ok: false, why: 'no checksum prefix' };
  const sum = raw.subarray(0, 64).toString('latin1');
  if (!HEX64.test(sum)) return { ok: false, why: 'no checksum prefix' };
  const body = raw.subarray(65);
  if (sha256Hex(body) !== sum) return { ok: false, why: 'checksum mismatch' };
  let v: unknown;
  try {
    v = JSON.parse(body.toString('utf8'));
  } catch {
    return { ok: false, why: 'not JSON' };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { ok: false, why: 'not an object' };
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  const k = keys.join(',');
  if ((k !== 'event,nonce,schema' && k !== 'event,nonce,schema,trace') || o.schema !== LEDGER_LINE_SCHEMA)
    return { ok: false, why: `not a ${LEDGER_LINE_SCHEMA} body` };
  if (typeof o.nonce !== 'string' || !NONCE.test(o.nonce)) return { ok: false, why: 'bad nonce' };
  const e = safeValidate(LedgerEventSchema, o.event);
  if (!e.ok) return { ok: false, why: 'not a valid ledger event' };
  let trace: LedgerTrace | null = null;
  if (o.trace !== undefined) {
    const t = safeValidate(LedgerTraceSchema, o.trace);
    if (!t.ok) return { ok: false, why: 'not a valid trace' };
    trace = t.value as LedgerTrace; // absent optional keys stay absent in zod's output
  }
  return { ok: true, event: e.value, nonce: o.nonce, trace };
}

/** Where a parse stands: the winning events so far (index `seq − 1`) and their nonces. */
export interface LedgerLinesState {
  /** The winning events in seq order (an older log's entries first, with nonce null). */
  readonly events: LedgerEvent[];
  /** The nonce of each winning event (null for an entry of the older one-file-per-entry log). */
  readonly nonces: (string | null)[];
  /** When present, the trace each winning line carried (null: none) is collected here too. */
  readonly traces?: (LedgerTrace | null)[];
}

/** The result of parsing a range of a problem's log file. */
export interface LedgerLinesParse {
  /** Offset (in the parsed bytes) after the last line that is settled (valid, or skipped). */
  readonly settled: number;
  /** A torn tail after `settled`: its offset and length, or null. */
  readonly torn: { readonly offset: number; readonly bytes: number } | null;
  /** Lines that lost a race (their seq was taken by an earlier line). */
  readonly losers: number;
  /** Damaged complete lines followed by a valid line (crash residue), by 1-based line in the range. */
  readonly residue: readonly number[];
}

/**
 * Parses `bytes` (whole lines of a problem's `log.jsonl`, from a line start) into `state`: appends
 * each winning event and its nonce. `oldCount` is the number of entries of the older
 * one-file-per-entry log (`log/00000001.json …`): a line for one of those seqs means two formats
 * were written at once (an older version beside this one) and is `ledger_damaged`.
 *
 * @example
 * ```ts
 * const state = { events: [], nonces: [] };
 * const p = parseLedgerLines('billing-17', readFileSync('p/log.jsonl'), state, 0);
 * state.events.length; p.torn; // null, or { offset, bytes } of a write that never completed
 * ```
 * @throws HandoffError `ledger_damaged` for a gap, a damaged last complete line, or both formats holding one seq.
 */
export function parseLedgerLines(
  problemId: string,
  bytes: Uint8Array,
  state: LedgerLinesState,
  oldCount: number,
): LedgerLinesParse {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  let settled = 0;
  let losers = 0;
  let line = 0;
  const residue: number[] = [];
  let pendingDamage: { line: number; why: string } | null = null;
  while (pos < buf.length) {
    const nl = buf.indexOf(0x0a, pos);
    if (nl === -1) break;
    line++;
    const raw = buf.subarray(pos, nl);
    pos = nl + 1;
    if (raw.length === 0) {
      if (pendingDamage === null) settled = pos;
      continue;
    }
    const d = decodeLine(raw);
    if (!d.ok) {
      pendingDamage ??= { line, why: d.why };
      if (pendingDamage.line !== line) residue.push(line);
      continue;
    }
    if (pendingDamage !== null) {
      residue.unshift(pendingDamage.line);
      pendingDamage = null;
    }
    const seq = d.event.seq;
    const next = state.events.length + 1;
    if (seq <= oldCount && oldCount > 0)
      throw ledgerDamaged(
        problemId,
        `${LEDGER_LOG_FILE} line ${line} holds entry ${seq}, which the older log/ directory holds too (two formats written at once)`,
      );
    if (seq < next) losers++;
    else if (seq > next)
      throw ledgerDamaged(problemId, `gap in ${LEDGER_LOG_FILE} before entry ${seq} (line ${line})`);
    else {
      state.events.push(d.event);
      state.nonces.push(d.nonce);
      state.traces?.push(d.trace);
    }
    settled = pos;
  }
  if (pendingDamage !== null)
    throw ledgerDamaged(
      problemId,
      `${LEDGER_LOG_FILE} line ${pendingDamage.line} is damaged (${pendingDamage.why}) and no valid line follows it`,
    );
  const tornBytes = buf.length - pos;
  return {
    settled,
    torn: tornBytes > 0 ? { offset: pos, bytes: tornBytes } : null,
    losers,
    residue: residue.sort((a, b) => a - b),
  };
}
