/**
 * Prior-run reuse (layer 3): the read-only preview, custody re-derivation and the final checks
 * of `start --prior-run`. Reads the prior run through the {@link Store} (no lock taken, nothing
 * repaired, no lock broken) and the owned files through the baseline helpers; every decision is
 * a pure function of this folder.
 */
import { realpath } from 'node:fs/promises';
import { checkBaseline } from '../baseline/check.js';
import { recordBaseline } from '../baseline/record.js';
import type { FileBaseline } from '../baseline/schema.js';
import type { Dispatch } from '../contract/dispatch-schema.js';
import type { Handoff } from '../contract/handoff-schema.js';
import { rerunGuard } from '../contract/rerun-guard.js';
import type { PERSIST_CODES } from '../errors/error-codes.js';
import { RUN_ID_PATTERN } from '../store/schema.js';
import type { RunLoad, Store, StoreCode } from '../store/store.js';
import { safeValidate } from '../validation/index.js';
import type { PreparedPriorRun } from './controller.js';
import { buildDriftReport, type DriftReport, sameBaselineIdentity } from './drift-report.js';
import { compatibleTarget, isInside, modeFamily, normalizeOwned } from './reuse-compat.js';
import { operationalErrorHandoffForTask } from './reuse-handoff.js';
import {
  CUSTODY_SCHEMA,
  type CustodyResult,
  REUSE_SCHEMA,
  type ReuseReport,
  ReuseReportSchema,
} from './reuse-report.js';
import { baselineOrigins, type PriorSelection, prefixDigest, selectPrior } from './reuse-selection.js';
import { SOURCE_NOTE_SCHEMA, type SourceNote } from './source-note.js';

/**
 * The code of a reuse refusal: a persist startup code, or the store's `incomplete_run` /
 * `integrity_failure` passed through.
 */
export type ReuseRefusalCode = (typeof PERSIST_CODES)[number] | StoreCode;

/** A reuse refusal (a startup-error of `handoff persist`). */
export interface ReuseRefusal {
  readonly ok: false;
  readonly code: ReuseRefusalCode;
  readonly message: string;
  readonly details?: Record<string, unknown>;
  /** For autonomous drift: the operational-error handoff naming what needs reconciliation. */
  readonly handoff?: Handoff;
}
/** A reuse outcome. */
export type ReuseOutcome<T> = { readonly ok: true; readonly value: T } | ReuseRefusal;

/** Where reuse runs. */
export interface ReuseEnv {
  readonly store: Store;
  /** The project root (resolved to its real path before use). */
  readonly projectRoot: string;
}

/** The intended invocation a preview is made for. */
export interface ReuseInvocation {
  readonly priorRun: string;
  readonly target: string;
  readonly scope: string;
  readonly mode: string;
  readonly ownedFiles: readonly string[];
}

const refuse = (
  code: ReuseRefusalCode,
  message: string,
  details?: Record<string, unknown>,
): ReuseRefusal => ({
  ok: false,
  code,
  message,
  ...(details === undefined ? {} : { details }),
});

async function realRoot(p: string): Promise<string> {
  try {
    return await realpath(p);
  } catch {
    return p;
  }
}

/** Loads the prior run's validated prefix, refusing unusable runs (nothing is repaired). */
async function loadPrior(store: Store, priorRun: string): Promise<ReuseOutcome<RunLoad>> {
  if (typeof priorRun !== 'string' || !RUN_ID_PATTERN.test(priorRun)) {
    return refuse('bad_prior_run', `not a run id: ${JSON.stringify(priorRun)}`);
  }
  let locked = false;
  try {
    locked = await store.isLocked(priorRun);
  } catch (e) {
    return refuse('prior_run_unreadable', `cannot inspect ${priorRun}: ${(e as Error).message}`);
  }
  if (locked) {
    return refuse(
      'prior_run_active',
      `${priorRun} has a mutation lock: a mutation may be in progress (never broken)`,
    );
  }
  let r: Awaited<ReturnType<Store['load']>>;
  try {
    r = await store.load(priorRun);
  } catch (e) {
    return refuse('prior_run_unreadable', `cannot load ${priorRun}: ${(e as Error).message}`);
  }
  if (!r.ok) {
    // an id this store does not hold (no run, no runs dir, no store at all) is an unknown id
    const unknown = ['no_such_run', 'no_runs_dir', 'no_storage_root', 'bad_run_id', 'containment'];
    const code = unknown.includes(r.code)
      ? 'bad_prior_run'
      : r.code === 'incomplete_run' || r.code === 'integrity_failure'
        ? r.code
        : 'prior_run_unreadable';
    return refuse(code, r.detail, { store_code: r.code });
  }
  if (r.value.damaged) {
    const d = r.value.damage;
    return refuse('prior_run_damaged', `${priorRun}: ${d?.code ?? 'damaged'} at line ${d?.line ?? '?'}`, {
      damage: d,
    });
  }
  if (r.value.manifest.storage_root !== store.root) {
    return refuse('bad_prior_run', `${priorRun} belongs to another store (${r.value.manifest.storage_root})`);
  }
  return { ok: true, value: r.value };
}

/** Compatibility of the selection with an invocation (mode family, target, owned files in the project). */
function checkCompat(
  sel: PriorSelection,
  inv: { target: string; scope: string; mode: string },
  owned: readonly string[],
  root: string,
): ReuseRefusal | null {
  if (modeFamily(sel.dispatch.mode) !== modeFamily(inv.mode)) {
    return refuse(
      'incompatible_mode',
      `prior mode ${sel.dispatch.mode} and ${inv.mode} are different families`,
    );
  }
  if (!compatibleTarget(sel.dispatch, inv, root)) {
    return refuse(
      'incompatible_target',
      `prior target ${sel.dispatch.target} does not match ${inv.target} (${inv.scope})`,
    );
  }
  if (owned.length === 0) return refuse('incompatible_owned_files', 'no intended owned files');
  const paths = [...sel.dispatch.owned_files, ...sel.merged.keys(), ...owned];
  const outside = paths.filter((p) => !isInside(p, root));
  if (outside.length > 0) {
    return refuse('incompatible_owned_files', `paths outside the project root ${root}`, { outside });
  }
  return null;
}

/** Re-derives the drift report over `owned` (sorted, absolute). */
async function deriveDrift(
  sel: PriorSelection,
  owned: readonly string[],
  root: string,
): Promise<ReuseOutcome<DriftReport>> {
  const checked = new Map<string, { status: string; detail: string | null; origin: string }>();
  const covered = owned.filter((p) => sel.merged.has(p));
  try {
    if (covered.length > 0) {
      const files = covered.map((p) => sel.merged.get(p)?.entry) as FileBaseline['files'];
      const c = await checkBaseline({ schema: 'file-baseline/v1', files }, { cwd: root });
      for (const e of c.entries) {
        checked.set(e.path, {
          status: e.status,
          detail: e.detail ?? null,
          origin: sel.merged.get(e.path)?.origin ?? '',
        });
      }
    }
    const current = await recordBaseline(owned, { cwd: root });
    return {
      ok: true,
      value: buildDriftReport({
        prior_run: sel.prior_run,
        prefix_digest: sel.prefix_digest,
        owned,
        checked,
        current,
      }),
    };
  } catch (e) {
    return refuse('drift_check_failed', `drift check failed: ${(e as Error).message}`);
  }
}

/**
 * The read-only reuse preview (`run-persist-reuse/v1`).
 *
 * @example
 * ```ts
 * const r = await reusePreview({ store, projectRoot }, { priorRun, target, scope, mode, ownedFiles });
 * if (r.ok) show(r.value.drift); else refuse(r.code);
 * ```
 */
export async function reusePreview(env: ReuseEnv, inv: ReuseInvocation): Promise<ReuseOutcome<ReuseReport>> {
  const root = await realRoot(env.projectRoot);
  const l = await loadPrior(env.store, inv.priorRun);
  if (!l.ok) return l;
  const sel = selectPrior(l.value);
  if (sel.merged.size === 0)
    return refuse('no_usable_baseline', 'no baseline in the selected dispatch or handoff');
  const owned = normalizeOwned(inv.ownedFiles, root);
  const bad = checkCompat(sel, inv, owned, root);
  if (bad !== null) return bad;
  const drift = await deriveDrift(sel, owned, root);
  if (!drift.ok) return drift;
  return {
    ok: true,
    value: {
      schema: REUSE_SCHEMA,
      prior_run: sel.prior_run,
      observed_seq: sel.observed_seq,
      prefix_digest: sel.prefix_digest,
      invocation: {
        project_root: root,
        target: inv.target,
        scope: inv.scope,
        mode: inv.mode,
        owned_files: owned,
      },
      selection: {
        dispatch_cite: sel.dispatch_cite,
        handoff_cite: sel.handoff_cite,
        handoff_finality: 'unknown',
        guard_evaluable: sel.handoff !== null,
        baseline_origins: baselineOrigins(sel),
      },
      carry: sel.carry,
      historical: sel.historical,
      drift: { ...drift.value, entries: [...drift.value.entries], uncovered: [...drift.value.uncovered] },
      note:
        sel.handoff === null
          ? 'no usable prior handoff: the handoff-based rerun guard cannot be evaluated; dispatch with prior_blocker null'
          : 'historical evidence of an observed journal prefix; finality unknown; nothing here is certified or frozen',
    },
  };
}

/** What custody re-derivation yields for start. */
export interface CustodyDerivation {
  readonly custody: CustodyResult;
  readonly report: ReuseReport;
  readonly selection: PriorSelection;
}

/**
 * Custody: revalidates the report's prefix and re-derives the drift report over exactly the
 * report's ownership set; non-match needs `approve` equal to the report's token and a fresh token
 * equal to it (a file changed after approval → custody_mismatch); autoprove never accepts drift.
 *
 * @example
 * ```ts
 * const r = await deriveCustody(env, { report, ownedFiles, approve: token });
 * if (r.ok) dispatch.file_baseline = r.value.custody.fresh_baseline;
 * ```
 */
export async function deriveCustody(
  env: ReuseEnv,
  input: { report: unknown; ownedFiles: readonly string[]; approve?: string | undefined },
): Promise<ReuseOutcome<CustodyDerivation>> {
  const root = await realRoot(env.projectRoot);
  const parsed = safeValidate(ReuseReportSchema, input.report);
  if (!parsed.ok) {
    return refuse('bad_reuse_report', 'the reuse report fails shape validation', {
      issues: parsed.issues.slice(0, 10),
    });
  }
  const report = parsed.value;
  const owned = normalizeOwned(input.ownedFiles, root);
  if (report.invocation.project_root !== root) {
    return refuse(
      'reuse_report_mismatch',
      `report is for project ${report.invocation.project_root}, not ${root}`,
    );
  }
  if (JSON.stringify(owned) !== JSON.stringify(report.invocation.owned_files)) {
    return refuse('reuse_report_mismatch', 'owned files differ from the report’s ownership set', {
      report: report.invocation.owned_files,
      given: owned,
    });
  }
  const l = await loadPrior(env.store, report.prior_run);
  if (!l.ok) return l;
  if (prefixDigest(l.value) !== report.prefix_digest || l.value.events.length !== report.observed_seq) {
    return refuse(
      'prior_run_changed',
      `${report.prior_run} changed since the preview (observed seq ${report.observed_seq})`,
    );
  }
  const sel = selectPrior(l.value);
  const bad = checkCompat(sel, report.invocation, owned, root);
  if (bad !== null) return bad;
  const fresh = await deriveDrift(sel, owned, root);
  if (!fresh.ok) return fresh;
  const f = fresh.value;
  if (f.result === 'error')
    return refuse('drift_check_failed', 'an owned file could not be checked', { entries: f.entries });
  const nonMatch = report.drift.result !== 'match' || f.result !== 'match';
  if (nonMatch) {
    if (report.invocation.mode === 'autoprove') {
      const names = f.entries
        .filter((e) => e.prior_status !== 'unchanged')
        .map((e) => `${e.path} (${e.prior_status})`);
      return {
        ...refuse('drift_unreconciled', `autonomous startup refuses drift: ${names.join(', ')}`),
        handoff: operationalErrorHandoffForTask(
          report.invocation,
          f.current_baseline,
          `prior-run reuse needs drift reconciliation before custody: ${names.join(', ')}`,
        ),
      };
    }
    if (input.approve === undefined || input.approve === '') {
      return refuse(
        'drift_unapproved',
        `drift or uncovered files need approval of token ${report.drift.approval_token}`,
        {
          approval_token: report.drift.approval_token,
        },
      );
    }
    if (input.approve !== report.drift.approval_token) {
      return refuse('approval_mismatch', 'the approval token is not the report’s token');
    }
  }
  if (f.approval_token !== report.drift.approval_token) {
    return refuse('custody_mismatch', 'owned content changed after the report was made (or approved)', {
      approved: report.drift.approval_token,
      fresh: f.approval_token,
    });
  }
  return {
    ok: true,
    value: {
      custody: {
        schema: CUSTODY_SCHEMA,
        result: f.result,
        uncovered: f.uncovered,
        fresh_baseline: f.current_baseline,
        approval_token: f.approval_token,
      },
      report,
      selection: sel,
    },
  };
}

const GENERIC =
  /^(retry|re-?run|again|try again|new run|fresh (run|baseline)|approved drift|resume|continue)\W*$/i;

/**
 * True when an evidence justification is specific enough for an operational prior stop.
 *
 * @example
 * ```ts
 * specificJustification('retry'); // false
 * ```
 */
export function specificJustification(text: string | undefined): boolean {
  if (text === undefined) return false;
  const t = text.trim();
  return t.length >= 12 && !GENERIC.test(t);
}

/**
 * The final checks of `start --prior-run` (before anything is created): report binding to the
 * dispatch, custody at the final boundary, the fresh baseline, the carried blocker, the rerun
 * guard and the justification; then the source-note to record as event #1.
 *
 * @example
 * ```ts
 * const p = await preparePriorStart(env, { priorRun, report, dispatch, approve });
 * if (p.ok) await controller.startPrepared({ dispatch }, p.value);
 * ```
 */
export async function preparePriorStart(
  env: ReuseEnv,
  input: {
    priorRun: string;
    report: unknown;
    dispatch: Dispatch;
    approve?: string | undefined;
    evidenceJustification?: string | undefined;
  },
): Promise<ReuseOutcome<PreparedPriorRun>> {
  const root = await realRoot(env.projectRoot);
  const parsed = safeValidate(ReuseReportSchema, input.report);
  if (!parsed.ok) return refuse('bad_reuse_report', 'the reuse report fails shape validation');
  const report = parsed.value;
  const d = input.dispatch;
  const owned = normalizeOwned(d.owned_files, root);
  const inv = report.invocation;
  if (
    report.prior_run !== input.priorRun ||
    inv.project_root !== root ||
    inv.target !== d.target ||
    inv.scope !== d.scope ||
    inv.mode !== d.mode ||
    JSON.stringify(inv.owned_files) !== JSON.stringify(owned)
  ) {
    return refuse('reuse_report_mismatch', 'the reuse report was made for another prior run or invocation');
  }
  const c = await deriveCustody(env, { report, ownedFiles: d.owned_files, approve: input.approve });
  if (!c.ok) return c;
  const sel = c.value.selection;
  if (!compatibleTarget(sel.dispatch, d, root))
    return refuse('incompatible_target', 'dispatch target is incompatible');
  if (!sameBaselineIdentity(d.file_baseline, c.value.custody.fresh_baseline)) {
    return refuse(
      'baseline_mismatch',
      'the first dispatch’s file_baseline is not the fresh baseline custody returned',
    );
  }
  if (d.prior_blocker !== sel.carry.prior_blocker) {
    return refuse(
      'blocker_cleared',
      `the first dispatch must carry prior_blocker ${JSON.stringify(sel.carry.prior_blocker)}`,
    );
  }
  if (sel.handoff !== null) {
    const v = rerunGuard(d, sel.handoff);
    if (v.forbidden) {
      return refuse('rerun_forbidden', v.reason, {
        new_evidence_required_for_rerun: sel.handoff.new_evidence_required_for_rerun ?? v.required_evidence,
        route: ['review --mode=stuck', 'formalize', 'human handoff'],
      });
    }
    if (v.branch === 'operational' && !specificJustification(input.evidenceJustification)) {
      return refuse(
        'justification_required',
        `an operational prior stop needs --evidence-justification saying how this addresses: ${sel.handoff.stop_detail}`,
      );
    }
  }
  const note: SourceNote = {
    schema: SOURCE_NOTE_SCHEMA,
    prior_run: sel.prior_run,
    observed_seq: sel.observed_seq,
    prefix_digest: sel.prefix_digest,
    dispatch_cite: sel.dispatch_cite,
    handoff_cite: sel.handoff_cite,
    carry: sel.carry,
    historical: sel.historical,
  };
  return {
    ok: true,
    value: {
      priorRun: sel.prior_run,
      sourceNote: { kind: 'source-note', text: JSON.stringify(note), lean: null },
    },
  };
}
