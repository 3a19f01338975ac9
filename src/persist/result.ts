/**
 * run-persist-result/v1 (layer 0): the one JSON result of every run-persist verb. `action` is
 * what the command must do next; the other members are present when they apply.
 */
import type { Handoff } from '../contract/handoff-schema.js';
import type { ValidationIssue } from '../validation/index.js';
import type { Persistence } from './failure-policy.js';
import type { Unpersisted } from './state-schema.js';

/** Schema id of the result. */
export const RESULT_SCHEMA = 'run-persist-result/v1';

/** The helper's actions. */
export type PersistAction =
  | 'continue'
  | 'stop'
  | 'startup-error'
  | 'done'
  | 'usage'
  | 'preview'
  | 'custody'
  | 'status';

/** A run-persist result. */
export interface PersistResult {
  readonly schema: typeof RESULT_SCHEMA;
  readonly verb: string;
  readonly action: PersistAction;
  readonly outcome?: string;
  readonly code?: string;
  readonly message?: string;
  readonly run_id?: string | null;
  readonly run_directory?: string | null;
  readonly storage_root?: string;
  readonly seq?: number;
  readonly cite?: string;
  readonly stored?: boolean;
  readonly persistence?: Persistence;
  readonly handoff?: Handoff;
  readonly fallback_handoff?: Handoff;
  readonly unpersisted?: Unpersisted;
  readonly committed?: { readonly seq: number; readonly cite: string };
  readonly terminal_enforced?: boolean;
  readonly warning?: string;
  readonly warnings?: readonly string[];
  readonly errors?: readonly ValidationIssue[];
  readonly submitted_errors?: readonly ValidationIssue[];
  readonly progress_recorded?: boolean;
  readonly files_changed?: readonly string[];
  readonly source_note_cite?: string;
  readonly run_created?: boolean;
  readonly details?: Record<string, unknown>;
  readonly [extra: string]: unknown;
}

/**
 * Builds a result record.
 *
 * @example
 * ```ts
 * persistResult('note', 'continue', { seq: 2, cite: 'R#2' });
 * ```
 */
export function persistResult(
  verb: string,
  action: PersistAction,
  fields: Omit<PersistResult, 'schema' | 'verb' | 'action'> = {},
): PersistResult {
  return { schema: RESULT_SCHEMA, verb, action, ...fields };
}
