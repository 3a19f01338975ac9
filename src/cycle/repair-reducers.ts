/**
 * Repair mode's reducers and actor inputs (layer 1, pure; seed 002 § Repair Mode): escalation
 * only — the ordinary worker pass is the direct fix; repair starts when a trigger fires
 * (src/cycle/repair-rules.ts) and the host provides a patcher. A patch-only worker returns a
 * unified diff (`files_changed: []`), the runtime applies it under custody, diagnostics judge the
 * improvement, and two neutral attempts on a signature (or a spent budget) make the target stuck.
 */
import type { FileBaseline } from '../baseline/schema.js';
import type { StopReason } from '../contract/index.js';
import { diagnosticsRequest, workerInput } from './actor-inputs.js';
import type { CycleUpdate } from './context.js';
import { mergeBaseline } from './custody.js';
import {
  errorSignature,
  recordRepair,
  repairBudget,
  repairExhausted,
  repairOutcome,
  repairTrigger,
} from './repair-rules.js';
import { withRoutedEvidence } from './review-routing.js';
import type {
  CycleContext,
  DiagnosticsInput,
  DiagnosticsOutput,
  PatchInput,
  PatchOutput,
  StuckVerdict,
  WorkerInput,
  WorkOutcome,
} from './types.js';

/** The detail of a repair handoff that does not carry exactly a diff (a protocol error). */
export const REPAIR_PROTOCOL = 'a repair handoff must carry a unified-diff artifact and files_changed: []';

/** The errors in scope of the current target: its last verify errors (else the last gate's on its file). */
function errorsInScope(c: Pick<CycleContext, 'current' | 'verifyErrors' | 'gateErrors'>): readonly string[] {
  const t = c.current;
  if (t === null) return [];
  const v = c.verifyErrors[t.id];
  if (v !== undefined) return v;
  return (c.gateErrors.at(-1) ?? []).filter((e) => e.startsWith(`${t.file}:`));
}

/**
 * How many of the latest project-gate results in a row share one error (0 when the last gate
 * reported none): the "same build error after 2 attempts" trigger.
 *
 * @example
 * ```ts
 * buildErrorRepeats([['A.lean:1:x'], ['A.lean:1:x']]); // 2
 * ```
 */
export function buildErrorRepeats(gates: readonly (readonly string[])[]): number {
  const last = gates.at(-1) ?? [];
  let best = 0;
  for (const e of last) {
    let n = 0;
    for (let i = gates.length - 1; i >= 0 && (gates[i] ?? []).includes(e); i--) n++;
    best = Math.max(best, n);
  }
  return best;
}

/**
 * Why repair mode should take over the current target now (a trigger of
 * {@link repairTrigger} over its blocker signatures, the gate history and the errors in scope),
 * or null. Only an open target with a compiler error in scope is repaired.
 *
 * @example
 * ```ts
 * repairTriggerFor(ctx); // 'same blocker signature 2 iterations'
 * ```
 */
export function repairTriggerFor(
  c: Pick<CycleContext, 'current' | 'attempts' | 'verifyErrors' | 'gateErrors'>,
): string | null {
  const t = c.current;
  if (t === null) return null;
  const attempts = c.attempts[t.id] ?? [];
  if (attempts.at(-1)?.solved !== false) return null;
  const errors = errorsInScope(c);
  if (errors.length === 0) return null;
  return repairTrigger({
    signatures: attempts.map((a) => a.signature),
    buildErrorRepeats: buildErrorRepeats(c.gateErrors),
    distinctErrors: new Set(errors).size,
  });
}

/**
 * The error a repair attempt works on: the first error in scope, or null.
 *
 * @example
 * ```ts
 * repairError(ctx); // 'A.lean:3:type mismatch'
 * ```
 */
export function repairError(c: Pick<CycleContext, 'current' | 'verifyErrors' | 'gateErrors'>): string | null {
  return errorsInScope(c)[0] ?? null;
}

/**
 * Why another repair attempt is not allowed ({@link repairBudget} for the error in scope), or
 * null when it is.
 *
 * @example
 * ```ts
 * repairDenied(ctx); // null on the first attempt of a cycle
 * ```
 */
export function repairDenied(
  c: Pick<CycleContext, 'current' | 'verifyErrors' | 'gateErrors' | 'repairLedger' | 'options'>,
): string | null {
  const e = repairError(c);
  if (e === null) return null;
  const b = repairBudget(c.repairLedger, errorSignature(e), c.options);
  return b.ok ? null : b.reason;
}

/**
 * Starts a repair attempt on the error in scope: its signature, the trigger, and the errors
 * before it (the improvement rule compares against them).
 *
 * @example
 * ```ts
 * startRepair(ctx).repair?.signature; // 'A.lean:3:…'
 * ```
 */
export function startRepair(
  c: Pick<CycleContext, 'current' | 'verifyErrors' | 'gateErrors' | 'attempts' | 'repair' | 'log'>,
): CycleUpdate {
  const t = c.current;
  const error = repairError(c);
  if (t === null || error === null) return {};
  const errors = errorsInScope(c);
  const trigger = repairTriggerFor(c) ?? c.repair?.trigger ?? 'review router';
  const signature = errorSignature(error);
  return {
    repair: {
      target: t.id,
      error,
      signature,
      trigger,
      before: { errors: errors.length, signatures: errors.map(errorSignature) },
      patch: null,
      changed: [],
      outcome: null,
    },
    log: [...c.log, `repair: ${t.id} — ${trigger}: ${error}`],
  };
}

/**
 * Notes that repair has nothing to work on (no compiler error in scope).
 *
 * @example
 * ```ts
 * noRepairError(ctx).log?.at(-1); // 'repair: no compiler error in scope for A.lean:2 — skipped'
 * ```
 */
export function noRepairError(c: Pick<CycleContext, 'current' | 'log'>): CycleUpdate {
  return { log: [...c.log, `repair: no compiler error in scope for ${c.current?.id ?? '?'} — skipped`] };
}

/**
 * The repair worker's input: `role: 'repair'` (patch only), owning the target's file, with the
 * structured error, its signature and every error in scope in `parameters.repair`.
 *
 * @example
 * ```ts
 * repairWorkerInput(ctx).parameters; // { repair: { error, signature, errors_in_scope, trigger } }
 * ```
 */
export function repairWorkerInput(c: CycleContext): WorkerInput {
  const r = c.repair;
  return {
    ...withRoutedEvidence(c, workerInput(c), 'repair'),
    role: 'repair',
    ownedFiles: c.current ? [c.current.file] : [],
    parameters: {
      repair: {
        error: r?.error ?? null,
        signature: r?.signature ?? null,
        errors_in_scope: [...errorsInScope(c)],
        trigger: r?.trigger ?? null,
      },
    },
  };
}

/**
 * True when a repair worker's outcome is a handoff that changed no file and carries a non-empty
 * `unified-diff` artifact (the patch-only contract).
 *
 * @example
 * ```ts
 * repairHandoffValid(outcomeWithDiff); // true
 * ```
 */
export function repairHandoffValid(out: WorkOutcome): boolean {
  return (
    out.kind === 'handoff' &&
    out.handoff.files_changed.length === 0 &&
    out.accepted.length === 0 &&
    out.handoff.artifacts.some((a) => a.kind === 'unified-diff' && a.content.trim() !== '')
  );
}

/**
 * Absorbs a valid repair handoff: the handoff joins the run's, its diff is what the patcher applies.
 *
 * @example
 * ```ts
 * absorbRepairWork(ctx, outcome).repair?.patch; // '--- a/A.lean\n+++ b/A.lean\n…'
 * ```
 */
export function absorbRepairWork(
  c: Pick<CycleContext, 'repair' | 'handoffs' | 'now'>,
  out: WorkOutcome,
): CycleUpdate {
  if (out.kind !== 'handoff' || c.repair === null) return { lastWork: out };
  const diff = out.handoff.artifacts.find((a) => a.kind === 'unified-diff');
  return {
    lastWork: out,
    now: Math.max(c.now, out.now),
    handoffs: [...c.handoffs, out.handoff],
    repair: { ...c.repair, patch: diff?.content ?? null },
  };
}

/**
 * Heads for `stopped` because the repair worker broke the patch-only contract.
 *
 * @example
 * ```ts
 * repairProtocolStop().pendingStop?.detail; // 'worker protocol error: a repair handoff must carry …'
 * ```
 */
export function repairProtocolStop(): CycleUpdate {
  return { pendingStop: { reason: 'protocol-error', detail: `worker protocol error: ${REPAIR_PROTOCOL}` } };
}

/**
 * The patcher's input: the diff, the files it may touch (the target's file) and the parent's
 * custody baseline, checked immediately before applying.
 *
 * @example
 * ```ts
 * patchInput(ctx).files; // ['A.lean']
 * ```
 */
export function patchInput(
  c: Pick<CycleContext, 'repair' | 'current' | 'baseline'> & Partial<Pick<CycleContext, 'lastWork'>>,
): PatchInput {
  // the repair dispatch's fence grants: its patch is fenced as the worker's own edit would be
  const caps = c.lastWork?.kind === 'handoff' ? (c.lastWork.dispatch?.capabilities ?? []) : [];
  return {
    patch: c.repair?.patch ?? '',
    files: c.current ? [c.current.file] : [],
    baseline: c.baseline,
    grants: caps.filter((g) => g.startsWith('fence:')),
  };
}

/**
 * Absorbs an applied patch: the advanced baseline is adopted and the changed files join the run's.
 *
 * @example
 * ```ts
 * absorbPatch(ctx, { now: 1, kind: 'applied', changed: ['/p/A.lean'], baseline }).repair?.changed; // ['/p/A.lean']
 * ```
 */
export function absorbPatch(
  c: Pick<CycleContext, 'repair' | 'baseline' | 'filesChanged' | 'now' | 'log'>,
  out: PatchOutput,
): CycleUpdate {
  if (out.kind !== 'applied' || c.repair === null) return {};
  // the patcher names project-relative files; workers' records and the custody baseline name
  // absolute ones: one spelling per file in the run's files_changed and the checkpoint
  const changed = out.changed.map((f) => baselinePathOf(f, out.baseline));
  return {
    now: Math.max(c.now, out.now),
    baseline: mergeBaseline(c.baseline, out.baseline),
    filesChanged: [...new Set([...c.filesChanged, ...changed])],
    repair: { ...c.repair, changed: [...out.changed] },
    log: [...c.log, `repair: patch applied to ${out.changed.join(', ') || 'nothing'}`],
  };
}

/**
 * The baseline's spelling of a project-relative file (the entry whose path is it or ends with
 * `/<file>`), else the file as given.
 *
 * @example
 * ```ts
 * baselinePathOf('A.lean', { schema: 'file-baseline/v1', files: [{ path: '/p/A.lean', … }] }); // '/p/A.lean'
 * ```
 */
export function baselinePathOf(file: string, baseline: FileBaseline): string {
  const hit = baseline.files.find((e) => e.path === file || e.path.endsWith(`/${file}`));
  return hit?.path ?? file;
}

/**
 * True when the patcher answered `stale` (the baseline no longer matches the disk).
 *
 * @example
 * ```ts
 * patchStale({ now: 0, kind: 'stale', detail: 'A.lean changed' }); // true
 * ```
 */
export function patchStale(out: PatchOutput): boolean {
  return out.kind === 'stale';
}

/**
 * True when the patcher refused the diff (a hunk did not apply exactly or left scope).
 *
 * @example
 * ```ts
 * patchRefused({ now: 0, kind: 'refused', detail: 'fuzzy hunk' }); // true
 * ```
 */
export function patchRefused(out: PatchOutput): boolean {
  return out.kind === 'refused';
}

/**
 * Heads for `stopped` on a patch that was not applied: `stale` is a custody stop (never
 * re-recorded and retried), `refused` a worker protocol error.
 *
 * @example
 * ```ts
 * patchStop({ now: 0, kind: 'stale', detail: 'A.lean changed' }).pendingStop?.detail; // 'repair: stale baseline — A.lean changed'
 * ```
 */
export function patchStop(out: PatchOutput): CycleUpdate {
  if (out.kind === 'applied') return {};
  const reason: StopReason = 'protocol-error';
  const detail =
    out.kind === 'stale'
      ? `repair: stale baseline — ${out.detail}`
      : `worker protocol error: repair patch refused — ${out.detail}`;
  return { pendingStop: { reason, detail } };
}

/**
 * The diagnostics request verifying a repair: the target's file.
 *
 * @example
 * ```ts
 * repairVerifyRequest(ctx).files; // ['A.lean']
 * ```
 */
export function repairVerifyRequest(c: Pick<CycleContext, 'current'>): DiagnosticsInput {
  return diagnosticsRequest({ kind: 'edit', importsChanged: false }, c.current ? [c.current.file] : []);
}

/**
 * Judges a repair attempt against the errors before it ({@link repairOutcome}: improved when the
 * error count went down or the signature is gone, else neutral) and records it in the ledger and
 * the run's repair history.
 *
 * @example
 * ```ts
 * judgeRepair(ctx, diagnostics).repair?.outcome; // 'improved'
 * ```
 */
export function judgeRepair(
  c: Pick<
    CycleContext,
    'repair' | 'current' | 'repairLedger' | 'repairHistory' | 'verifyErrors' | 'now' | 'log'
  >,
  out: DiagnosticsOutput,
): CycleUpdate {
  const r = c.repair;
  const t = c.current;
  if (r === null || t === null) return {};
  const errors = out.errors.filter((e) => e.startsWith(`${t.file}:`));
  const outcome = repairOutcome(
    r.before,
    { errors: errors.length, signatures: errors.map(errorSignature) },
    r.signature,
  );
  return {
    now: Math.max(c.now, out.now),
    verifyErrors: { ...c.verifyErrors, [t.id]: errors },
    repairLedger: recordRepair(c.repairLedger, r.signature, outcome),
    repairHistory: { ...c.repairHistory, [r.signature]: (c.repairHistory[r.signature] ?? 0) + 1 },
    repair: { ...r, outcome },
    log: [...c.log, `repair: ${r.signature} — ${outcome} (${r.before.errors} → ${errors.length} errors)`],
  };
}

/**
 * True when the last repair attempt improved.
 *
 * @example
 * ```ts
 * repairImproved({ repair: { ...run, outcome: 'improved' } }); // true
 * ```
 */
export function repairImproved(c: Pick<CycleContext, 'repair'>): boolean {
  return c.repair?.outcome === 'improved';
}

/**
 * True when repair gives up on the target: two neutral attempts on the signature
 * ({@link repairExhausted}) or no budget for the next attempt.
 *
 * @example
 * ```ts
 * repairGivesUp(ctx); // true after two neutral attempts
 * ```
 */
export function repairGivesUp(
  c: Pick<CycleContext, 'repair' | 'repairLedger' | 'current' | 'verifyErrors' | 'gateErrors' | 'options'>,
): boolean {
  const r = c.repair;
  if (r === null) return true;
  return repairExhausted(c.repairLedger, r.signature) || repairDenied(c) !== null || repairError(c) === null;
}

/**
 * An improved repair: the patched files are accepted for the checkpoint, and the target's stuck
 * verdict of this cycle is cleared.
 *
 * @example
 * ```ts
 * acceptRepair(ctx).accepted; // ['/p/A.lean']
 * ```
 */
export function acceptRepair(
  c: Pick<CycleContext, 'repair' | 'accepted' | 'stuck' | 'log' | 'baseline'>,
): CycleUpdate {
  const r = c.repair;
  if (r === null) return {};
  return {
    accepted: [...new Set([...c.accepted, ...r.changed.map((f) => baselinePathOf(f, c.baseline))])],
    ...(c.stuck?.target === r.target ? { stuck: null } : {}),
    log: [...c.log, `repair: ${r.target} improved — accepted ${r.changed.join(', ') || 'no file'}`],
  };
}

/**
 * Repair gave up: the target is stuck (`repair-exhausted`), which forces the stuck review and the
 * replan.
 *
 * @example
 * ```ts
 * markRepairExhausted(ctx).stuck?.condition; // 'repair-exhausted'
 * ```
 */
export function markRepairExhausted(
  c: Pick<
    CycleContext,
    'repair' | 'current' | 'repairLedger' | 'verifyErrors' | 'gateErrors' | 'options' | 'log'
  >,
): CycleUpdate {
  const t = c.current;
  if (t === null) return {};
  const r = c.repair;
  const sig = r?.signature ?? errorSignature(repairError(c) ?? `${t.file}:${t.line}:repair`);
  const why =
    r !== null && repairExhausted(c.repairLedger, sig)
      ? `repair: 2 attempts without improvement on ${sig}`
      : `repair: ${repairDenied(c) ?? 'budget exhausted'}`;
  const v: StuckVerdict = { target: t.id, condition: 'repair-exhausted', signature: sig, detail: why };
  return { stuck: v, lastStuck: v, log: [...c.log, `stuck: ${why}`] };
}
