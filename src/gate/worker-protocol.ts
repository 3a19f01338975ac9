/**
 * The gate's worker protocol (pure): what a worker command receives on stdin and how its stdout is
 * read. The worker prints progress freely; its last JSON line is its result. A result that cannot
 * be read is still a provisional result — the gate judges the evidence, not the narrative.
 */
import { z } from 'zod';
import { safeValidate } from '../validation/index.js';
import { BlockedReportSchema } from './blocked-schema.js';
import type { TaskContract } from './contract-schema.js';
import type { Obligation } from './route-schema.js';

/** Schema id of the worker request. */
export const GATE_WORKER_REQUEST_SCHEMA = 'gate-worker-request/v1';

/** What the worker receives. */
export interface WorkerRequest {
  readonly schema: typeof GATE_WORKER_REQUEST_SCHEMA;
  readonly contract: TaskContract;
  readonly attempt: {
    readonly kind: 'initial' | 'ordinary-repair' | 'gate-continuation' | 'lead-directed';
    readonly grant_id: string | null;
    readonly obligations: readonly Obligation[];
  };
}

/** A worker's result line. */
export const WorkerResultSchema = z.strictObject({
  status: z.enum(['provisional', 'blocked']),
  claims: z
    .array(z.strictObject({ criterion_id: z.string().nullable().default(null), text: z.string() }))
    .default([]),
  operations: z.array(z.string()).default([]),
  blocked: BlockedReportSchema.nullable().default(null),
});

/** A worker result. */
export type WorkerResult = z.infer<typeof WorkerResultSchema>;

/**
 * Reads the worker's stdout: the last line that parses as a valid result wins; a `blocked`
 * status without a valid report, or no result at all, is provisional with a note.
 *
 * @example
 * ```ts
 * parseWorkerOutput('working…\n{"status":"provisional","claims":[]}\n').result.status; // 'provisional'
 * ```
 */
export function parseWorkerOutput(stdout: string): { result: WorkerResult; note: string | null } {
  const lines = stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('{'));
  for (let i = lines.length - 1; i >= 0; i--) {
    let raw: unknown;
    try {
      raw = JSON.parse(lines[i] as string);
    } catch {
      continue;
    }
    const v = safeValidate(WorkerResultSchema, raw);
    if (!v.ok) continue;
    if (v.value.status === 'blocked' && v.value.blocked === null) {
      return {
        result: { ...v.value, status: 'provisional' },
        note: 'worker said blocked without a blocked report',
      };
    }
    return { result: v.value, note: null };
  }
  return {
    result: { status: 'provisional', claims: [], operations: [], blocked: null },
    note: 'worker printed no result line; treated as provisional',
  };
}
