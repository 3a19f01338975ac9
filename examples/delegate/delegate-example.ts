/**
 * handoff-runtime/delegate in one program: wrap one subagent call with `delegate`, persist it to
 * the project's run store, inspect the run, and watch an overreaching subagent get refused and
 * its relaunch held by the rerun guard.
 *
 * The imports point at the sources so the example runs inside this repository; in an app they are
 * `handoff-runtime` (advanceBaseline, handoffFor, createFsStore, resolveCite) and
 * `handoff-runtime/delegate` (createDispatch, delegate, canRelaunch, DelegateFn).
 */
import { advanceBaseline } from 'handoff-runtime/baseline';
import { handoffFor } from 'handoff-runtime/contract';
import {
  canRelaunch,
  createDispatch,
  type DelegateFn,
  type DelegateResult,
  delegate,
} from 'handoff-runtime/delegate';
import { createFsStore, resolveCite } from 'handoff-runtime/store';
import type { Subagent } from './subagent.js';

/**
 * The whole adapter: a subagent call as a delegate worker. The subagent edits the owned files;
 * the worker advances their baseline and reports them. `delegate` checks everything else.
 *
 * @example
 * ```ts
 * await delegate(dispatch, asWorker(markerSubagent('hello')));
 * ```
 */
export function asWorker(subagent: Subagent): DelegateFn {
  return async (d) => {
    await subagent.run(`Replace the TODO(agent) marker at ${d.target}`, d.owned_files);
    const file_baseline = await advanceBaseline(d.file_baseline, d.owned_files);
    return handoffFor(d, { files_changed: [...d.owned_files], file_baseline });
  };
}

/**
 * One delegation, as the example reports it.
 *
 * @example
 * ```ts
 * report.honest; // { outcome: 'accepted', status: 'solved', cite: '…#1', violations: [], detail: null }
 * ```
 */
export interface DelegationSummary {
  readonly outcome: DelegateResult['outcome'];
  readonly status: string;
  readonly cite: string | null;
  readonly violations: readonly string[];
  readonly detail: string | null;
}

/**
 * What the example did.
 *
 * @example
 * ```ts
 * const report: ExampleReport = await runDelegateExample(dir, subagents);
 * ```
 */
export interface ExampleReport {
  readonly honest: DelegationSummary;
  readonly overreach: DelegationSummary;
  /** The rerun guard on relaunching the refused task with no new evidence. */
  readonly relaunch: { readonly allowed: boolean; readonly reason: string };
  /** The honest run, loaded back from the store through its cite. */
  readonly inspected: { readonly run_id: string; readonly events: readonly string[]; readonly cited: string };
}

function summary(r: DelegateResult): DelegationSummary {
  return {
    outcome: r.outcome,
    status: r.handoff.status,
    cite: r.cite ?? null,
    violations: r.violations.map((v) => v.check),
    detail: r.handoff.stop_detail,
  };
}

/**
 * Runs the example in `projectRoot` (a project with `src/greeting.ts` and `src/farewell.ts`,
 * see `createDemoProject`), with the two subagents given.
 *
 * @example
 * ```ts
 * const report = await runDelegateExample('/tmp/app', { honest: markerSubagent('hello'), overreaching });
 * report.honest.outcome; // 'accepted'
 * ```
 */
export async function runDelegateExample(
  projectRoot: string,
  subagents: { readonly honest: Subagent; readonly overreaching: Subagent },
): Promise<ExampleReport> {
  const store = createFsStore({ projectRoot });
  try {
    const task = { scope: 'file', mode: 'autoprove', cwd: projectRoot } as const;
    const options = { store, projectRoot, timeoutMs: 60_000 };

    // 1. one subagent call, checked and journaled
    const greeting = await createDispatch({
      ...task,
      target: 'src/greeting.ts:1',
      ownedFiles: ['src/greeting.ts'],
    });
    const honest = await delegate(greeting, asWorker(subagents.honest), options);

    // 2. a subagent that edits a file it was not given: refused, its edit of farewell.ts put back
    const farewell = await createDispatch({
      ...task,
      target: 'src/farewell.ts:1',
      ownedFiles: ['src/farewell.ts'],
    });
    const overreach = await delegate(farewell, asWorker(subagents.overreaching), options);

    // 3. the same task again, with nothing new: the rerun guard says no
    const again = await createDispatch({
      ...task,
      target: 'src/farewell.ts:1',
      ownedFiles: ['src/farewell.ts'],
    });
    const relaunch = canRelaunch(again, overreach.handoff);

    // 4. inspect: the honest run, back from the store through its cite
    const cite = honest.cite ?? '';
    const runId = cite.split('#')[0] ?? '';
    const load = await store.load(runId);
    if (!load.ok) throw new Error(`the run ${runId} cannot be loaded: ${load.detail}`);
    const cited = resolveCite(load.value, cite);
    return {
      honest: summary(honest),
      overreach: summary(overreach),
      relaunch: { allowed: relaunch.allowed, reason: relaunch.reason },
      inspected: {
        run_id: runId,
        events: load.value.events.map((e) => `#${e.seq} ${e.kind}`),
        cited:
          cited.ok && cited.kind === 'event'
            ? `${cited.event.kind} ${String((cited.event.payload as { status?: unknown }).status)}`
            : 'unresolved',
      },
    };
  } finally {
    store.close();
  }
}
