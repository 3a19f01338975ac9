/**
 * Prior-run reuse at the startup of a cycle run (layer 3), in the seed's order and all before any
 * edit: read-only preview of the prior run (src/persist `reusePreview`) → the drift report shown
 * → drift reconciliation (prove: the human approves the report's token, or `--approve TOKEN`;
 * autoprove: never prompts and stops with an operational-error handoff naming what needs
 * reconciliation) → custody (`deriveCustody`: the fresh baseline) → the run-level first dispatch
 * carrying the prior blocker → the final checks of `start --prior-run` (`preparePriorStart`: the
 * report's binding, custody again, the fresh baseline, the carried blocker, the rerun guard).
 * The caller then starts the persistence controller with the prepared source-note as event #1.
 */
import { recordBaseline } from '../baseline/index.js';
import type { FileBaseline } from '../baseline/schema.js';
import type { Dispatch, Handoff } from '../contract/index.js';
import type { CycleOptions } from '../cycle/types.js';
import { HandoffError } from '../errors/index.js';
import {
  deriveCustody,
  operationalErrorHandoffForTask,
  type PreparedPriorRun,
  preparePriorStart,
  type ReuseRefusal,
  type ReuseRefusalCode,
  type ReuseReport,
  reusePreview,
} from '../persist/index.js';
import type { Store } from '../store/index.js';
import { buildRunDispatch } from './dispatch-builder.js';
import type { HumanPort } from './ports.js';

/** What a host passes to reuse a prior run (`--persist --prior-run ID`). */
export interface PriorRunReuse {
  /** The run store the prior run lives in (the same store the new run is persisted to). */
  readonly store: Store;
  readonly priorRun: string;
  /** `--approve TOKEN`: approval of the drift report's token without a prompt (prove only). */
  readonly approve?: string | undefined;
  /** `--evidence-justification`: required after an operational prior stop. */
  readonly evidenceJustification?: string | undefined;
  /** Receives the human-readable reuse report (drift entries, token, carried blocker). */
  readonly onReport?: ((lines: readonly string[]) => void) | undefined;
}

/** Inputs of {@link reuseStartup}. */
export interface ReuseStartupInput extends PriorRunReuse {
  readonly projectRoot: string;
  readonly options: CycleOptions;
  /** The run's intended owned files (absolute, sorted). */
  readonly owned: readonly string[];
  /** `--evidence` entries: the evidence_delta of the run-level first dispatch. */
  readonly evidence: readonly string[];
  readonly human: HumanPort;
  readonly scratch: string;
}

/** A successful reuse startup. */
export interface ReuseStartup {
  readonly report: ReuseReport;
  /** The fresh custody baseline (the first dispatch's file_baseline; the run's initial custody). */
  readonly baseline: FileBaseline;
  /** The selected prior handoff (its blocker drives the in-run guard); null when none is usable. */
  readonly priorHandoff: Handoff | null;
  /** The run-level first dispatch that `start --prior-run` records. */
  readonly firstDispatch: Dispatch;
  /** What the persistence controller's `startPrepared` needs (prior run, source-note). */
  readonly prepared: PreparedPriorRun;
}

/** Refusal codes of the rerun guard branch (a relaunch refused, like at startup). */
const GUARD_CODES: ReadonlySet<ReuseRefusalCode> = new Set([
  'rerun_forbidden',
  'blocker_cleared',
  'justification_required',
]);

/**
 * True when a reuse refusal needs reconciliation (drift, custody, an active or changed prior run,
 * incompatibility): the run then ends with an operational-error handoff naming what to reconcile.
 * The rerun guard's refusals and a prior run id that names no usable run of this store
 * (`bad_prior_run`) end without a record. (The CLI's exit statuses for the codes are in
 * src/cli/exit-codes.ts.)
 *
 * @example
 * ```ts
 * needsReconciliation('drift_unreconciled'); // true
 * needsReconciliation('rerun_forbidden'); // false
 * ```
 */
export function needsReconciliation(code: ReuseRefusalCode): boolean {
  return !GUARD_CODES.has(code) && code !== 'bad_prior_run';
}

/**
 * The human-readable reuse report: prior run and observed prefix, the carried blocker, every
 * drift entry with its origin cite, uncovered files and the approval token.
 *
 * @example
 * ```ts
 * formatReuseReport(report); // ['prior run run-… (observed seq 9): drift', '  /p/H.lean: modified (origin run-…#7)', …]
 * ```
 */
export function formatReuseReport(r: ReuseReport): string[] {
  const lines = [
    `prior run ${r.prior_run} (observed seq ${r.observed_seq}): drift ${r.drift.result}`,
    r.selection.guard_evaluable
      ? `  carried blocker: ${r.carry.prior_blocker ?? 'none'} (${r.carry.status ?? '?'}${r.carry.stop_reason ? `, ${r.carry.stop_reason}` : ''}; ${r.selection.handoff_cite})`
      : '  no usable prior handoff: the handoff-based rerun guard cannot be evaluated',
  ];
  for (const e of r.drift.entries) {
    lines.push(`  ${e.path}: ${e.prior_status}${e.origin ? ` (origin ${e.origin})` : ''}`);
  }
  if (r.drift.result !== 'match') lines.push(`  approval token: ${r.drift.approval_token}`);
  return lines;
}

async function refusal(
  r: ReuseRefusal,
  inv: { target: string; scope: string; mode: string; owned_files: readonly string[] },
  baseline: () => Promise<FileBaseline>,
): Promise<HandoffError> {
  let handoff: Handoff | null = null;
  if (needsReconciliation(r.code)) {
    const h = r.handoff ?? operationalErrorHandoffForTask(inv, await baseline(), r.message);
    handoff = { ...h, stop_detail: `${r.code}: ${h.stop_detail ?? r.message}` };
  }
  return new HandoffError(r.code, `prior-run reuse refused (${r.code}): ${r.message}`, {
    details: { reuse_code: r.code, ...(r.details ?? {}), ...(handoff ? { handoff } : {}) },
  });
}

/**
 * Runs the reuse startup; resolves to the fresh custody and the prepared start, or throws a
 * {@link HandoffError} whose code is the refusal code and, when it {@link needsReconciliation},
 * `details.handoff`: the operational-error handoff naming what needs reconciliation. Nothing is
 * created and nothing is edited before it resolves.
 *
 * @example
 * ```ts
 * const s = await reuseStartup({ store, priorRun, projectRoot, options, owned, evidence: [], human, scratch });
 * await recorder.start(s.firstDispatch, s.prepared);
 * ```
 */
export async function reuseStartup(i: ReuseStartupInput): Promise<ReuseStartup> {
  const env = { store: i.store, projectRoot: i.projectRoot };
  const o = i.options;
  const inv = { target: o.target, scope: o.scope, mode: o.mode, owned_files: i.owned };
  const recorded = () => recordBaseline(i.owned);
  const preview = await reusePreview(env, {
    priorRun: i.priorRun,
    target: o.target,
    scope: o.scope,
    mode: o.mode,
    ownedFiles: i.owned,
  });
  if (!preview.ok) throw await refusal(preview, inv, recorded);
  const report = preview.value;
  i.onReport?.(formatReuseReport(report));
  let approve = i.approve;
  if (report.drift.result !== 'match' && o.mode === 'prove' && approve === undefined) {
    const changed = report.drift.entries.filter((e) => e.prior_status !== 'unchanged');
    const a = await i.human.ask({
      question: 'approve-drift',
      options: ['approve', 'stop'],
      summary: `prior run ${report.prior_run}: ${changed.map((e) => `${e.path} (${e.prior_status})`).join(', ')}; approve token ${report.drift.approval_token}?`,
    });
    if (a.answer === 'approve') approve = report.drift.approval_token;
  }
  const custody = await deriveCustody(env, { report, ownedFiles: i.owned, approve });
  if (!custody.ok) throw await refusal(custody, inv, recorded);
  const baseline = custody.value.custody.fresh_baseline;
  const firstDispatch = buildRunDispatch({
    options: o,
    owned: report.invocation.owned_files,
    baseline,
    priorBlocker: custody.value.selection.carry.prior_blocker,
    evidenceDelta: i.evidence,
    scratch: i.scratch,
  });
  const prepared = await preparePriorStart(env, {
    priorRun: i.priorRun,
    report,
    dispatch: firstDispatch,
    approve,
    evidenceJustification: i.evidenceJustification,
  });
  if (!prepared.ok) throw await refusal(prepared, inv, async () => baseline);
  return {
    report,
    baseline,
    priorHandoff: custody.value.selection.handoff,
    firstDispatch,
    prepared: prepared.value,
  };
}
