/**
 * The one place that maps a {@link HandoffError} code to a process exit status. Library errors
 * carry a code and `details`, never an exit status; `main` (and a verb that prints its own refusal
 * before exiting, like `handoff run` with a handoff record) asks {@link errorExitCode}.
 *
 * The shared table {@link ERROR_EXIT} decides about every code of the closed catalogue
 * (`HandoffErrorCode`): adding a code to the catalogue does not compile until it has an exit
 * status here. Where a command's spec gives a code another status, its column in
 * {@link COMMAND_ERROR_EXIT} says so. `usage` is 2 everywhere.
 *
 * Exit statuses that follow from a result rather than an error (a store outcome, a route, a
 * check result, a final handoff) stay with the verb that prints the result.
 */
import type { HandoffErrorCode } from '../errors/index.js';
import { EXIT_USAGE } from './command.js';

/** Exit status of an invalid input record or a refusal (gate, envelope, store, persist startup). */
const REFUSED = 3;
/** Exit status of an operational failure: I/O, damage, a protocol or internal error. */
const FAILED = 4;
/** Exit status of a gate enforcer refusal. */
const ENFORCER_REFUSED = 5;
/** Exit status of an evaluation without an answer (`handoff gate evaluate`: NOT_EVALUATED). */
const NOT_EVALUATED = 6;

/**
 * Exit status of every error code wherever no command column says otherwise.
 *
 * @example
 * ```ts
 * ERROR_EXIT.bad_run_id; // 3: a malformed run id, the same for inspect, store load and run --prior-run
 * ERROR_EXIT.no_such_run; // 3: a well-formed id the store does not hold, the same three commands
 * ERROR_EXIT.history_missing; // 5
 * ```
 */
export const ERROR_EXIT: Readonly<Record<HandoffErrorCode, number>> = {
  // generic
  usage: EXIT_USAGE,
  invalid_input: REFUSED, // gate: an invalid input record
  invalid_record: FAILED,
  canonical_unsupported: FAILED,
  internal: FAILED,
  io_error: FAILED,
  unsupported_platform: REFUSED, // persist / store: a startup refusal
  // run-contract
  rerun_forbidden: REFUSED, // run: a relaunch refused by the rerun guard
  protocol_error: FAILED,
  // custody (file-baseline/v1): drift 3, operational 4, input refusals 2
  custody_violation: FAILED,
  drift: REFUSED,
  unknown_path: EXIT_USAGE,
  duplicate_path: EXIT_USAGE,
  // processes and git
  blocked_git: FAILED,
  git_failed: FAILED,
  // run store (a thrown store code: a store that refused or failed under a command that writes
  // through it, e.g. `chain --run-store`, `inspect`); a malformed run id and a well-formed id the
  // store does not hold are refusals, 3, in every command that takes a run id
  bad_event_schema: FAILED,
  invalid_dispatch: FAILED,
  invalid_payload: FAILED,
  kind_unsupported: FAILED,
  bad_run_id: REFUSED,
  bad_timestamp: FAILED,
  git_tracked: FAILED,
  run_exists: FAILED,
  busy: FAILED,
  lock_unavailable: FAILED,
  lock_init_failed: FAILED,
  journal_damaged: FAILED,
  journal_unreadable: FAILED,
  publish_unsynced: FAILED,
  store_init_unsynced: FAILED,
  gitignore_write_failed: FAILED,
  temp_unavailable: FAILED,
  write_failed: FAILED,
  containment: FAILED,
  no_parent_anchor: FAILED,
  no_storage_root: REFUSED,
  no_runs_dir: REFUSED,
  no_such_run: REFUSED,
  incomplete_run: FAILED,
  integrity_failure: FAILED,
  payload_unreadable: FAILED,
  baton_out_of_sequence: FAILED,
  store_committed: FAILED,
  store_nothing_written: FAILED,
  store_journal_only: FAILED,
  store_indeterminate: FAILED,
  // prior-run reuse at `handoff run` startup: the guard's refusals and an unknown prior run id 3,
  // everything that needs reconciliation 4 (with an operational-error handoff)
  state_exists: FAILED,
  state_unwritable: FAILED,
  reuse_report_required: FAILED,
  reuse_report_mismatch: FAILED,
  bad_reuse_report: FAILED,
  bad_prior_run: REFUSED,
  prior_run_active: FAILED,
  prior_run_unreadable: FAILED,
  prior_run_damaged: FAILED,
  prior_run_changed: FAILED,
  no_usable_baseline: FAILED,
  incompatible_mode: FAILED,
  incompatible_target: FAILED,
  incompatible_owned_files: FAILED,
  drift_check_failed: FAILED,
  drift_unapproved: FAILED,
  drift_unreconciled: FAILED,
  approval_mismatch: FAILED,
  custody_mismatch: FAILED,
  baseline_mismatch: FAILED,
  blocker_cleared: REFUSED,
  justification_required: REFUSED,
  invalid_progress: FAILED,
  persist_stop: FAILED,
  // tracker: usage, missing session, corrupt state are all 2
  no_session: EXIT_USAGE,
  corrupt_state: EXIT_USAGE,
  claim_state: EXIT_USAGE,
  // gate: I/O and damage 4, the enforcer's refusals 5, an evaluation without an answer 6
  ledger_damaged: FAILED,
  ledger_contention: FAILED,
  ledger_unavailable: FAILED,
  history_missing: ENFORCER_REFUSED,
  no_such_grant: ENFORCER_REFUSED,
  grant_state: ENFORCER_REFUSED,
  attempt_not_authorized: ENFORCER_REFUSED,
  base_mismatch: ENFORCER_REFUSED,
  evaluator_failed: NOT_EVALUATED,
  // envelope: refused input 3
  envelope_invalid_input: REFUSED,
  envelope_missing_field: REFUSED,
  envelope_invalid_repo: REFUSED,
  envelope_invalid_target: REFUSED,
  envelope_unknown_template: REFUSED,
  envelope_reconcile_tuple: REFUSED,
  envelope_invalid_option: REFUSED,
  envelope_invalid_settings: REFUSED,
  envelope_prefix_drift: REFUSED,
  settings_unreadable: REFUSED,
  settings_invalid: REFUSED,
  // chain: a run stopped at a seam 3; the runner's and journal's failures 4
  missing_required_fact: REFUSED,
  stage_failed: REFUSED,
  invalid_stage_delta: REFUSED,
  promised_fact_missing: REFUSED,
  undeclared_fact: REFUSED,
  committed_fact_overwrite: REFUSED,
  fact_type_mismatch: REFUSED,
  fact_evidence_missing: REFUSED,
  fact_semantic_violation: REFUSED,
  invalid_checkpoint: FAILED,
  chain_complete: FAILED,
  journal_conflict: FAILED,
  invalid_topology: FAILED,
  effect_in_doubt: FAILED,
};

/** A command's column: exit statuses that differ from {@link ERROR_EXIT} for that command. */
export interface CommandErrorExits {
  /** Statuses of single codes. */
  readonly codes?: Readonly<Partial<Record<HandoffErrorCode, number>>>;
  /** The status of every other code but `usage` (a command whose spec has one error status). */
  readonly otherwise?: number;
}

/**
 * The commands whose specs give codes another exit status than {@link ERROR_EXIT}.
 *
 * @example
 * ```ts
 * COMMAND_ERROR_EXIT.baseline?.codes?.invalid_record; // 2: a malformed baseline is an input error
 * ```
 */
export const COMMAND_ERROR_EXIT: Readonly<Record<string, CommandErrorExits>> = {
  // file-baseline/v1: 2 usage / malformed baseline / unknown path / duplicates, 4 operational
  baseline: { codes: { invalid_record: EXIT_USAGE } },
  // the tracker's spec: 2 usage, missing session or corrupt state — its only error status
  tracker: { otherwise: EXIT_USAGE },
  // envelope build: 3 refused input, whatever the cause
  envelope: { otherwise: REFUSED },
};

/**
 * The exit status of a thrown {@link HandoffError} code under `command` (the verb group, e.g.
 * `gate`): the command's column, else the shared table. `usage` is always 2.
 *
 * @example
 * ```ts
 * errorExitCode('bad_run_id', 'inspect'); // 3
 * errorExitCode('invalid_record', 'baseline'); // 2
 * errorExitCode('corrupt_state', 'tracker'); // 2
 * errorExitCode('grant_state', 'gate'); // 5
 * ```
 */
export function errorExitCode(code: HandoffErrorCode, command?: string): number {
  if (code === 'usage') return EXIT_USAGE;
  const column =
    command !== undefined && Object.hasOwn(COMMAND_ERROR_EXIT, command)
      ? COMMAND_ERROR_EXIT[command]
      : undefined;
  return column?.codes?.[code] ?? column?.otherwise ?? ERROR_EXIT[code] ?? FAILED;
}
