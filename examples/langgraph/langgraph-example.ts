/**
 * handoff-runtime/langgraph in one program: a delegating node routed by its verdict (an honest
 * subagent ships, an overreaching one goes to triage with its edit put back), then a handoff chain
 * run as a linear graph whose every edge commits a baton to the run store.
 */
import { createFsStore } from 'handoff-runtime';
import { type FixSummary, fixGraph, summarize } from './fix-graph.js';
import type { Subagent } from './subagent.js';
import { runTripGraph, type TripReport } from './trip-graph.js';

/**
 * What the example did.
 *
 * @example
 * ```ts
 * const report: LangGraphExampleReport = await runLangGraphExample(dir, subagents);
 * ```
 */
export interface LangGraphExampleReport {
  readonly honest: FixSummary;
  readonly overreach: FixSummary;
  readonly trip: TripReport;
}

/**
 * Runs both patterns in `projectRoot` (see `createDemoProject`), journaling to its run store.
 *
 * @example
 * ```ts
 * const report = await runLangGraphExample('/tmp/app', { honest: markerSubagent('hello'), overreaching });
 * report.honest.path; // ['ship']
 * ```
 */
export async function runLangGraphExample(
  projectRoot: string,
  subagents: { readonly honest: Subagent; readonly overreaching: Subagent },
): Promise<LangGraphExampleReport> {
  const store = createFsStore({ projectRoot });
  try {
    const honest = await fixGraph({
      projectRoot,
      file: 'src/greeting.ts',
      subagent: subagents.honest,
      store,
    }).invoke({ request: 'fill in the greeting' });
    const overreach = await fixGraph({
      projectRoot,
      file: 'src/farewell.ts',
      subagent: subagents.overreaching,
      store,
    }).invoke({ request: 'fill in the farewell' });
    const trip = await runTripGraph(store);
    return { honest: summarize(honest), overreach: summarize(overreach), trip };
  } finally {
    store.close();
  }
}
