/**
 * The checks after a worker returned (layer 3, effects): every check the cycle runtime applies to
 * a returned handoff, through the same helpers — the workspace watch (src/runtime
 * `snapshotWorkspace`/`workspaceChanges`), the owned-file type check (`ownedTypeViolation`), the
 * record's validation and echo, the custody of the owned bytes (`postReturnViolation`), the
 * statement fence (`fenceVerdict`) and the search grant (`searchViolation`) — then the refusal's
 * restore, and the one handoff the host receives.
 */
import { canonicalJson } from '../canonical/index.js';
import type { Dispatch, Handoff } from '../contract/index.js';
import { searchViolation } from '../cycle/search-budget.js';
import { HandoffError } from '../errors/index.js';
import { postReturnViolation } from '../runtime/custody-guard.js';
import { captureOwned, ownedTypeViolation } from '../runtime/owned-files.js';
import { restoreAfterRefusal } from '../runtime/restore-after-refusal.js';
import { fenceVerdict } from '../runtime/statement-fence.js';
import { snapshotWorkspace, workspaceChanges } from '../runtime/workspace-watch.js';
import { type BeforeSnapshot, type HeldBefore, heldBefore } from './before.js';
import { describeThrown } from './describe-thrown.js';
import { checkDispatchRecord } from './dispatch-check.js';
import { searchGrantOf } from './search-grant.js';
import { type Attempt, type CheckResult, type Findings, isAccepted, settleHandoff } from './settle-rules.js';
import { unchangedClaimViolation } from './unchanged-claims.js';
import { type DelegateViolation, echoViolations, readHandoff, tamperViolations } from './violations.js';

/**
 * Checks what a worker did against the state `b` held before it ran, puts the owned files, git
 * control files and run store back when the answer is not accepted, and ends with one valid
 * handoff. Violations are collected in check order; the checks that read the owned files' bytes
 * are skipped when an owned path was swapped for a link (nothing is read through it).
 *
 * @example
 * ```ts
 * const r = await settleAttempt(p.held, { kind: 'returned', read: readHandoff(answer) });
 * ```
 */
export async function settleAttempt(b: HeldBefore, attempt: Attempt): Promise<CheckResult> {
  const read = attempt.kind === 'returned' ? attempt.read : null;
  const after = await snapshotWorkspace(b.zones, b.owned);
  const changes = workspaceChanges(b.workspace, after);
  const swap = await ownedTypeViolation(b.owned);
  const violations: DelegateViolation[] = tamperViolations(swap, changes);
  // a sandboxed command worker's writes outside its owned files never reached the host: its
  // sandbox names them
  if (attempt.kind === 'returned' && typeof attempt.discarded === 'string')
    violations.push({ check: 'outside_owned', detail: attempt.discarded });
  let worker: Handoff | null = null;
  if (read !== null) {
    if (!read.ok) violations.push(read.violation);
    else {
      worker = read.handoff;
      violations.push(...echoViolations(b.dispatch, worker));
      if (swap === null) {
        try {
          // the bytes read here are the ones the returned baseline is verified against
          const accepted = await captureOwned(b.owned);
          const custody = postReturnViolation(worker, b.dispatch.file_baseline, b.owned, accepted);
          if (custody !== null) violations.push({ check: 'baseline', detail: custody });
          else {
            const empty = unchangedClaimViolation(worker.files_changed, b.captured, accepted);
            if (empty !== null) violations.push(empty);
          }
          const breach = await fenceVerdict(
            b.zones.projectRoot,
            b.headers,
            accepted,
            b.fence,
            b.dispatch.capabilities,
          );
          if (breach !== null) violations.push({ check: 'statement_fence', detail: breach });
        } catch (e) {
          // an owned file changed type while it was read (a worker still running): unverifiable
          const detail = `the owned files could not be read after the worker: ${describeThrown(e)}`;
          violations.push({ check: 'baseline', detail });
        }
      }
      const grant = searchGrantOf(b.dispatch);
      const over = grant === null ? null : searchViolation(worker, grant);
      if (over !== null) violations.push({ check: 'search_budget', detail: `search budget: ${over}` });
    }
  }
  const findings: Findings = {
    violations,
    handoff: worker,
    failure: attempt.kind === 'failed' ? attempt.failure : null,
  };
  const notes = isAccepted(findings) ? [] : await restoreAfterRefusal(b.captured, b.zones, b.kept, changes);
  return settleHandoff(b.dispatch, findings, notes);
}

/**
 * Checks a worker's answer for hosts that run the worker themselves: everything `delegate` checks
 * after the worker returned — the answer is a valid run-contract/v1 handoff (read once, so a
 * Proxy or getters cannot change it later), echoes the task and the owned set; nothing outside the
 * owned files changed (project, git control files, run store), no owned file became a link; the
 * returned baseline covers the owned files, advances only `files_changed` and matches the bytes;
 * declaration headers and the search grant held. When the answer is not accepted, the owned files,
 * git control files and run store are put back to their state in `before`. Never rejects for
 * anything the worker did.
 *
 * @example
 * ```ts
 * const before = await captureBefore(dispatch);
 * const answer = await runMyWorker(dispatch); // anything: it is checked, not trusted
 * const r = await checkHandoff(dispatch, answer, before);
 * if (r.outcome === 'accepted') commit(r.handoff.files_changed);
 * ```
 * @throws HandoffError `usage` when `before` is not a snapshot from `captureBefore`, or was taken
 * for another dispatch.
 */
export async function checkHandoff(
  dispatch: Dispatch,
  handoff: unknown,
  before: BeforeSnapshot,
): Promise<CheckResult> {
  // read the answer first, before any await gives its author a chance to change it
  const read = readHandoff(handoff);
  const b = heldBefore(before);
  if (b === undefined)
    throw new HandoffError('usage', 'checkHandoff needs the snapshot captureBefore returned');
  const c = checkDispatchRecord(dispatch);
  if (!c.ok || canonicalJson(c.dispatch) !== canonicalJson(b.dispatch)) {
    throw new HandoffError('usage', 'checkHandoff: the snapshot was taken for another dispatch');
  }
  return settleAttempt(b, { kind: 'returned', read });
}
