/**
 * `gate` — the gate protocol lifecycle (seed 001, spec gate-protocol.md):
 * provisional → collecting → checking → evaluating → routing → (reserving → continuing →
 * validating) → leadReview, with blocked → … → assessingBlocked → routing, and `stopped`.
 * Every path ends at the lead: both final states hand the lead packet over. Actors are declared
 * here and provided by the shell (src/gate/gate-runner.ts); guards call pure rules in src/gate.
 */
import { assign, fromPromise, setup } from 'xstate';
import {
  type GateLifecycleContext,
  type GateLifecycleInput,
  grantAcceptable,
  initialLifecycleContext,
  mayReserve,
} from '../src/gate/lifecycle.js';
import type {
  AssessOutput,
  CheckOutput,
  CollectOutput,
  ContinueOutput,
  GateActorInput,
  GateMachineOutput,
  ReserveOutput,
  RouteOutput,
  ValidateOutput,
} from '../src/gate/lifecycle-actors.js';
import {
  afterOrdinaryRepair,
  exactFailed,
  exactStop,
  gateOutput,
  handOver,
  markBlocked,
  nextRound,
  recordAssessment,
  recordAssessmentFailure,
  recordExact,
  recordFailure,
  recordGrant,
  recordHardStop,
  recordPacket,
  recordRefusal,
  recordRoute,
  routeStops,
} from '../src/gate/lifecycle-reducers.js';

export type {
  AssessOutput,
  CheckOutput,
  CollectOutput,
  ContinueOutput,
  GateActorInput,
  GateMachineOutput,
  ReserveOutput,
  RouteOutput,
  ValidateOutput,
} from '../src/gate/lifecycle-actors.js';
export { gateOutput } from '../src/gate/lifecycle-reducers.js';

/** The gate machine's input (the problem, its continuation profile and the slots already used). */
export type GateMachineInput = GateLifecycleInput;
/** The gate machine's context. */
export type GateMachineContext = GateLifecycleContext;

/** Events the gate machine accepts from outside (besides actor completions). */
export type GateEvent =
  | { type: 'WORKER.PROVISIONAL' }
  | { type: 'WORKER.BLOCKED' }
  | { type: 'HARD_STOP'; reason: string };

function notProvided(name: string) {
  return async (): Promise<never> => {
    throw new Error(`gate machine actor '${name}' was not provided`);
  };
}

const toInput = ({ context }: { context: GateLifecycleContext }): GateActorInput => ({ context });

/**
 * The gate machine. Provide its actors with `gateMachine.provide({ actors: { … } })`.
 *
 * @example
 * ```ts
 * const actor = createActor(gateMachine.provide({ actors }), { input: { problem_id: 'p1' } });
 * actor.start(); actor.send({ type: 'WORKER.PROVISIONAL' });
 * const { outcome, notes } = await toPromise(actor); // GateMachineOutput
 * ```
 */
export const gateMachine = setup({
  types: {
    context: {} as GateLifecycleContext,
    input: {} as GateLifecycleInput,
    events: {} as GateEvent,
    output: {} as GateMachineOutput,
  },
  actors: {
    collect: fromPromise<CollectOutput, GateActorInput>(notProvided('collect')),
    check: fromPromise<CheckOutput, GateActorInput>(notProvided('check')),
    evaluate: fromPromise<AssessOutput, GateActorInput>(notProvided('evaluate')),
    assessBlocked: fromPromise<AssessOutput, GateActorInput>(notProvided('assessBlocked')),
    route: fromPromise<RouteOutput, GateActorInput>(notProvided('route')),
    reserve: fromPromise<ReserveOutput, GateActorInput>(notProvided('reserve')),
    continueWork: fromPromise<ContinueOutput, GateActorInput>(notProvided('continueWork')),
    validate: fromPromise<ValidateOutput, GateActorInput>(notProvided('validate')),
  },
  guards: {
    exactStop: (_, out: CheckOutput) => exactStop(out),
    exactFailed: (_, out: CheckOutput) => exactFailed(out),
    blockedMode: ({ context }) => context.mode === 'blocked',
    routeStop: ({ context }, out: RouteOutput) => routeStops(context, out),
    mayReserve: ({ context }, out: RouteOutput) => mayReserve({ ...context, route: out.route }),
    grantAcceptable: ({ context }, out: ReserveOutput) => grantAcceptable(context, out),
    afterOrdinaryRepair: ({ context }) => afterOrdinaryRepair(context),
  },
  actions: {
    markBlocked: assign(() => markBlocked()),
    recordPacket: assign((_, out: CollectOutput) => recordPacket(out)),
    recordExact: assign((_, out: CheckOutput) => recordExact(out)),
    recordAssessment: assign((_, out: AssessOutput) => recordAssessment(out)),
    recordAssessmentFailure: assign(({ context }) => recordAssessmentFailure(context)),
    recordRoute: assign((_, out: RouteOutput) => recordRoute(out)),
    recordGrant: assign(({ context }, out: ReserveOutput) => recordGrant(context, out)),
    recordRefusal: assign(({ context }, out: ReserveOutput) => recordRefusal(context, out)),
    nextRound: assign(({ context }, out: ContinueOutput) => nextRound(context, out)),
    recordFailure: assign(({ context }, note: string) => recordFailure(context, note)),
    recordHardStop: assign(({ context }, reason: string) => recordHardStop(context, reason)),
    handToLead: assign(({ context }) => handOver(context, 'lead-review')),
    handStopToLead: assign(({ context }) => handOver(context, 'stopped')),
  },
}).createMachine({
  id: 'gate',
  context: ({ input }) => initialLifecycleContext(input),
  initial: 'provisional',
  output: ({ context }) => gateOutput(context),
  on: {
    HARD_STOP: {
      target: '.stopped',
      actions: { type: 'recordHardStop', params: ({ event }) => event.reason },
    },
  },
  states: {
    provisional: {
      description:
        'The worker has reported: WORKER.PROVISIONAL assesses its result, WORKER.BLOCKED its BLOCKED report (HARD_STOP from any state ends at stopped).',
      on: {
        'WORKER.PROVISIONAL': { target: 'collecting' },
        'WORKER.BLOCKED': { target: 'blocked' },
      },
    },
    blocked: {
      description: 'Marks the round as a BLOCKED report, then collects its evidence.',
      entry: 'markBlocked',
      always: { target: 'collecting' },
    },
    collecting: {
      description: 'The evidence collector stores the packet of the round; a failure hands over to the lead.',
      invoke: {
        id: 'collect',
        src: 'collect',
        input: toInput,
        onDone: {
          target: 'checking',
          actions: { type: 'recordPacket', params: ({ event }) => event.output },
        },
        onError: {
          target: 'leadReview',
          actions: { type: 'recordFailure', params: 'evidence collection failed' },
        },
      },
    },
    checking: {
      description:
        'The exact checks run: a stop code stops, a failure routes without the evaluator, a BLOCKED round is assessed, else evaluated.',
      invoke: {
        id: 'check',
        src: 'check',
        input: toInput,
        onDone: [
          {
            guard: { type: 'exactStop', params: ({ event }) => event.output },
            target: 'stopped',
            actions: { type: 'recordExact', params: ({ event }) => event.output },
          },
          {
            guard: { type: 'exactFailed', params: ({ event }) => event.output },
            target: 'routing',
            actions: { type: 'recordExact', params: ({ event }) => event.output },
          },
          {
            guard: 'blockedMode',
            target: 'assessingBlocked',
            actions: { type: 'recordExact', params: ({ event }) => event.output },
          },
          { target: 'evaluating', actions: { type: 'recordExact', params: ({ event }) => event.output } },
        ],
        onError: {
          target: 'leadReview',
          actions: { type: 'recordFailure', params: 'exact checks failed to run' },
        },
      },
    },
    evaluating: {
      description:
        'The evaluator assesses the provisional result; a failure counts as NOT_EVALUATED (never reserves) and routes.',
      invoke: {
        id: 'evaluate',
        src: 'evaluate',
        input: toInput,
        onDone: {
          target: 'routing',
          actions: { type: 'recordAssessment', params: ({ event }) => event.output },
        },
        onError: { target: 'routing', actions: 'recordAssessmentFailure' },
      },
    },
    assessingBlocked: {
      description:
        'The evaluator assesses the BLOCKED report; a failure counts as NOT_EVALUATED (never reserves) and routes.',
      invoke: {
        id: 'assessBlocked',
        src: 'assessBlocked',
        input: toInput,
        onDone: {
          target: 'routing',
          actions: { type: 'recordAssessment', params: ({ event }) => event.output },
        },
        onError: { target: 'routing', actions: 'recordAssessmentFailure' },
      },
    },
    routing: {
      description:
        'The route is chosen: STOP or a hard stop stops, a continuation-eligible route within the profile reserves, anything else goes to the lead.',
      invoke: {
        id: 'route',
        src: 'route',
        input: toInput,
        onDone: [
          {
            guard: { type: 'routeStop', params: ({ event }) => event.output },
            target: 'stopped',
            actions: { type: 'recordRoute', params: ({ event }) => event.output },
          },
          {
            guard: { type: 'mayReserve', params: ({ event }) => event.output },
            target: 'reserving',
            actions: { type: 'recordRoute', params: ({ event }) => event.output },
          },
          { target: 'leadReview', actions: { type: 'recordRoute', params: ({ event }) => event.output } },
        ],
        onError: { target: 'leadReview', actions: { type: 'recordFailure', params: 'routing failed' } },
      },
    },
    reserving: {
      description:
        'The ledger is asked for the next slot; an acceptable grant continues, a refusal or a grant beyond the profile goes to the lead.',
      invoke: {
        id: 'reserve',
        src: 'reserve',
        input: toInput,
        onDone: [
          {
            guard: { type: 'grantAcceptable', params: ({ event }) => event.output },
            target: 'continuing',
            actions: { type: 'recordGrant', params: ({ event }) => event.output },
          },
          { target: 'leadReview', actions: { type: 'recordRefusal', params: ({ event }) => event.output } },
        ],
        onError: {
          target: 'leadReview',
          actions: { type: 'recordFailure', params: 'reservation failed: failing closed' },
        },
      },
    },
    continuing: {
      description:
        'The worker runs again under the grant; an uncertain outcome goes to the lead (reconciled, never replayed).',
      invoke: {
        id: 'continueWork',
        src: 'continueWork',
        input: toInput,
        onDone: { target: 'validating', actions: { type: 'nextRound', params: ({ event }) => event.output } },
        onError: {
          target: 'leadReview',
          actions: {
            type: 'recordFailure',
            params: 'continuation outcome uncertain: reconciled, not replayed',
          },
        },
      },
    },
    validating: {
      description:
        'The grant is consumed and the result validated: after the ordinary repair the gate collects again, after the gate continuation the lead reviews.',
      invoke: {
        id: 'validate',
        src: 'validate',
        input: toInput,
        onDone: [{ guard: 'afterOrdinaryRepair', target: 'collecting' }, { target: 'leadReview' }],
        onError: { target: 'leadReview', actions: { type: 'recordFailure', params: 'validation failed' } },
      },
    },
    leadReview: {
      type: 'final',
      description: 'Handed over to the lead for review: every path ends here or at stopped.',
      entry: 'handToLead',
    },
    stopped: {
      type: 'final',
      description: 'Stopped by a STOP route, an exact stop code or a hard stop; handed over to the lead.',
      entry: 'handStopToLead',
    },
  },
});

/** The gate machine's type. */
export type GateMachine = typeof gateMachine;
