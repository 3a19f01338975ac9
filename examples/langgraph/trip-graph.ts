/**
 * Pattern 2: a handoff chain as a linear LangGraph graph. Three specialist stages — intent, route,
 * pay — are the nodes; between every two nodes the seam checks the stage's delta against the
 * contract and commits the new baton to the run store before the next node runs. The route
 * specialist's service fails once; the graph retries it from the checkpoint under the same
 * `stage_run_id`, in the same journaled run.
 */
import {
  createChain,
  createTaskContract,
  type FsStore,
  factRule,
  type HandoffChain,
  stageDelta,
} from 'handoff-runtime';
import { createStoreChainJournal } from 'handoff-runtime/chain';
import { type ChainGraphOutcome, chainGraph, chainGraphOutcome } from 'handoff-runtime/langgraph';
import { z } from 'zod';

/**
 * The trip chain; `routeService` is the route specialist's call (it may throw).
 *
 * @example
 * ```ts
 * const chain = tripChain(async () => '18:00');
 * ```
 */
export function tripChain(routeService: (city: string) => Promise<string>): HandoffChain {
  return createChain({
    chain_id: 'trip',
    contract: createTaskContract({
      contract_id: 'trip',
      version: 1,
      objective: 'be in Shanghai tomorrow afternoon',
      output_schema: 'trip-booking/v1',
      accountable_owner: 'travel-desk',
      budget: { max_attempts: 3 },
    }),
    initial_keys: ['request_id'],
    stages: [
      {
        spec: { name: 'intent', provides: ['city', 'latest'] },
        run: () =>
          stageDelta({
            city: { value: 'Shanghai', evidence: ['chat://msg/1'] },
            latest: { value: '20:00', evidence: ['policy://travel/v3'] },
          }),
      },
      {
        spec: { name: 'route', requires: ['city', 'latest'], provides: ['depart_by'] },
        run: async (view) =>
          stageDelta({
            depart_by: { value: await routeService(String(view.facts.city)), evidence: ['maps://route/42'] },
          }),
      },
      {
        spec: { name: 'pay', requires: ['depart_by'], provides: ['payment_id'] },
        // the idempotency key of the payment is the stage's run id: a retry pays once
        run: (view) =>
          stageDelta({ payment_id: { value: `pay:${view.stage_run_id}`, evidence: ['bank://tx/1'] } }),
      },
    ],
    rules: [
      factRule({ key: 'request_id', producer_stage: '__input__', type: z.string().min(1) }),
      factRule({ key: 'city', producer_stage: 'intent', type: z.string() }),
      factRule({ key: 'latest', producer_stage: 'intent', type: z.string().regex(/^\d\d:\d\d$/) }),
      factRule({
        key: 'depart_by',
        producer_stage: 'route',
        type: z.string().regex(/^\d\d:\d\d$/),
        validator: (v, view) =>
          v <= String(view.facts.latest) ? null : `departure ${v} is after the policy's latest`,
        describe: 'departure within the travel policy',
      }),
      factRule({ key: 'payment_id', producer_stage: 'pay', type: z.string() }),
    ],
  });
}

/**
 * What the trip graph did: the outcome, the run it journaled to, the retries it made.
 *
 * @example
 * ```ts
 * const r: TripReport = await runTripGraph(store);
 * ```
 */
export interface TripReport {
  readonly outcome: ChainGraphOutcome;
  readonly run_id: string | null;
  /** `<code> <stage> (<stage_run_id>): <detail>` of every failure that was retried. */
  readonly retried: readonly string[];
}

/**
 * Runs the trip chain as a graph, journaled to `store`; the route service fails on its first call.
 *
 * @example
 * ```ts
 * const report = await runTripGraph(createFsStore({ projectRoot: '/tmp/app' }));
 * report.outcome.status; // 'accepted'
 * ```
 */
export async function runTripGraph(store: FsStore): Promise<TripReport> {
  let calls = 0;
  const chain = tripChain(async () => {
    calls += 1;
    if (calls === 1) throw new Error('the maps service answered 503');
    return '18:00';
  });
  const journal = createStoreChainJournal(store, chain, { discover: false });
  const retried: string[] = [];
  const graph = chainGraph(chain, {
    journal,
    retryWhen: (f) => {
      retried.push(`${f.code} ${f.stage} (${f.stage_run_id ?? '-'}): ${f.detail}`);
      return f.code === 'stage_failed';
    },
  }).compile();
  const baton = chain.newBaton({
    baton_id: 'trip-1',
    intent: 'be in Shanghai tomorrow afternoon',
    facts: { request_id: { value: 'req-7', evidence: ['chat://msg/0'] } },
  });
  const final = await graph.invoke({ baton });
  return { outcome: chainGraphOutcome(final), run_id: journal.runOf('trip-1') ?? null, retried };
}
