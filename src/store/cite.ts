/**
 * Citations of stored items: `<run_id>#<seq>` for an event, `<run_id>#manifest` for the manifest
 * (whose dispatch is not in the journal). Parsing, formatting and resolution against a loaded run.
 */
import { RUN_ID_PATTERN, type StoreEvent } from './schema.js';
import type { RunLoad } from './store-types.js';

/** A parsed cite. */
export type Cite =
  | { readonly run_id: string; readonly seq: number }
  | { readonly run_id: string; readonly seq: 'manifest' };

const CITE = /^([0-9]{8}T[0-9]{6}Z-[0-9a-f]{8})#(manifest|[1-9][0-9]{0,14})$/;

/**
 * Parses `<run_id>#<seq>` or `<run_id>#manifest`; null when malformed (seq 0, leading zeros,
 * a bad run id, spaces…).
 *
 * @example
 * ```ts
 * parseCite('20261130T100000Z-0a1b2c3d#4'); // { run_id: '20261130T100000Z-0a1b2c3d', seq: 4 }
 * parseCite('20261130T100000Z-0a1b2c3d#manifest'); // { …, seq: 'manifest' }
 * ```
 */
export function parseCite(text: string): Cite | null {
  if (typeof text !== 'string') return null;
  const m = CITE.exec(text);
  if (m === null) return null;
  const runId = m[1] as string;
  const ref = m[2] as string;
  if (ref === 'manifest') return { run_id: runId, seq: 'manifest' };
  const seq = Number(ref);
  return Number.isSafeInteger(seq) ? { run_id: runId, seq } : null;
}

/**
 * Formats a cite.
 *
 * @example
 * ```ts
 * formatCite('20261130T100000Z-0a1b2c3d', 3); // '20261130T100000Z-0a1b2c3d#3'
 * ```
 * @throws RangeError for a malformed run id or a seq that is not a positive integer.
 */
export function formatCite(runId: string, seq: number | 'manifest'): string {
  if (!RUN_ID_PATTERN.test(runId)) throw new RangeError(`not a run id: ${JSON.stringify(runId)}`);
  if (seq !== 'manifest' && !(Number.isSafeInteger(seq) && seq >= 1))
    throw new RangeError(`not a seq: ${String(seq)}`);
  return `${runId}#${seq}`;
}

/** What a cite resolves to. */
export type ResolvedCite =
  | { readonly ok: true; readonly kind: 'event'; readonly event: StoreEvent }
  | { readonly ok: true; readonly kind: 'manifest'; readonly manifest: RunLoad['manifest'] }
  | { readonly ok: false; readonly reason: 'malformed' | 'other_run' | 'no_such_seq' };

/**
 * Resolves a cite against a loaded run (only the validated prefix is resolvable).
 *
 * @example
 * ```ts
 * const r = resolveCite(load, '20261130T100000Z-0a1b2c3d#2');
 * if (r.ok && r.kind === 'event') r.event.kind; // 'note'
 * ```
 */
export function resolveCite(run: RunLoad, cite: string): ResolvedCite {
  const c = parseCite(cite);
  if (c === null) return { ok: false, reason: 'malformed' };
  if (c.run_id !== run.run_id) return { ok: false, reason: 'other_run' };
  if (c.seq === 'manifest') return { ok: true, kind: 'manifest', manifest: run.manifest };
  const event = run.events[c.seq - 1];
  if (event === undefined || event.seq !== c.seq) return { ok: false, reason: 'no_such_seq' };
  return { ok: true, kind: 'event', event };
}
