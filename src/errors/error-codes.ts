/**
 * The closed catalogue of {@link HandoffError} codes: one `as const` list per area, each code
 * taken from a spec (store refusals, persist startup codes, seam codes, envelope causes, …) or
 * naming a failure class of this runtime. `HandoffErrorCode` is the union of the lists, so a
 * code that is in none of them does not compile, and a table keyed by code (the CLI's exit
 * table) must decide about every one. Areas derive their own code types from their list here
 * (`StoreCode` from {@link STORE_CODES}, …) instead of keeping a second copy.
 */

/**
 * Codes every area may use: usage, malformed input or records, internal and I/O failures.
 *
 * @example
 * ```ts
 * throw new HandoffError('usage', 'missing required option --run-id');
 * ```
 */
export const GENERIC_CODES = [
  'usage',
  'invalid_input',
  'invalid_record',
  'canonical_unsupported',
  'internal',
  'io_error',
  'unsupported_platform',
] as const;

/**
 * run-contract/v1: the rerun guard and the worker protocol.
 *
 * @example
 * ```ts
 * CONTRACT_CODES.includes('rerun_forbidden'); // true
 * ```
 */
export const CONTRACT_CODES = ['rerun_forbidden', 'protocol_error'] as const;

/**
 * file-baseline/v1 custody: drift, custody violations, selectors naming no or two entries.
 *
 * @example
 * ```ts
 * throw new HandoffError('unknown_path', 'not in the baseline', { details: { unknown } });
 * ```
 */
export const CUSTODY_CODES = ['custody_violation', 'drift', 'unknown_path', 'duplicate_path'] as const;

/**
 * Processes and git: a refused git command, a failed git invocation.
 *
 * @example
 * ```ts
 * runGit(repo, ['ls-files'], { code: 'git_failed' });
 * ```
 */
export const PROCESS_CODES = ['blocked_git', 'git_failed'] as const;

/**
 * run-store/v1 refusal and load-failure codes (outcome `nothing_written`; the spec's list plus
 * the chain's `baton_out_of_sequence`). `StoreCode` is derived from this list.
 *
 * @example
 * ```ts
 * STORE_CODES.includes('bad_run_id'); // true
 * ```
 */
export const STORE_CODES = [
  'unsupported_platform',
  'bad_event_schema',
  'invalid_dispatch',
  'invalid_payload',
  'kind_unsupported',
  'bad_run_id',
  'bad_timestamp',
  'git_tracked',
  'run_exists',
  'busy',
  'lock_unavailable',
  'lock_init_failed',
  'journal_damaged',
  'journal_unreadable',
  'publish_unsynced',
  'store_init_unsynced',
  'gitignore_write_failed',
  'temp_unavailable',
  'write_failed',
  'containment',
  'no_parent_anchor',
  'no_storage_root',
  'no_runs_dir',
  'no_such_run',
  'incomplete_run',
  'integrity_failure',
  'payload_unreadable',
  'baton_out_of_sequence',
] as const;

/**
 * A store mutation's outcome as a thrown code (`store_<outcome>`): what a caller raises for a
 * result that carries no refusal code (`journal_only`, `indeterminate`).
 *
 * @example
 * ```ts
 * new HandoffError(r.code ?? `store_${r.outcome}`, 'commit failed');
 * ```
 */
export const STORE_OUTCOME_CODES = [
  'store_committed',
  'store_nothing_written',
  'store_journal_only',
  'store_indeterminate',
] as const;

/**
 * The run persistence controller: startup and prior-run reuse refusals (the spec's startup-error
 * codes plus `drift_unreconciled` and `baseline_mismatch`), and the recorder's stops.
 *
 * @example
 * ```ts
 * PERSIST_CODES.includes('bad_prior_run'); // true
 * ```
 */
export const PERSIST_CODES = [
  'state_exists',
  'invalid_dispatch',
  'state_unwritable',
  'reuse_report_required',
  'reuse_report_mismatch',
  'bad_reuse_report',
  'bad_prior_run',
  'prior_run_active',
  'prior_run_unreadable',
  'prior_run_damaged',
  'prior_run_changed',
  'no_usable_baseline',
  'incompatible_mode',
  'incompatible_target',
  'incompatible_owned_files',
  'drift_check_failed',
  'drift_unapproved',
  'drift_unreconciled',
  'approval_mismatch',
  'custody_mismatch',
  'baseline_mismatch',
  'blocker_cleared',
  'rerun_forbidden',
  'justification_required',
  'unsupported_platform',
  'invalid_progress',
  'persist_stop',
] as const;

/**
 * Cycle budgets (tracker sessions and claims).
 *
 * @example
 * ```ts
 * throw new HandoffError('no_session', 'no tracker session');
 * ```
 */
export const TRACKER_CODES = ['no_session', 'corrupt_state', 'claim_state'] as const;

/**
 * The gate protocol: the continuation ledger, the enforcer's refusals, the evaluator.
 *
 * @example
 * ```ts
 * throw new HandoffError('grant_state', 'grant g1 is consumed; cannot start');
 * ```
 */
export const GATE_CODES = [
  'ledger_damaged',
  'ledger_contention',
  'ledger_unavailable',
  'history_missing',
  'no_such_grant',
  'grant_state',
  'attempt_not_authorized',
  'base_mismatch',
  'evaluator_failed',
] as const;

/**
 * The dev-loop envelope builder and the settings loader (see src/envelope/errors.ts).
 *
 * @example
 * ```ts
 * ENVELOPE_CODES.includes('envelope_prefix_drift'); // true
 * ```
 */
export const ENVELOPE_CODES = [
  'envelope_invalid_input',
  'envelope_missing_field',
  'envelope_invalid_repo',
  'envelope_invalid_target',
  'envelope_unknown_template',
  'envelope_reconcile_tuple',
  'envelope_invalid_option',
  'envelope_invalid_settings',
  'envelope_prefix_drift',
  'settings_unreadable',
  'settings_invalid',
] as const;

/**
 * The nine seam codes of the handoff chain, in the order the seam checks them.
 *
 * @example
 * ```ts
 * SEAM_CODES[0]; // 'missing_required_fact'
 * ```
 */
export const SEAM_CODES = [
  'missing_required_fact',
  'stage_failed',
  'invalid_stage_delta',
  'promised_fact_missing',
  'undeclared_fact',
  'committed_fact_overwrite',
  'fact_type_mismatch',
  'fact_evidence_missing',
  'fact_semantic_violation',
] as const;

/**
 * The handoff chain: the nine seam codes (in the order the seam checks them), then the chain's
 * runner and journal codes.
 *
 * @example
 * ```ts
 * CHAIN_CODES.includes('missing_required_fact'); // true
 * ```
 */
export const CHAIN_CODES = [
  ...SEAM_CODES,
  'invalid_checkpoint',
  'chain_complete',
  'journal_conflict',
  'invalid_topology',
  'effect_in_doubt',
] as const;

/**
 * Every code of every area (duplicates across areas are one code).
 *
 * @example
 * ```ts
 * ERROR_CODES.includes('busy'); // true
 * ```
 */
export const ERROR_CODES = [
  ...new Set([
    ...GENERIC_CODES,
    ...CONTRACT_CODES,
    ...CUSTODY_CODES,
    ...PROCESS_CODES,
    ...STORE_CODES,
    ...STORE_OUTCOME_CODES,
    ...PERSIST_CODES,
    ...TRACKER_CODES,
    ...GATE_CODES,
    ...ENVELOPE_CODES,
    ...CHAIN_CODES,
  ]),
] as readonly HandoffErrorCode[];

/**
 * A {@link HandoffError} code: the union of the area lists.
 *
 * @example
 * ```ts
 * const code: HandoffErrorCode = 'journal_damaged';
 * ```
 */
export type HandoffErrorCode =
  | (typeof GENERIC_CODES)[number]
  | (typeof CONTRACT_CODES)[number]
  | (typeof CUSTODY_CODES)[number]
  | (typeof PROCESS_CODES)[number]
  | (typeof STORE_CODES)[number]
  | (typeof STORE_OUTCOME_CODES)[number]
  | (typeof PERSIST_CODES)[number]
  | (typeof TRACKER_CODES)[number]
  | (typeof GATE_CODES)[number]
  | (typeof ENVELOPE_CODES)[number]
  | (typeof CHAIN_CODES)[number];

/**
 * True when `value` is one of the {@link ERROR_CODES} (for codes read from foreign JSON).
 *
 * @example
 * ```ts
 * isHandoffErrorCode('busy'); // true
 * isHandoffErrorCode('nope'); // false
 * ```
 */
export function isHandoffErrorCode(value: unknown): value is HandoffErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}
