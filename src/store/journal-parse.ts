/**
 * Parsing and validating `events.jsonl` bytes (pure): one canonical JSON line per event (UTF-8;
 * canonical under the reference's raw UTF-8 rule or the older all-ASCII rule), exact envelope
 * keys, the run's event schema, dense seqs from 1, each payload valid for its kind. The valid
 * prefix is returned with the first defect: an unterminated last line is `truncated_tail`; any
 * other defect is `corrupt` with its 1-based line number — a line that is not valid UTF-8, a
 * payload nested deeper than `MAX_RECORD_DEPTH` (`too_deep`, the same rule as on append), and an
 * integer field written as a float (`"seq":1.0`, refused by the reference too) included. Lines are
 * read as the reference reads them where it is more lenient than our appends and wrote the line
 * itself: a replan cite with one final newline (`reference-cite.ts`).
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { type IntegralFloat, integerFieldFloat, mayHoldIntegralFloatCanonical } from '../validation/index.js';
import { isCanonicalLine } from './canonical-fast.js';
import { quoteValue } from './quote-value.js';
import {
  EVENT_KINDS_V1,
  EVENT_KINDS_V2,
  type EventSchemaId,
  type StoreEvent,
  TIMESTAMP_PATTERN,
} from './schema.js';
import type { JournalDamage } from './store-types.js';
import { validateEventPayload } from './validate-payload.js';

export { isCanonicalLine, isCanonicalText } from './canonical-fast.js';

/** The defect text of a line that is parsed JSON but not canonical under either rule. */
export const NOT_CANONICAL =
  'not a canonical JSON line (compact, keys sorted by code point; raw UTF-8 as the reference writes it, or the older all-ASCII form)';

/** Result of {@link parseJournal}. */
export interface ParsedJournal {
  /** The valid prefix. */
  readonly events: StoreEvent[];
  /** Bytes covered by the valid prefix (offset of the first defect, or the whole length). */
  readonly validBytes: number;
  /** The first defect, or null. */
  readonly damage: JournalDamage | null;
}

const ENVELOPE_KEYS = ['kind', 'payload', 'schema', 'seq', 'ts'];

function envelopeDefect(v: unknown, eventSchema: EventSchemaId, expectedSeq: number): string | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a JSON object';
  const keys = Object.keys(v).sort();
  if (keys.length !== 5 || keys.some((k, i) => k !== ENVELOPE_KEYS[i]))
    return `keys must be exactly ${ENVELOPE_KEYS.join(',')}`;
  const e = v as Record<string, unknown>;
  if (e.schema !== eventSchema) return `schema ${quoteValue(e.schema)} is not this run's ${eventSchema}`;
  if (typeof e.seq !== 'number' || !Number.isInteger(e.seq)) return 'seq is not an integer';
  if (e.seq !== expectedSeq)
    return e.seq < expectedSeq
      ? `duplicate seq ${e.seq} (expected ${expectedSeq})`
      : `seq gap: ${e.seq} (expected ${expectedSeq})`;
  if (typeof e.ts !== 'string' || !TIMESTAMP_PATTERN.test(e.ts)) return 'ts is not a timestamp';
  const kinds: readonly string[] = eventSchema === 'run-store-event/v2' ? EVENT_KINDS_V2 : EVENT_KINDS_V1;
  if (typeof e.kind !== 'string' || !kinds.includes(e.kind)) return `kind ${quoteValue(e.kind)} not allowed`;
  return null;
}

/**
 * Validates one decoded line as the event with `expectedSeq`; returns the event or a defect text.
 *
 * @example
 * ```ts
 * checkEventLine(line, 'R', 'run-store-event/v2', 1); // { ok: true, event } | { ok: false, detail }
 * ```
 */
export function checkEventLine(
  text: string,
  runId: string,
  eventSchema: EventSchemaId,
  expectedSeq: number,
): { ok: true; event: StoreEvent } | { ok: false; detail: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { ok: false, detail: `not JSON: ${(e as Error).message}` };
  }
  const defect = envelopeDefect(v, eventSchema, expectedSeq);
  if (defect !== null) return { ok: false, detail: defect };
  const event = v as StoreEvent;
  const ctx = { runId, eventSchema, nextSeq: expectedSeq, reading: true };
  const check = validateEventPayload(event.kind, event.payload, ctx);
  if (!check.ok) return { ok: false, detail: check.detail };
  if (!isCanonicalLine(text, v)) return { ok: false, detail: NOT_CANONICAL };
  if (mayHoldIntegralFloatCanonical(text)) {
    const f = integerFieldFloat(
      text,
      v,
      (x) =>
        envelopeDefect(x, eventSchema, expectedSeq) === null &&
        validateEventPayload((x as StoreEvent).kind, (x as StoreEvent).payload, ctx).ok,
    );
    if (f !== null) return { ok: false, detail: integralFloatDetail(f) };
  }
  return { ok: true, event };
}

/**
 * The defect text of an integral float in an integer field (`seq: 1.0`): the reference refuses
 * it (Python's `int` check), so it is `corrupt` here too.
 *
 * @example
 * ```ts
 * integralFloatDetail({ path: ['seq'], token: '1.0' }); // 'seq: an integer field written as a float (1.0)'
 * ```
 */
export function integralFloatDetail(f: IntegralFloat): string {
  return `${f.path.length === 0 ? '(root)' : f.path.join('.')}: an integer field written as a float (${f.token})`;
}

/**
 * Walks newline-terminated lines of journal bytes, calling `check(text, index)` for each complete
 * line (decoded as UTF-8) until it returns a defect text. An unterminated last line is
 * `truncated_tail` (with the count of its `bytes`, as the reference reports it); a defect is
 * `corrupt` with its 1-based line number (counted from `startLine`), and so is a line that is not
 * valid UTF-8 and a line whose check throws: one bad line never makes the valid prefix before it
 * unreadable. Only `\n` ends a line (as in the reference's `split(b"\n")`); a `\r` before it
 * stays part of the line, which is then not canonical.
 *
 * @example
 * ```ts
 * scanLines(bytes, 1, (text) => (text.startsWith('{') ? null : 'not an object'));
 * ```
 */
export function scanLines(
  bytes: Uint8Array,
  startLine: number,
  check: (text: string, index: number) => string | null,
): { validBytes: number; damage: JournalDamage | null } {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // All ASCII (older runs, and every run without non-ASCII text): decoded as latin1, one char per
  // byte, so string offsets are byte offsets and one decode serves every line.
  if (isAscii(buf)) return scanDecoded(buf.toString('latin1'), startLine, check);
  // Raw UTF-8 lines: newlines found in the bytes, each line decoded on its own (an ASCII line
  // stays a one-byte string, which V8 parses and compares faster than slices of one decoded
  // buffer). When the whole buffer is valid UTF-8 (checked once), every line is; else each line
  // is checked first (a torn multi-byte tail, a damaged byte).
  const whole = isUtf8(buf);
  let pos = 0;
  let line = startLine;
  let index = 0;
  while (pos < buf.length) {
    const nl = buf.indexOf(0x0a, pos);
    if (nl === -1) return { validBytes: pos, damage: tornTail(line, buf.length - pos) };
    let defect: string | null;
    try {
      defect =
        whole || isUtf8(buf.subarray(pos, nl))
          ? check(buf.toString('utf8', pos, nl), index)
          : 'not valid UTF-8';
    } catch (e) {
      defect = uncheckable(e);
    }
    if (defect !== null) return { validBytes: pos, damage: corruptAt(line, defect) };
    pos = nl + 1;
    line++;
    index++;
  }
  return { validBytes: pos, damage: null };
}

function tornTail(line: number, bytes: number): JournalDamage {
  return {
    code: 'truncated_tail',
    line,
    bytes,
    detail: `line ${line} is not newline-terminated (${bytes} bytes)`,
  };
}

function corruptAt(line: number, defect: string): JournalDamage {
  return { code: 'corrupt', line, detail: `line ${line}: ${defect}` };
}

/** A line that breaks its checker is a bad line, never a reason to lose the whole journal. */
function uncheckable(e: unknown): string {
  return `the line could not be checked: ${String((e as Error)?.message ?? e)}`;
}

/** {@link scanLines} over an all-ASCII journal decoded as latin1 (string offsets = byte offsets). */
function scanDecoded(
  all: string,
  startLine: number,
  check: (text: string, index: number) => string | null,
): { validBytes: number; damage: JournalDamage | null } {
  let pos = 0;
  let line = startLine;
  let index = 0;
  while (pos < all.length) {
    const nl = all.indexOf('\n', pos);
    if (nl === -1) return { validBytes: pos, damage: tornTail(line, all.length - pos) };
    let defect: string | null;
    try {
      defect = check(all.slice(pos, nl), index);
    } catch (e) {
      defect = uncheckable(e);
    }
    if (defect !== null) return { validBytes: pos, damage: corruptAt(line, defect) };
    pos = nl + 1;
    line++;
    index++;
  }
  return { validBytes: pos, damage: null };
}

/**
 * Parses journal bytes. `startSeq`/`startLine` let a caller validate only bytes appended after
 * an already validated prefix.
 *
 * @example
 * ```ts
 * const p = parseJournal(bytes, runId, 'run-store-event/v2');
 * if (p.damage?.code === 'truncated_tail') …
 * ```
 */
export function parseJournal(
  bytes: Uint8Array,
  runId: string,
  eventSchema: EventSchemaId,
  startSeq = 1,
  startLine = 1,
): ParsedJournal {
  const events: StoreEvent[] = [];
  const scan = scanLines(bytes, startLine, (text, i) => {
    const r = checkEventLine(text, runId, eventSchema, startSeq + i);
    if (!r.ok) return r.detail;
    events.push(r.event);
    return null;
  });
  return { events, validBytes: scan.validBytes, damage: scan.damage };
}
