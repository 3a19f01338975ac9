/**
 * `gate` — the gate protocol lifecycle (seed 001, spec gate-protocol.md):
 * provisional → collecting → checking → evaluating → routing → (reserving → continuing →
 * validating) → leadReview, with blocked → … → assessingBlocked → routing, and `stopped`.
 * Every path ends at the lead: both final states hand the lead packet over. Actors are declared
 * here and provided by the shell (src/gate/gate-runner.ts); guards call pure rules in src/gate.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { Slot } from '../src/gate/grant-schema.js';
import {
  type GateLifecycleContext,
  type GateLifecycleInput,
  grantAcceptable,
  initialLifecycleContext,
  mayReserve,
} from '../src/gate/lifecycle.js';
import type { Route } from '../src/gate/route-schema.js';

/** Output of the `collect` actor. */
export interface CollectOutput {
  readonly packet_id: string;
}
/** Output of the `check` actor. */
export interface CheckOutput {
  readonly ok: boolean;
  readonly stop: boolean;
  readonly codes: readonly string[];
}
/** Output of the `evaluate` and `assessBlocked` actors. */
export interface AssessOutput {
  readonly assessment_id: string;
  readonly status: 'EVALUATED' | 'NOT_EVALUATED' | 'INVALID';
}
/** Output of the `route` actor. */
export interface RouteOutput {
  readonly route_id: string;
  readonly route: Route;
}
/** Output of the `reserve` actor. */
export interface ReserveOutput {
  readonly outcome: 'granted' | 'replayed' | 'refused';
  readonly grant_id: string | null;
  readonly slot: Slot | null;
  readonly reason: string | null;
}
/** Output of the `continue` actor (the worker ran again under the grant). */
export interface ContinueOutput {
  readonly worker_status: 'provisional' | 'blocked';
}
/** Output of the `validate` actor (grant consumed, result validated). */
export interface ValidateOutput {
  readonly consumed: boolean;
}

/** Inputs the actors receive (ids from the context; records are resolved by the shell). */
export interface GateActorInput {
  readonly context: GateLifecycleContext;
}

/** The gate machine's input (the problem, its continuation profile and the slots already used). */
export type GateMachineInput = GateLifecycleInput;
/** The gate machine's context. */
export type GateMachineContext = GateLifecycleContext;

/**
 * What the gate machine ends with (its `output`, the value `toPromise(actor)` resolves to): which
 * final state handed over to the lead, and the notes recorded on the way (actor failures, refused
 * reservations, a hard stop). The records themselves (packets, assessments, routes, grants) are
 * the shell's: the machine only holds their ids.
 */
export interface GateMachineOutput {
  /** `lead-review` (leadReview) or `stopped` (stopped). */
  readonly outcome: 'lead-review' | 'stopped';
  readonly notes: readonly string[];
}

/**
 * The gate machine's output from a final context.
 *
 * @example
 * ```ts
 * gateOutput(actor.getSnapshot().context).outcome; // 'lead-review'
 * ```
 */
export function gateOutput(context: GateLifecycleContext): GateMachineOutput {
  return { outcome: context.outcome ?? 'lead-review', notes: context.notes };
}

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
    exactStop: (_, out: CheckOutput) => out.stop,
    exactFailed: (_, out: CheckOutput) => !out.ok,
    blockedMode: ({ context }) => context.mode === 'blocked',
    routeStop: ({ context }, out: RouteOutput) => out.route === 'STOP' || context.hard_stop !== null,
    mayReserve: ({ context }, out: RouteOutput) => mayReserve({ ...context, route: out.route }),
    grantAcceptable: ({ context }, out: ReserveOutput) => grantAcceptable(context, out),
    afterOrdinaryRepair: ({ context }) => context.grant?.slot === 'ordinary-repair',
  },
  actions: {
    markBlocked: assign({ mode: 'blocked' as const }),
    recordPacket: assign({ packet_id: (_, out: CollectOutput) => out.packet_id }),
    recordExact: assign({
      exact: (_, out: CheckOutput) => ({ ok: out.ok, stop: out.stop, codes: [...out.codes] }),
    }),
    recordAssessment: assign({
      assessment: (_, out: AssessOutput) => ({ assessment_id: out.assessment_id, status: out.status }),
    }),
    recordAssessmentFailure: assign({
      assessment: () => ({ assessment_id: 'none', status: 'NOT_EVALUATED' }),
      notes: ({ context }) => [...context.notes, 'assessment actor failed: recorded as NOT_EVALUATED'],
    }),
    recordRoute: assign({ route: (_, out: RouteOutput) => out.route }),
    recordGrant: assign(({ context }, out: ReserveOutput) => {
      // taken only after grantAcceptable, which requires both; nothing is recorded otherwise
      if (out.grant_id === null || out.slot === null) return {};
      const grant: { grant_id: string; slot: Slot } = { grant_id: out.grant_id, slot: out.slot };
      return {
        grant,
        grants: [...context.grants, grant],
        ordinary_repairs_used: context.ordinary_repairs_used + (grant.slot === 'ordinary-repair' ? 1 : 0),
        gate_continuations_used:
          context.gate_continuations_used + (grant.slot === 'gate-continuation' ? 1 : 0),
      };
    }),
    recordRefusal: assign({
      notes: ({ context }, out: ReserveOutput) => [
        ...context.notes,
        out.outcome === 'refused'
          ? `reservation refused: ${out.reason ?? 'no reason given'}`
          : `reservation ${out.outcome} grant ${out.grant_id ?? '?'} (${out.slot ?? '?'}): not acted on again, beyond the profile`,
      ],
    }),
    nextRound: assign(({ context }, out: ContinueOutput) => ({
      mode: out.worker_status,
      round: context.round + 1,
      packet_id: null,
      exact: null,
      assessment: null,
      route: null,
    })),
    recordFailure: assign({
      notes: ({ context }, note: string) => [...context.notes, note],
    }),
    recordHardStop: assign({
      hard_stop: (_, reason: string) => reason,
      notes: ({ context }, reason: string) => [...context.notes, `hard stop: ${reason}`],
    }),
    handToLead: assign({
      lead_handoffs: ({ context }) => context.lead_handoffs + 1,
      outcome: 'lead-review' as const,
    }),
    handStopToLead: assign({
      lead_handoffs: ({ context }) => context.lead_handoffs + 1,
      outcome: 'stopped' as const,
    }),
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
      on: {
        'WORKER.PROVISIONAL': { target: 'collecting' },
        'WORKER.BLOCKED': { target: 'blocked' },
      },
    },
    blocked: {
      entry: 'markBlocked',
      always: { target: 'collecting' },
    },
    collecting: {
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
      invoke: {
        id: 'validate',
        src: 'validate',
        input: toInput,
        onDone: [{ guard: 'afterOrdinaryRepair', target: 'collecting' }, { target: 'leadReview' }],
        onError: { target: 'leadReview', actions: { type: 'recordFailure', params: 'validation failed' } },
      },
    },
    leadReview: { type: 'final', entry: 'handToLead' },
    stopped: { type: 'final', entry: 'handStopToLead' },
  },
});

/** The gate machine's type. */
export type GateMachine = typeof gateMachine;
