/**
 * The chain machine's transition trace as a file-journal line carries it (pure): the optional
 * `trace` key of a commit line `{v: 1, baton_id, revision, baton, receipt, trace?}` — the steps the
 * chain machine took since the previous commit, in order (the run store's `TraceStep`). A line
 * without steps has no `trace` key, so lines of untraced commits are byte-for-byte what they were;
 * a reader that knows nothing of the key (older versions of this journal) ignores it. A resumed
 * run (`chain.resume`, a fresh process) is a new machine: its first line's trace begins at
 * `chain.ready`, with no marker; the audit reads that step as a restart (`src/audit/trace-restart.ts`).
 */
import { basename } from 'node:path';
import { z } from 'zod';
import { TraceStepSchema } from '../audit/trace-step-schema.js';
import type { TraceStep } from '../store/store-types.js';
import { chainJournalFile } from './file-journal-path.js';

/**
 * One recorded transition as a journal line stores it: the audit's {@link TraceStepSchema} (the
 * run store's `TraceStep` as zod, bounded), under the chain's name.
 *
 * @example
 * ```ts
 * ChainTraceStepSchema.parse({ machine: 'chain', from: 'chain.ready', event: 'START', to: 'chain.running' });
 * ```
 */
export const ChainTraceStepSchema = TraceStepSchema;

/**
 * The `trace` value of a journal line: at least one step (an empty trace is written as no key).
 *
 * @example
 * ```ts
 * ChainLineTraceSchema.safeParse([]).success; // false
 * ```
 */
export const ChainLineTraceSchema = z.array(ChainTraceStepSchema).min(1).max(100_000);

/**
 * The trace a parsed journal line carries (pure): `[]` when the line has no `trace` key, the steps
 * when it has a valid one, or the problem as text — never a throw.
 *
 * @example
 * ```ts
 * lineTrace({ v: 1, trace: [{ machine: 'chain', from: 'a', event: 'E', to: 'b' }] }); // { ok: true, steps: [ … ] }
 * lineTrace({ v: 1, trace: 'x' }).ok; // false
 * ```
 */
export function lineTrace(
  record: unknown,
):
  | { readonly ok: true; readonly steps: readonly TraceStep[] }
  | { readonly ok: false; readonly why: string } {
  if (typeof record !== 'object' || record === null || !('trace' in record)) return { ok: true, steps: [] };
  const r = ChainLineTraceSchema.safeParse((record as { trace: unknown }).trace);
  if (!r.success) return { ok: false, why: `trace: ${r.error.issues.map((i) => i.message).join('; ')}` };
  return { ok: true, steps: r.data as TraceStep[] }; // JSON holds no undefined: optional keys are absent
}

/**
 * The cite of line `line` (1-based) of `batonId`'s journal file: `<file name>#<line>`. The file
 * name is a fingerprint of the id, so a cite never carries the id's own characters (a baton id is
 * caller data and may hold anything).
 *
 * @example
 * ```ts
 * chainJournalCite('payroll-2026-06', 3); // 'baton-1a2b….jsonl#3'
 * ```
 */
export function chainJournalCite(batonId: string, line: number): string {
  return `${basename(chainJournalFile('.', batonId))}#${line}`;
}
