/**
 * A small three-stage chain (intent → route → pay) used by the chain tests, with stage
 * implementations that can be swapped per test.
 */
import { z } from 'zod';
import {
  type ChainStage,
  createChain,
  createMemoryEffectLedger,
  createTaskContract,
  factRule,
  type HandoffChain,
  idempotentEffect,
  type StageFn,
  stageDelta,
} from '../../src/chain/index.js';

export const tripContract = createTaskContract({
  contract_id: 'trip',
  version: 1,
  objective: 'be in Shanghai tomorrow afternoon',
  output_schema: 'trip-booking/v1',
  accountable_owner: 'travel-desk',
  budget: { max_attempts: 3 },
});

export const tripRules = [
  factRule({ key: 'request_id', producer_stage: '__input__', type: z.string().min(1) }),
  factRule({ key: 'city', producer_stage: 'intent', type: z.string() }),
  factRule({
    key: 'policy',
    producer_stage: 'intent',
    type: z.strictObject({ latest_departure: z.string() }),
  }),
  factRule({
    key: 'depart_by',
    producer_stage: 'route',
    type: z.string().regex(/^\d\d:\d\d$/),
    validator: (v, view) => {
      const policy = view.facts.policy as { latest_departure: string };
      return v <= policy.latest_departure ? null : `departure ${v} is later than ${policy.latest_departure}`;
    },
    describe: 'departure within the travel policy',
  }),
  factRule({ key: 'payment_id', producer_stage: 'pay', type: z.string() }),
];

export type StageImpl = StageFn;

export interface TripStages {
  intent: StageImpl;
  route: StageImpl;
  pay: StageImpl;
}

/** Well-behaved stages; `payments` counts real side effects keyed by run id. */
export function goodStages(payments: Map<string, number> = new Map()): TripStages {
  const effects = createMemoryEffectLedger();
  return {
    intent: () =>
      stageDelta({
        city: { value: 'Shanghai', evidence: ['chat://msg/1'] },
        policy: { value: { latest_departure: '20:00' }, evidence: ['policy://travel/v3'] },
      }),
    route: () => stageDelta({ depart_by: { value: '18:00', evidence: ['maps://route/42'] } }),
    pay: async (view) => {
      const { result } = await idempotentEffect(effects, view.stage_run_id, () => {
        payments.set(view.stage_run_id, (payments.get(view.stage_run_id) ?? 0) + 1);
        return { payment_id: `pay-${payments.size}` };
      });
      return stageDelta({ payment_id: { value: result.payment_id, evidence: ['bank://tx/1'] } }, [
        'ticket://MU5101',
      ]);
    },
  };
}

/** Builds the trip chain from stage implementations. */
export function tripChain(stages: TripStages = goodStages()): HandoffChain {
  const specs: ChainStage[] = [
    { spec: { name: 'intent', requires: ['request_id'], provides: ['city', 'policy'] }, run: stages.intent },
    { spec: { name: 'route', requires: ['city', 'policy'], provides: ['depart_by'] }, run: stages.route },
    { spec: { name: 'pay', requires: ['depart_by'], provides: ['payment_id'] }, run: stages.pay },
  ];
  return createChain({
    chain_id: 'trip-chain',
    contract: tripContract,
    stages: specs,
    rules: tripRules,
    initial_keys: ['request_id'],
  });
}

/** A fresh revision-0 baton of the trip chain. */
export function tripBaton(chain: HandoffChain) {
  return chain.newBaton({
    baton_id: 'trip-1',
    intent: 'be in Shanghai tomorrow PM',
    facts: { request_id: { value: 'req-7', evidence: ['chat://msg/0'] } },
  });
}
