/**
 * One checked handoff (`delegate` and the framework adapters) as an xstate v5 machine:
 * dispatch (journaled first) → prepare (the before-snapshot) → work (the worker) → check (custody,
 * fence, record; a refusal puts back what the worker touched) → journal (the one handoff, written
 * ahead of the settle) → settled | refused | failed; an accepted handoff the store refuses to record
 * is not accepted (unrecorded: the owned files go back, and the delegation fails).
 *
 * Guards and actions are named and call the pure reducers of `src/delegate/delegation-reducers.ts`
 * (the settle rules themselves, `src/delegate/settle-rules.ts`, run inside the `check` actor);
 * actor outputs and errors reach them as typed `params`. The six actors are declared here and
 * provided by the host (`src/delegate/delegate.ts`): `journalDispatch` (the run's manifest),
 * `prepare` (drift check and the before-snapshot), `runWorker` (the worker under its time budget),
 * `check` (every check of `DELEGATE_CHECKS`, the restore of a refusal, the settle rules) and
 * `journalHandoff` (the handoff event, carrying this machine's transition trace) and `restoreOwned`
 * (the owned files' pre-dispatch bytes back, for an acceptance the journal refused).
 */
import { assign, fromPromise, setup } from 'xstate';
import {
  acceptanceUnrecorded,
  type CheckInput,
  type DelegationMachineContext,
  type DelegationMachineInput,
  type DelegationMachineOutput,
  delegationOutput,
  dispatchJournaled,
  initialDelegationContext,
  type JournalDispatchOutput,
  type JournalHandoffInput,
  type JournalHandoffOutput,
  journalInput,
  type PrepareInput,
  type PrepareOutput,
  prepared,
  prepareOutcome,
  type RestoreOwnedInput,
  type RunWorkerInput,
  recordAttempt,
  recordCheckCrash,
  recordDispatchCrash,
  recordDispatchRefused,
  recordJournal,
  recordJournalCrash,
  recordPrepared,
  recordResult,
  recordRun,
  recordUnrecorded,
  recordUnrecordedCrash,
  recordWorkerCrash,
  resultSettlesAs,
  settlesAs,
} from '../src/delegate/delegation-reducers.js';
import type { Attempt, CheckResult } from '../src/delegate/settle-rules.js';

export {
  type CheckInput as DelegationCheckInput,
  type DelegationMachineContext,
  type DelegationMachineInput,
  type DelegationMachineOutput,
  initialDelegationContext,
  type JournalDispatchOutput,
  type JournalHandoffInput,
  type JournalHandoffOutput,
  type PrepareInput as DelegationPrepareInput,
  type PrepareOutput as DelegationPrepareOutput,
  type RestoreOwnedInput,
  type RunWorkerInput as DelegationWorkerInput,
} from '../src/delegate/delegation-reducers.js';

function declared<O, I>(name: string) {
  return fromPromise<O, I>(async () => {
    throw new Error(`delegation actor '${name}' was not provided (use machine.provide or delegate)`);
  });
}

/**
 * The delegation machine.
 *
 * @example
 * ```ts
 * const actor = createActor(
 *   delegationMachine.provide({ actors: { journalDispatch, prepare, runWorker, check, journalHandoff } }),
 *   { input: { dispatch }, inspect: trace.inspect },
 * );
 * actor.start();
 * ```
 */
export const delegationMachine = setup({
  types: {
    context: {} as DelegationMachineContext,
    input: {} as DelegationMachineInput,
    output: {} as DelegationMachineOutput,
  },
  actors: {
    journalDispatch: declared<JournalDispatchOutput, { dispatch: DelegationMachineInput['dispatch'] }>(
      'journalDispatch',
    ),
    prepare: declared<PrepareOutput, PrepareInput>('prepare'),
    runWorker: declared<Attempt, RunWorkerInput>('runWorker'),
    check: declared<CheckResult, CheckInput>('check'),
    journalHandoff: declared<JournalHandoffOutput, JournalHandoffInput>('journalHandoff'),
    restoreOwned: declared<readonly string[], RestoreOwnedInput>('restoreOwned'),
  },
  guards: {
    dispatchJournaled: (_, out: JournalDispatchOutput) => dispatchJournaled(out),
    prepared: (_, out: PrepareOutput) => prepared(out),
    prepareRefused: (_, out: PrepareOutput) => prepareOutcome(out) === 'refused',
    acceptedResult: (_, result: CheckResult) => resultSettlesAs(result, 'accepted'),
    refusedResult: (_, result: CheckResult) => resultSettlesAs(result, 'refused'),
    accepted: ({ context }) => settlesAs(context, 'accepted'),
    acceptanceUnrecorded: ({ context }, out: JournalHandoffOutput) => acceptanceUnrecorded(context, out),
    refused: ({ context }) => settlesAs(context, 'refused'),
  },
  actions: {
    recordRun: assign(({ context }, out: JournalDispatchOutput) => recordRun(context, out)),
    recordDispatchRefused: assign(({ context }, out: JournalDispatchOutput) =>
      recordDispatchRefused(context, out),
    ),
    recordDispatchCrash: assign(({ context }, failed: { error: unknown }) =>
      recordDispatchCrash(context, failed.error),
    ),
    recordPrepared: assign(({ context }, out: PrepareOutput) => recordPrepared(context, out)),
    recordAttempt: assign(({ context }, attempt: Attempt) => recordAttempt(context, attempt)),
    recordWorkerCrash: assign(({ context }, failed: { error: unknown }) =>
      recordWorkerCrash(context, failed.error),
    ),
    recordResult: assign(({ context }, result: CheckResult) => recordResult(context, result)),
    recordCheckCrash: assign(({ context }, failed: { error: unknown }) =>
      recordCheckCrash(context, failed.error),
    ),
    recordJournal: assign(({ context }, out: JournalHandoffOutput) => recordJournal(context, out)),
    recordUnrecorded: assign(({ context }, p: { notes: readonly string[] }) =>
      recordUnrecorded(context, p.notes),
    ),
    recordUnrecordedCrash: assign(({ context }, failed: { error: unknown }) =>
      recordUnrecordedCrash(context, failed.error),
    ),
    recordJournalCrash: assign(({ context }, failed: { error: unknown }) =>
      recordJournalCrash(context, failed.error),
    ),
  },
}).createMachine({
  id: 'delegation',
  context: ({ input }) => initialDelegationContext(input),
  initial: 'dispatch',
  output: ({ context }) => delegationOutput(context),
  states: {
    dispatch: {
      description:
        'The dispatch becomes the run’s manifest before anything else happens; a store that refuses it ends the delegation before the worker runs.',
      invoke: {
        id: 'journalDispatch',
        src: 'journalDispatch',
        input: ({ context }) => ({ dispatch: context.dispatch }),
        onDone: [
          {
            guard: { type: 'dispatchJournaled', params: ({ event }) => event.output },
            target: 'prepare',
            actions: { type: 'recordRun', params: ({ event }) => event.output },
          },
          {
            target: 'failed',
            actions: { type: 'recordDispatchRefused', params: ({ event }) => event.output },
          },
        ],
        onError: {
          target: 'failed',
          actions: { type: 'recordDispatchCrash', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    prepare: {
      description:
        'The owned files are checked against the dispatch’s baseline (external drift) and the before-snapshot is taken: owned bytes, declaration headers, the watched project, git and store zones.',
      invoke: {
        id: 'prepare',
        src: 'prepare',
        input: ({ context }) => ({ dispatch: context.dispatch }),
        onDone: [
          {
            guard: { type: 'prepared', params: ({ event }) => event.output },
            target: 'work',
            actions: { type: 'recordPrepared', params: ({ event }) => event.output },
          },
          {
            guard: { type: 'prepareRefused', params: ({ event }) => event.output },
            target: '#delegation.journal.refused',
            actions: { type: 'recordPrepared', params: ({ event }) => event.output },
          },
          {
            target: '#delegation.journal.failed',
            actions: { type: 'recordPrepared', params: ({ event }) => event.output },
          },
        ],
        onError: {
          target: '#delegation.journal.failed',
          actions: { type: 'recordCheckCrash', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    work: {
      description:
        'The worker runs on the frozen dispatch under the time budget and the host’s signal; its answer is read once, or its failure (threw, timed out, aborted) recorded.',
      invoke: {
        id: 'worker',
        src: 'runWorker',
        input: ({ context }) => ({ dispatch: context.dispatch, held: context.held }),
        onDone: {
          target: 'check',
          actions: { type: 'recordAttempt', params: ({ event }) => event.output },
        },
        onError: {
          target: 'check',
          actions: { type: 'recordWorkerCrash', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    check: {
      description:
        'Every check of DELEGATE_CHECKS (workspace watch, record and echo, custody of the owned bytes, unchanged claims, statement fence, search grant); a refused or failed answer has what it touched put back; the settle rules give the one handoff.',
      invoke: {
        id: 'check',
        src: 'check',
        input: ({ context }) => ({ held: context.held, attempt: context.attempt as Attempt }),
        onDone: [
          {
            guard: { type: 'acceptedResult', params: ({ event }) => event.output },
            target: '#delegation.journal.accepted',
            actions: { type: 'recordResult', params: ({ event }) => event.output },
          },
          {
            guard: { type: 'refusedResult', params: ({ event }) => event.output },
            target: '#delegation.journal.refused',
            actions: { type: 'recordResult', params: ({ event }) => event.output },
          },
          {
            target: '#delegation.journal.failed',
            actions: { type: 'recordResult', params: ({ event }) => event.output },
          },
        ],
        onError: {
          target: '#delegation.journal.failed',
          actions: { type: 'recordCheckCrash', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    journal: {
      description:
        'The one handoff is appended to the run (with this machine’s transitions as its batch trace) before the delegation settles: write-ahead, then the answer.',
      initial: 'failed',
      invoke: {
        id: 'journalHandoff',
        src: 'journalHandoff',
        input: ({ context }) => journalInput(context),
        onDone: [
          {
            guard: { type: 'acceptanceUnrecorded', params: ({ event }) => event.output },
            target: 'unrecorded',
            actions: { type: 'recordJournal', params: ({ event }) => event.output },
          },
          {
            guard: 'accepted',
            target: 'settled',
            actions: { type: 'recordJournal', params: ({ event }) => event.output },
          },
          {
            guard: 'refused',
            target: 'refused',
            actions: { type: 'recordJournal', params: ({ event }) => event.output },
          },
          { target: 'failed', actions: { type: 'recordJournal', params: ({ event }) => event.output } },
        ],
        onError: [
          {
            guard: 'accepted',
            target: 'settled',
            actions: { type: 'recordJournalCrash', params: ({ event }) => ({ error: event.error }) },
          },
          {
            guard: 'refused',
            target: 'refused',
            actions: { type: 'recordJournalCrash', params: ({ event }) => ({ error: event.error }) },
          },
          {
            target: 'failed',
            actions: { type: 'recordJournalCrash', params: ({ event }) => ({ error: event.error }) },
          },
        ],
      },
      states: {
        accepted: {
          description: 'Journaling a handoff that passed every check: the worker’s own.',
        },
        refused: {
          description:
            'Journaling the runtime’s handoff of a refused answer (protocol-error stop, or stuck on the statement fence); the owned files hold their pre-dispatch bytes again.',
        },
        failed: {
          description:
            'Journaling the stop of a worker that gave no answer to check (threw, timed out, aborted, stopped on an error of its own) or of checks that could not complete.',
        },
      },
    },
    unrecorded: {
      description:
        'The store refused the accepted handoff (nothing written): it is not accepted after all — the owned files go back to their pre-dispatch bytes and the delegation fails naming the refusal.',
      invoke: {
        id: 'restoreOwned',
        src: 'restoreOwned',
        input: ({ context }) => ({ held: context.held }),
        onDone: {
          target: 'failed',
          actions: { type: 'recordUnrecorded', params: ({ event }) => ({ notes: event.output }) },
        },
        onError: {
          target: 'failed',
          actions: { type: 'recordUnrecordedCrash', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    settled: {
      type: 'final',
      description: 'Accepted: the worker’s handoff, journaled, is the answer.',
    },
    refused: {
      type: 'final',
      description: 'Refused by a check: the runtime’s handoff, journaled, is the answer.',
    },
    failed: {
      type: 'final',
      description:
        'No answer to check, or the store refused the dispatch: an operational-error or user-stop handoff is the answer.',
    },
  },
});

/** The delegation machine's type. */
export type DelegationMachine = typeof delegationMachine;
