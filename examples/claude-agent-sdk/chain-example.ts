/**
 * The chain half: a trip chain (intent → route → book) whose route stage is a Claude subagent
 * adapted with `claudeStage`. The first subagent answers a departure later than the travel
 * policy allows and the seam stops the chain at route; the retry from the checkpoint asks again
 * under the same stage_run_id and the chain is accepted.
 */

import { createChain, createTaskContract, factRule, isSeamError, stageDelta } from 'handoff-runtime/chain';
import { type ClaudeQuery, claudeStage, stagePrompt } from 'handoff-runtime/claude-agent-sdk';
import { z } from 'zod';

/**
 * What the chain half reports.
 *
 * @example
 * ```ts
 * const r: ChainReport = await runChainExample(() => query);
 * ```
 */
export interface ChainReport {
  readonly first: {
    readonly code: string;
    readonly stage: string;
    readonly detail: string;
    readonly revision: number;
  };
  readonly retry: { readonly decision: string; readonly revision: number; readonly depart_by: unknown };
  /** The stage_run_id the subagent was given, per attempt (the same: the idempotency key). */
  readonly stage_run_ids: readonly string[];
}

/**
 * Runs the chain with the route subagent `routeQuery(attempt)` (attempt 0, then 1 for the retry).
 *
 * @example
 * ```ts
 * await runChainExample((attempt) => (attempt === 0 ? lateQuery : goodQuery));
 * ```
 */
export async function runChainExample(routeQuery: (attempt: number) => ClaudeQuery): Promise<ChainReport> {
  const stageRunIds: string[] = [];
  const build = (attempt: number) =>
    createChain({
      chain_id: 'trip',
      contract: createTaskContract({
        contract_id: 'trip',
        version: 1,
        objective: 'be in Shanghai tomorrow afternoon',
        output_schema: 'booking/v1',
        accountable_owner: 'travel-desk',
        budget: { max_attempts: 2 },
      }),
      initial_keys: ['request_id'],
      stages: [
        {
          spec: { name: 'intent', requires: ['request_id'], provides: ['city', 'latest_departure'] },
          run: () =>
            stageDelta({
              city: { value: 'Shanghai', evidence: ['chat://request/1'] },
              latest_departure: { value: '20:00', evidence: ['policy://travel/v3'] },
            }),
        },
        {
          spec: { name: 'route', requires: ['city', 'latest_departure'], provides: ['depart_by'] },
          run: claudeStage({
            query: routeQuery(attempt),
            prompt: stagePrompt({
              task: 'Pick the departure time (HH:MM) for the trip.',
              provides: ['depart_by'],
            }),
            options: { model: 'haiku', maxTurns: 2, tools: [] }, // no tools: it only answers
            onRun: (_run, view) => stageRunIds.push(view.stage_run_id),
          }),
        },
        {
          spec: { name: 'book', requires: ['depart_by'], provides: ['booking_id'] },
          run: (view) =>
            stageDelta({
              booking_id: { value: `bk-${String(view.facts.depart_by)}`, evidence: ['rail://booking'] },
            }),
        },
      ],
      rules: [
        factRule({ key: 'request_id', producer_stage: '__input__', type: z.string() }),
        factRule({ key: 'city', producer_stage: 'intent', type: z.string() }),
        factRule({ key: 'latest_departure', producer_stage: 'intent', type: z.string() }),
        factRule({
          key: 'depart_by',
          producer_stage: 'route',
          type: z.string().regex(/^\d\d:\d\d$/),
          validator: (v, view) =>
            v <= String(view.facts.latest_departure)
              ? null
              : `departure ${v} is after the policy's latest departure`,
        }),
        factRule({ key: 'booking_id', producer_stage: 'book', type: z.string() }),
      ],
    });
  const chain = build(0);
  const b0 = chain.newBaton({
    baton_id: 'trip-1',
    intent: 'be in Shanghai tomorrow afternoon',
    facts: { request_id: { value: 'req-7', evidence: ['chat://request/0'] } },
  });
  try {
    await chain.run(b0);
    throw new Error('the late departure was expected to stop the chain');
  } catch (e) {
    if (!isSeamError(e)) throw e;
    const retried = await build(1).run(e.checkpoint);
    return {
      first: { code: e.code, stage: e.stage, detail: e.detail, revision: e.checkpoint.revision },
      retry: {
        decision: retried.acceptance.decision,
        revision: retried.baton.revision,
        depart_by: retried.baton.records.find((r) => r.key === 'depart_by')?.value,
      },
      stage_run_ids: stageRunIds,
    };
  }
}
