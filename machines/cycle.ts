/**
 * The six-phase cycle (seed 002): Plan → Work → Checkpoint → Review → Replan → Continue/Stop, as
 * an xstate v5 machine. Named guards and actions call the pure rules and reducers of `src/cycle/`
 * (`(context, actor output) => context update`); actor outputs reach them as typed `params`
 * (`({ event }) => event.output`). The six actors (planner, worker, diagnostics, reviewer,
 * checkpointer, human) are declared here and provided by the runtime (`src/runtime/`), in-process
 * for tests or as subprocesses for the CLI. Final states carry the run's run-contract/v1 handoff
 * record as the machine's output.
 *
 * Engine II: after the ordinary work pass, `work.escalate` routes to repair mode (`work.repair`:
 * patch-only worker, the `patcher` actor, improvement judged by diagnostics), deep mode
 * (`work.deep`: tracker preflight, the `snapshotter` actor, pre-deep diagnostics, the deep worker,
 * the judgement, and the `restorer` actor on a rollback) or the prove human (`work.askDeep`).
 * After a stuck review the router (`review.routeNext`, prove's `boundary.stuckRoute`) acts on
 * `next_action`; falsification (`work.falsify`) follows a flagged review (autoprove) or a
 * declined plan and the human's policy (prove, `replan.askFalsify`).
 */
import { assign, fromPromise, setup } from 'xstate';
import type { Handoff, StopReason } from '../src/contract/index.js';
import {
  absorbCheckpoint,
  absorbDeepBaseline,
  absorbDiagnostics,
  absorbGate,
  absorbHuman,
  absorbHumanEvidence,
  absorbPatch,
  absorbPlan,
  absorbRepairWork,
  absorbReview,
  absorbRollback,
  absorbSnapshot,
  absorbVerify,
  absorbWork,
  acceptDeep,
  acceptRepair,
  answeredWithEvidence,
  approveCommitQuestion,
  approveDeepQuestion,
  approvePlanQuestion,
  approveReplanQuestion,
  assessStuck,
  blockerQuestion,
  checkpointInput,
  checkpointRefused,
  checkpointSkipped,
  checkpointStop,
  chooseTarget,
  continueQuestion,
  currentCycle,
  declinedIntoFalsification,
  deepDenial,
  deepDiagnosticsRequest,
  deepFailed,
  deepFenceViolation,
  deepWorkerInput,
  diagnosticsRequest,
  endWithNextAction,
  errorStop,
  escalation,
  falsificationQuestion,
  falsifyWorkerInput,
  finalizeSolved,
  finalizeStopped,
  finalizeStuck,
  initialCycleContext,
  judgeDeepPass,
  judgeRepair,
  limitStop,
  markFenceStuck,
  markRefused,
  markRepairExhausted,
  markRouted,
  nextCycle,
  noRepairError,
  noteDeepWork,
  noteSkipCheckpoint,
  nothingToVerify,
  patchInput,
  patchStop,
  pickedFalsification,
  plannerInput,
  planningSkipped,
  type ReviewRoute,
  redraft,
  relaunchForbidden,
  reopenCycle,
  repairDenied,
  repairError,
  repairGivesUp,
  repairHandoffValid,
  repairImproved,
  repairProtocolStop,
  repairVerifyRequest,
  repairWorkerInput,
  restoreFailed,
  restoreInput,
  reviewDue,
  reviewInput,
  reviewRoute,
  rollbackFailed,
  runOutput,
  skipDeep,
  snapshotInput,
  startDeep,
  startFalsify,
  startRepair,
  stopFor,
  stuckReviewInput,
  switchToInline,
  tickTracker,
  verifyRequest,
  workerInput,
  workStop,
} from '../src/cycle/index.js';
import { nothingOpen } from '../src/cycle/nothing-open.js';
import {
  absorbEditRestore,
  dropRefutedEdits,
  editRestoreDue,
  editRestoreInput,
  noteRefutedEdits,
} from '../src/cycle/restore-edits.js';
import type {
  CheckpointInput,
  CheckpointOutput,
  CycleContext,
  CycleInput,
  DiagnosticsInput,
  DiagnosticsOutput,
  EditRestoreInput,
  EditRestoreOutput,
  HumanInput,
  HumanOutput,
  PatchInput,
  PatchOutput,
  PlannerInput,
  PlannerOutput,
  RestoreInput,
  RestoreOutput,
  ReviewInput,
  ReviewOutput,
  SnapshotInput,
  SnapshotOutput,
  WorkerInput,
  WorkOutcome,
} from '../src/cycle/types.js';

export { BLOCKER_OPTIONS, initialCycleContext } from '../src/cycle/index.js';

function declared<O, I>(name: string) {
  return fromPromise<O, I>(async () => {
    throw new Error(`cycle actor '${name}' was not provided (use machine.provide or createCycleRuntime)`);
  });
}

/** A worker outcome kind as a guard: true when the worker actor reported that kind. */
const outcomeIs =
  (kind: WorkOutcome['kind']) =>
  (_: unknown, out: WorkOutcome): boolean =>
    out.kind === kind;

/** A review route as a guard: true when the stuck review routes the run to `route`. */
const routeIs =
  (route: ReviewRoute) =>
  ({ context }: { context: CycleContext }): boolean =>
    reviewRoute(context) === route;

/** A human answer as a guard: true when the human actor answered exactly `answer`. */
const answered =
  (answer: string) =>
  (_: unknown, out: HumanOutput): boolean =>
    out.answer === answer;

/** The machine's setup: types, declared actors, named guards and actions. */
export const cycleSetup = setup({
  types: {} as {
    context: CycleContext;
    input: CycleInput;
    output: Handoff;
  },
  actors: {
    planner: declared<PlannerOutput, PlannerInput>('planner'),
    worker: declared<WorkOutcome, WorkerInput>('worker'),
    diagnostics: declared<DiagnosticsOutput, DiagnosticsInput>('diagnostics'),
    reviewer: declared<ReviewOutput, ReviewInput>('reviewer'),
    checkpointer: declared<CheckpointOutput, CheckpointInput>('checkpointer'),
    human: declared<HumanOutput, HumanInput>('human'),
    snapshotter: declared<SnapshotOutput, SnapshotInput>('snapshotter'),
    restorer: declared<RestoreOutput, RestoreInput>('restorer'),
    patcher: declared<PatchOutput, PatchInput>('patcher'),
    editRestorer: declared<EditRestoreOutput, EditRestoreInput>('editRestorer'),
  },
  guards: {
    // solved needs no open target and no diagnostics error (src/cycle/nothing-open.ts)
    noOpenTargets: (_, out: DiagnosticsOutput) => nothingOpen(out),
    noTargetPicked: ({ context }) => context.current === null,
    // a failed edit goes back to its pre-dispatch bytes before the checkpoint (src/cycle/restore-edits.ts)
    editRestoreDue: ({ context }) => editRestoreDue(context),
    skipPlanning: ({ context }) => planningSkipped(context),
    needsPlanApproval: ({ context }) =>
      context.options.mode === 'prove' && context.options.planning === 'ask',
    relaunchForbidden: ({ context }) => relaunchForbidden(context),
    isProve: ({ context }) => context.options.mode === 'prove',
    inlineAvailable: ({ context }) => context.options.inlineFallback && context.delegation === 'delegate',
    permissionDenied: outcomeIs('permission-denied'),
    fenceViolation: outcomeIs('fence-violation'),
    custodyViolation: outcomeIs('custody-violation'),
    protocolError: outcomeIs('protocol-error'),
    operationalError: outcomeIs('operational-error'),
    // verify a worker's changed file, and any solved claim (even one that changed nothing)
    nothingToVerify: ({ context }) => nothingToVerify(context),
    checkpointSkipped: ({ context }) => checkpointSkipped(context),
    gateFailed: (_, out: DiagnosticsOutput) => !out.ok,
    commitAsk: ({ context }) => context.options.commit === 'ask',
    checkpointRefused: (_, out: CheckpointOutput) => checkpointRefused(out),
    stuckThisCycle: ({ context }) => context.stuck !== null,
    reviewIsDue: ({ context }) =>
      reviewDue(context.options.reviewEvery, currentCycle(context), context.committedThisCycle),
    limitReached: ({ context }) => context.limitViolations.length > 0,
    proveAndStuck: ({ context }) => context.options.mode === 'prove' && context.stuck !== null,
    answeredStop: answered('stop'),
    answeredSkip: answered('skip'),
    answeredFormalize: answered('formalize'),
    answeredReviewStuck: answered('review-stuck'),
    answeredEvidence: (_, out: HumanOutput) => answeredWithEvidence(out),
    answeredDeep: answered('deep'),
    isHandoff: outcomeIs('handoff'),
    workFailed: (_, out: WorkOutcome) => out.kind === 'operational-error' || out.kind === 'permission-denied',
    // engine II: escalation after the ordinary pass
    escalateRepair: ({ context }) => escalation(context) === 'repair',
    escalateDeep: ({ context }) => escalation(context) === 'deep',
    escalateAskDeep: ({ context }) => escalation(context) === 'ask-deep',
    // deep mode
    deepDenied: ({ context }) => deepDenial(context) !== null,
    deepRollbackNeeded: ({ context }) => (context.deep?.rollback ?? null) !== null,
    restoreFailed: (_, out: RestoreOutput) => restoreFailed(out),
    // repair mode
    repairNoError: ({ context }) => repairError(context) === null,
    repairDenied: ({ context }) => repairDenied(context) !== null,
    repairHandoffValid: (_, out: WorkOutcome) => repairHandoffValid(out),
    patchNotApplied: (_, out: PatchOutput) => out.kind !== 'applied',
    repairImproved: ({ context }) => repairImproved(context),
    repairGivesUp: ({ context }) => repairGivesUp(context),
    // the review router and falsification
    routeFalsify: routeIs('falsify'),
    routeDeep: routeIs('deep'),
    routeRepair: routeIs('repair'),
    routeOuter: routeIs('outer'),
    declinedIntoFalsification: ({ context }, out: HumanOutput) => declinedIntoFalsification(context, out),
    pickedFalsification: (_, out: HumanOutput) => pickedFalsification(out),
  },
  actions: {
    absorbDiagnostics: assign(({ context }, out: DiagnosticsOutput) => absorbDiagnostics(context, out)),
    pickTarget: assign(({ context }) => chooseTarget(context)),
    absorbPlan: assign(({ context }, out: PlannerOutput) => absorbPlan(context, out)),
    markRefused: assign(({ context }) => markRefused(context)),
    switchToInline: assign(({ context }) => switchToInline(context)),
    absorbWork: assign(({ context }, out: WorkOutcome) => absorbWork(context, out)),
    markFenceStuck: assign(({ context }, out: WorkOutcome) => markFenceStuck(context, out)),
    assessStuck: assign(({ context }) => assessStuck(context)),
    absorbVerify: assign(({ context }, out: DiagnosticsOutput) => absorbVerify(context, out)),
    absorbGate: assign(({ context }, out: DiagnosticsOutput) => absorbGate(context, out)),
    absorbEditRestore: assign(({ context }, out: EditRestoreOutput) => absorbEditRestore(context, out)),
    noteRefutedEdits: assign(({ context }) => noteRefutedEdits(context)),
    dropRefutedEdits: assign(() => dropRefutedEdits()),
    noteSkipCheckpoint: assign(({ context }) => noteSkipCheckpoint(context)),
    absorbCheckpoint: assign(({ context }, out: CheckpointOutput) => absorbCheckpoint(context, out)),
    absorbReview: assign(({ context }, out: ReviewOutput) => absorbReview(context, out)),
    tickTracker: assign(({ context }) => tickTracker(context)),
    absorbHumanEvidence: assign(({ context }, out: HumanOutput) => absorbHumanEvidence(context, out)),
    absorbHuman: assign(({ context }, out: HumanOutput) => absorbHuman(context, out)),
    nextCycle: assign(() => nextCycle()),
    setStop: assign((_, params: { reason: StopReason }) => stopFor(params.reason)),
    // reads the outcome `absorbWork` just recorded (also on the permission-denied fallback)
    setWorkStop: assign(({ context }, params: { reason: StopReason; prefix: string }) =>
      workStop(context, params),
    ),
    setCheckpointStop: assign((_, out: CheckpointOutput) => checkpointStop(out)),
    // the phase is a static param (the diagram prints it); the error comes from the error event
    setErrorStop: assign(({ event }, p: { phase: string }) =>
      errorStop({ phase: p.phase, error: 'error' in event ? event.error : undefined }),
    ),
    setLimitStop: assign(({ context }) => limitStop(context)),
    setRedraft: assign(({ context }) => redraft(context)),
    // deep mode
    skipDeep: assign(({ context }) => skipDeep(context)),
    startDeep: assign(({ context }) => startDeep(context)),
    absorbSnapshot: assign(({ context }, out: SnapshotOutput) => absorbSnapshot(context, out)),
    absorbDeepBaseline: assign(({ context }, out: DiagnosticsOutput) => absorbDeepBaseline(context, out)),
    noteDeepWork: assign(({ context }, out: WorkOutcome) => noteDeepWork(context, out)),
    deepFenceViolation: assign(({ context }, out: WorkOutcome) => deepFenceViolation(context, out)),
    // the phase is a static param; an actor error (if any) comes from the event
    deepFailed: assign(({ context, event }, p: { phase: string }) =>
      deepFailed(context, { phase: p.phase, ...('error' in event ? { error: event.error } : {}) }),
    ),
    judgeDeepPass: assign(({ context }, out: DiagnosticsOutput) => judgeDeepPass(context, out)),
    absorbRollback: assign(({ context }, out: RestoreOutput) => absorbRollback(context, out)),
    rollbackFailed: assign(({ context, event }) =>
      rollbackFailed(context, {
        detail:
          'output' in event && typeof event.output === 'object' && event.output !== null
            ? ((event.output as RestoreOutput).detail ?? 'the restorer answered not ok')
            : `the restorer failed: ${String('error' in event ? event.error : 'unknown error')}`,
      }),
    ),
    acceptDeep: assign(({ context }) => acceptDeep(context)),
    // repair mode
    noRepairError: assign(({ context }) => noRepairError(context)),
    startRepair: assign(({ context }) => startRepair(context)),
    absorbRepairWork: assign(({ context }, out: WorkOutcome) => absorbRepairWork(context, out)),
    repairProtocolStop: assign(() => repairProtocolStop()),
    absorbPatch: assign(({ context }, out: PatchOutput) => absorbPatch(context, out)),
    patchStop: assign((_, out: PatchOutput) => patchStop(out)),
    judgeRepair: assign(({ context }, out: DiagnosticsOutput) => judgeRepair(context, out)),
    acceptRepair: assign(({ context }) => acceptRepair(context)),
    markRepairExhausted: assign(({ context }) => markRepairExhausted(context)),
    // the review router and falsification
    markRouted: assign(({ context }, p: { route: ReviewRoute }) => markRouted(context, p)),
    reopenCycle: assign(({ context }) => reopenCycle(context)),
    endWithNextAction: assign(({ context }) => endWithNextAction(context)),
    startFalsify: assign(({ context }, p: { policy: string | null }) => startFalsify(context, p)),
    finalizeSolved: assign(({ context }) => finalizeSolved(context)),
    finalizeStuck: assign(({ context }) => finalizeStuck(context)),
    finalizeStopped: assign(({ context }) => finalizeStopped(context)),
  },
});

/** The `onError` of an actor whose failure stops the run: an operational error naming `phase`. */
function stopOnError(phase: string) {
  return {
    target: '#cycle.stopped',
    actions: {
      type: 'setErrorStop',
      params: { phase },
    },
  } as const;
}

/** The worker's outcome, read from a worker actor's done event. */
const workOutput = ({ event }: { event: { output: WorkOutcome } }) => event.output;

/** Records the worker's outcome (every branch of a worker actor's `onDone` starts with it). */
const absorbWorkAction = { type: 'absorbWork', params: workOutput } as const;

/** One `onDone` branch of a worker actor that stops the run with `reason`, its detail led by `prefix`. */
function workerStopBranch(reason: 'protocol-error' | 'operational-error', prefix: string) {
  return {
    target: '#cycle.stopped',
    actions: [absorbWorkAction, { type: 'setWorkStop', params: { reason, prefix } }],
  } as const;
}

/**
 * The stop branches every worker dispatch shares (the ordinary work, deep, repair and
 * falsification), in this order: a custody violation and a worker protocol error stop the run as a
 * protocol error; then, when `failed` is given, a worker failure stops it as an operational error
 * whose detail starts with `failed.prefix` — guarded by `operationalError` when `failed.guarded`,
 * otherwise the unguarded last branch (every other outcome of that worker is a failure). Deep mode
 * passes no `failed`: a failed deep worker rolls back instead of stopping.
 */
function stopOnWorkerError(failed?: { prefix: string; guarded: boolean }) {
  const faults = [
    {
      guard: { type: 'custodyViolation', params: workOutput },
      ...workerStopBranch('protocol-error', 'custody violation'),
    },
    {
      guard: { type: 'protocolError', params: workOutput },
      ...workerStopBranch('protocol-error', 'worker protocol error'),
    },
  ] as const;
  if (failed === undefined) return faults;
  const stop = workerStopBranch('operational-error', failed.prefix);
  return failed.guarded
    ? ([...faults, { guard: { type: 'operationalError', params: workOutput }, ...stop }] as const)
    : ([...faults, stop] as const);
}

/** The answer recorded from a human actor's done event. */
const humanAnswer = {
  type: 'absorbHuman',
  params: ({ event }: { event: { output: HumanOutput } }) => event.output,
} as const;

/** The branch every human question starts with: `stop` ends the run as a user stop. */
const humanStop = {
  guard: { type: 'answeredStop', params: ({ event }: { event: { output: HumanOutput } }) => event.output },
  target: '#cycle.stopped',
  actions: [humanAnswer, { type: 'setStop', params: { reason: 'user-stop' } }],
} as const;

/** The cycle machine. Provide its actors with `cycleMachine.provide({ actors })` (see src/runtime). */
export const cycleMachine = cycleSetup.createMachine({
  id: 'cycle',
  context: ({ input }) => initialCycleContext(input),
  output: ({ context }) => runOutput(context),
  initial: 'plan',
  states: {
    plan: {
      initial: 'discover',
      states: {
        discover: {
          invoke: {
            id: 'discover',
            src: 'diagnostics',
            input: () => diagnosticsRequest({ kind: 'discover' }),
            onDone: [
              {
                guard: { type: 'noOpenTargets', params: ({ event }) => event.output },
                target: '#cycle.solved',
                actions: { type: 'absorbDiagnostics', params: ({ event }) => event.output },
              },
              {
                target: 'choose',
                actions: { type: 'absorbDiagnostics', params: ({ event }) => event.output },
              },
            ],
            onError: stopOnError('diagnostics'),
          },
        },
        choose: {
          entry: 'pickTarget',
          always: [
            { guard: 'noTargetPicked', target: '#cycle.stuck' },
            { guard: 'skipPlanning', target: '#cycle.work' },
            { target: 'planning' },
          ],
        },
        planning: {
          invoke: {
            id: 'planner',
            src: 'planner',
            input: ({ context }) => plannerInput(context, 'plan'),
            onDone: [
              {
                guard: 'needsPlanApproval',
                target: 'approve',
                actions: [{ type: 'absorbPlan', params: ({ event }) => event.output }, 'pickTarget'],
              },
              {
                target: '#cycle.work',
                actions: [{ type: 'absorbPlan', params: ({ event }) => event.output }, 'pickTarget'],
              },
            ],
            onError: stopOnError('planner'),
          },
        },
        approve: {
          invoke: {
            id: 'approvePlan',
            src: 'human',
            input: ({ context }) => approvePlanQuestion(context),
            onDone: [humanStop, { target: '#cycle.work', actions: humanAnswer }],
            onError: stopOnError('human'),
          },
        },
      },
    },
    work: {
      initial: 'guard',
      states: {
        guard: {
          always: [{ guard: 'relaunchForbidden', target: 'refused' }, { target: 'dispatching' }],
        },
        refused: {
          entry: 'markRefused',
          always: [
            { guard: 'isProve', target: '#cycle.boundary.askBlocker' },
            { target: '#cycle.plan.choose' },
          ],
        },
        dispatching: {
          invoke: {
            id: 'worker',
            src: 'worker',
            input: ({ context }) => workerInput(context),
            onDone: [
              {
                guard: { type: 'permissionDenied', params: ({ event }) => event.output },
                target: 'fallback',
                actions: { type: 'absorbWork', params: ({ event }) => event.output },
              },
              {
                guard: { type: 'fenceViolation', params: ({ event }) => event.output },
                target: '#cycle.checkpoint',
                actions: [
                  { type: 'absorbWork', params: ({ event }) => event.output },
                  { type: 'markFenceStuck', params: ({ event }) => event.output },
                ],
              },
              ...stopOnWorkerError({ prefix: 'worker failed', guarded: true }),
              { target: 'verifyRoute', actions: { type: 'absorbWork', params: ({ event }) => event.output } },
            ],
            onError: stopOnError('worker'),
          },
        },
        verifyRoute: {
          always: [
            { guard: 'nothingToVerify', target: 'escalate', actions: 'assessStuck' },
            { target: 'verify' },
          ],
        },
        verify: {
          invoke: {
            id: 'verify',
            src: 'diagnostics',
            input: ({ context }) => verifyRequest(context),
            onDone: {
              target: 'escalate',
              actions: [
                { type: 'absorbVerify', params: ({ event }) => event.output },
                'assessStuck',
                'noteRefutedEdits',
              ],
            },
            onError: stopOnError('verification'),
          },
        },
        // after the ordinary pass (the direct fix): repair, deep, ask the human, or checkpoint
        escalate: {
          always: [
            { guard: 'escalateRepair', target: 'repair' },
            { guard: 'escalateDeep', target: 'deep' },
            { guard: 'escalateAskDeep', target: 'askDeep' },
            { target: '#cycle.checkpoint' },
          ],
        },
        askDeep: {
          invoke: {
            id: 'approveDeep',
            src: 'human',
            input: ({ context }) => approveDeepQuestion(context),
            onDone: [
              humanStop,
              {
                guard: { type: 'answeredDeep', params: ({ event }) => event.output },
                target: 'deep',
                actions: humanAnswer,
              },
              { target: '#cycle.checkpoint', actions: humanAnswer },
            ],
            onError: stopOnError('human'),
          },
        },
        deep: {
          initial: 'preflight',
          states: {
            // tracker can-deep: a denial skips deep (policy: not stuck; runtime: the next tick stops)
            preflight: {
              always: [
                { guard: 'deepDenied', target: '#cycle.checkpoint', actions: 'skipDeep' },
                { target: 'snapshot', actions: 'startDeep' },
              ],
            },
            snapshot: {
              invoke: {
                id: 'snapshotter',
                src: 'snapshotter',
                input: ({ context }) => snapshotInput(context),
                onDone: {
                  target: 'baseline',
                  actions: { type: 'absorbSnapshot', params: ({ event }) => event.output },
                },
                onError: stopOnError('deep snapshot'),
              },
            },
            baseline: {
              invoke: {
                id: 'deepBaseline',
                src: 'diagnostics',
                input: ({ context }) => deepDiagnosticsRequest(context),
                onDone: {
                  target: 'dispatching',
                  actions: { type: 'absorbDeepBaseline', params: ({ event }) => event.output },
                },
                onError: {
                  target: 'rollback',
                  actions: { type: 'deepFailed', params: { phase: 'pre-deep diagnostics' } },
                },
              },
            },
            dispatching: {
              invoke: {
                id: 'deepWorker',
                src: 'worker',
                input: ({ context }) => deepWorkerInput(context),
                onDone: [
                  {
                    guard: { type: 'fenceViolation', params: ({ event }) => event.output },
                    target: 'rollback',
                    actions: [
                      { type: 'absorbWork', params: ({ event }) => event.output },
                      { type: 'deepFenceViolation', params: ({ event }) => event.output },
                    ],
                  },
                  ...stopOnWorkerError(),
                  {
                    guard: { type: 'workFailed', params: ({ event }) => event.output },
                    target: 'rollback',
                    actions: [
                      { type: 'absorbWork', params: ({ event }) => event.output },
                      { type: 'deepFailed', params: { phase: 'deep worker' } },
                    ],
                  },
                  {
                    target: 'verify',
                    actions: [
                      { type: 'absorbWork', params: ({ event }) => event.output },
                      { type: 'noteDeepWork', params: ({ event }) => event.output },
                    ],
                  },
                ],
                onError: {
                  target: 'rollback',
                  actions: { type: 'deepFailed', params: { phase: 'deep worker' } },
                },
              },
            },
            verify: {
              invoke: {
                id: 'deepVerify',
                src: 'diagnostics',
                input: ({ context }) => deepDiagnosticsRequest(context),
                onDone: {
                  target: 'judge',
                  actions: { type: 'judgeDeepPass', params: ({ event }) => event.output },
                },
                onError: {
                  target: 'rollback',
                  actions: { type: 'deepFailed', params: { phase: 'deep verification' } },
                },
              },
            },
            // scope fence, regression gate, rollback policy (judged in judgeDeepPass)
            judge: {
              always: [{ guard: 'deepRollbackNeeded', target: 'rollback' }, { target: 'accepted' }],
            },
            rollback: {
              invoke: {
                id: 'restorer',
                src: 'restorer',
                input: ({ context }) => restoreInput(context),
                onDone: [
                  {
                    guard: { type: 'restoreFailed', params: ({ event }) => event.output },
                    target: '#cycle.stuck',
                    actions: 'rollbackFailed',
                  },
                  {
                    target: '#cycle.checkpoint',
                    actions: { type: 'absorbRollback', params: ({ event }) => event.output },
                  },
                ],
                // a failed rollback stops the cycle: stuck, no checkpoint
                onError: { target: '#cycle.stuck', actions: 'rollbackFailed' },
              },
            },
            accepted: { entry: 'acceptDeep', always: { target: '#cycle.checkpoint' } },
          },
        },
        repair: {
          initial: 'budget',
          states: {
            budget: {
              always: [
                { guard: 'repairNoError', target: '#cycle.checkpoint', actions: 'noRepairError' },
                { guard: 'repairDenied', target: 'exhausted' },
                { target: 'dispatching', actions: 'startRepair' },
              ],
            },
            dispatching: {
              invoke: {
                id: 'repairWorker',
                src: 'worker',
                input: ({ context }) => repairWorkerInput(context),
                onDone: [
                  {
                    guard: { type: 'repairHandoffValid', params: ({ event }) => event.output },
                    target: 'patching',
                    actions: { type: 'absorbRepairWork', params: ({ event }) => event.output },
                  },
                  {
                    guard: { type: 'isHandoff', params: ({ event }) => event.output },
                    target: '#cycle.stopped',
                    actions: [
                      { type: 'absorbRepairWork', params: ({ event }) => event.output },
                      'repairProtocolStop',
                    ],
                  },
                  {
                    guard: { type: 'fenceViolation', params: ({ event }) => event.output },
                    target: '#cycle.checkpoint',
                    actions: [
                      { type: 'absorbWork', params: ({ event }) => event.output },
                      { type: 'markFenceStuck', params: ({ event }) => event.output },
                    ],
                  },
                  ...stopOnWorkerError({ prefix: 'repair worker failed', guarded: false }),
                ],
                onError: stopOnError('repair worker'),
              },
            },
            patching: {
              invoke: {
                id: 'patcher',
                src: 'patcher',
                input: ({ context }) => patchInput(context),
                onDone: [
                  // stale: custody moved under the patch (never re-recorded and retried); refused: protocol
                  {
                    guard: { type: 'patchNotApplied', params: ({ event }) => event.output },
                    target: '#cycle.stopped',
                    actions: { type: 'patchStop', params: ({ event }) => event.output },
                  },
                  { target: 'verify', actions: { type: 'absorbPatch', params: ({ event }) => event.output } },
                ],
                onError: stopOnError('patcher'),
              },
            },
            verify: {
              invoke: {
                id: 'repairVerify',
                src: 'diagnostics',
                input: ({ context }) => repairVerifyRequest(context),
                onDone: {
                  target: 'judge',
                  actions: { type: 'judgeRepair', params: ({ event }) => event.output },
                },
                onError: stopOnError('verification'),
              },
            },
            judge: {
              always: [
                { guard: 'repairImproved', target: 'done' },
                { guard: 'repairGivesUp', target: 'exhausted' },
                { target: 'budget' },
              ],
            },
            done: { entry: 'acceptRepair', always: { target: '#cycle.checkpoint' } },
            exhausted: { entry: 'markRepairExhausted', always: { target: '#cycle.checkpoint' } },
          },
        },
        falsify: {
          initial: 'dispatching',
          states: {
            dispatching: {
              invoke: {
                id: 'falsifyWorker',
                src: 'worker',
                input: ({ context }) => falsifyWorkerInput(context),
                onDone: [
                  {
                    guard: { type: 'isHandoff', params: ({ event }) => event.output },
                    target: 'verify',
                    actions: { type: 'absorbWork', params: ({ event }) => event.output },
                  },
                  {
                    guard: { type: 'fenceViolation', params: ({ event }) => event.output },
                    target: '#cycle.checkpoint',
                    actions: [
                      { type: 'absorbWork', params: ({ event }) => event.output },
                      { type: 'markFenceStuck', params: ({ event }) => event.output },
                    ],
                  },
                  ...stopOnWorkerError({ prefix: 'falsification worker failed', guarded: false }),
                ],
                onError: stopOnError('falsification worker'),
              },
            },
            verify: {
              invoke: {
                id: 'falsifyVerify',
                src: 'diagnostics',
                input: ({ context }) => verifyRequest(context),
                onDone: {
                  target: '#cycle.checkpoint',
                  actions: { type: 'absorbVerify', params: ({ event }) => event.output },
                },
                onError: stopOnError('verification'),
              },
            },
          },
        },
        fallback: {
          always: [
            { guard: 'inlineAvailable', target: 'dispatching', actions: 'switchToInline' },
            {
              target: '#cycle.stopped',
              actions: {
                type: 'setWorkStop',
                params: {
                  reason: 'operational-error',
                  prefix: 'permission denied, delegation aborted, no inline worker',
                },
              },
            },
          ],
        },
      },
    },
    checkpoint: {
      initial: 'restoreRoute',
      states: {
        restoreRoute: {
          description:
            "Decides, without waiting, whether an edit of this cycle claimed 'solved' and was refuted: then it is restored first, else the checkpoint goes straight to the project gate.",
          always: [
            { guard: 'editRestoreDue', target: 'restore' },
            { target: 'gate', actions: 'dropRefutedEdits' },
          ],
        },
        restore: {
          description:
            "Puts back each edit whose 'solved' claim did not hold to its pre-dispatch bytes, and the custody baseline with it, before the project gate (a batch's siblings that held keep theirs).",
          invoke: {
            id: 'editRestorer',
            src: 'editRestorer',
            input: ({ context }) => editRestoreInput(context),
            onDone: {
              target: 'gate',
              actions: { type: 'absorbEditRestore', params: ({ event }) => event.output },
            },
            onError: stopOnError('edit restore'),
          },
        },
        gate: {
          invoke: {
            id: 'gate',
            src: 'diagnostics',
            input: () => diagnosticsRequest({ kind: 'checkpoint' }),
            onDone: [
              {
                guard: { type: 'gateFailed', params: ({ event }) => event.output },
                target: 'skip',
                actions: { type: 'absorbGate', params: ({ event }) => event.output },
              },
              { target: 'route', actions: { type: 'absorbGate', params: ({ event }) => event.output } },
            ],
            onError: stopOnError('project gate'),
          },
        },
        route: {
          always: [
            { guard: 'checkpointSkipped', target: 'skip' },
            { guard: 'commitAsk', target: 'confirm' },
            { target: 'commit' },
          ],
        },
        confirm: {
          invoke: {
            id: 'approveCommit',
            src: 'human',
            input: ({ context }) => approveCommitQuestion(context),
            onDone: [
              humanStop,
              {
                guard: { type: 'answeredSkip', params: ({ event }) => event.output },
                target: 'skip',
                actions: humanAnswer,
              },
              { target: 'commit', actions: humanAnswer },
            ],
            onError: stopOnError('human'),
          },
        },
        commit: {
          invoke: {
            id: 'checkpointer',
            src: 'checkpointer',
            input: ({ context }) => checkpointInput(context),
            onDone: [
              {
                guard: { type: 'checkpointRefused', params: ({ event }) => event.output },
                target: '#cycle.stopped',
                actions: [
                  { type: 'absorbCheckpoint', params: ({ event }) => event.output },
                  { type: 'setCheckpointStop', params: ({ event }) => event.output },
                ],
              },
              {
                target: '#cycle.review',
                actions: { type: 'absorbCheckpoint', params: ({ event }) => event.output },
              },
            ],
            onError: stopOnError('checkpoint'),
          },
        },
        skip: { entry: 'noteSkipCheckpoint', always: { target: '#cycle.review' } },
      },
    },
    review: {
      initial: 'route',
      states: {
        route: {
          always: [
            { guard: 'stuckThisCycle', target: 'reviewing' },
            { guard: 'reviewIsDue', target: 'reviewing' },
            { target: '#cycle.boundary' },
          ],
        },
        reviewing: {
          invoke: {
            id: 'reviewer',
            src: 'reviewer',
            input: ({ context }) => reviewInput(context),
            onDone: {
              target: 'routeNext',
              actions: { type: 'absorbReview', params: ({ event }) => event.output },
            },
            onError: stopOnError('review'),
          },
        },
        // the review router: a stuck review's next_action (once per target per cycle)
        routeNext: {
          always: [
            {
              guard: 'routeFalsify',
              target: '#cycle.work.falsify',
              actions: { type: 'startFalsify', params: { policy: null } },
            },
            {
              guard: 'routeDeep',
              target: '#cycle.work.deep',
              actions: { type: 'markRouted', params: { route: 'deep' } },
            },
            {
              guard: 'routeRepair',
              target: '#cycle.work.repair',
              actions: { type: 'markRouted', params: { route: 'repair' } },
            },
            { guard: 'routeOuter', target: '#cycle.stuck', actions: 'endWithNextAction' },
            // continue, and halt (stop): the target stays blocked (the rerun guard refuses it
            // without new evidence) and the replan goes on to the next target, or the run ends stuck
            { target: '#cycle.replan' },
          ],
        },
      },
    },
    replan: {
      initial: 'planning',
      states: {
        planning: {
          invoke: {
            id: 'replanner',
            src: 'planner',
            input: ({ context }) => plannerInput(context, 'replan'),
            onDone: [
              {
                guard: 'isProve',
                target: 'approve',
                actions: { type: 'absorbPlan', params: ({ event }) => event.output },
              },
              {
                target: '#cycle.boundary',
                actions: { type: 'absorbPlan', params: ({ event }) => event.output },
              },
            ],
            onError: stopOnError('replan'),
          },
        },
        approve: {
          invoke: {
            id: 'approveReplan',
            src: 'human',
            input: ({ context }) => approveReplanQuestion(context),
            onDone: [
              humanStop,
              {
                guard: { type: 'declinedIntoFalsification', params: ({ event }) => event.output },
                target: 'askFalsify',
                actions: humanAnswer,
              },
              { target: '#cycle.boundary', actions: humanAnswer },
            ],
            onError: stopOnError('human'),
          },
        },
        // prove: the plan of a stuck target was declined — which falsification policy?
        askFalsify: {
          invoke: {
            id: 'askFalsification',
            src: 'human',
            input: ({ context }) => falsificationQuestion(context),
            onDone: [
              humanStop,
              {
                guard: { type: 'pickedFalsification', params: ({ event }) => event.output },
                target: '#cycle.work.falsify',
                actions: [
                  humanAnswer,
                  { type: 'startFalsify', params: ({ event }) => ({ policy: event.output.answer }) },
                ],
              },
              { target: '#cycle.boundary', actions: humanAnswer },
            ],
            onError: stopOnError('human'),
          },
        },
      },
    },
    boundary: {
      initial: 'tick',
      states: {
        tick: {
          entry: 'tickTracker',
          always: [
            { guard: 'limitReached', target: 'finalCheck' },
            { guard: 'proveAndStuck', target: 'askBlocker' },
            { guard: 'isProve', target: 'askContinue' },
            { target: '#cycle.plan', actions: 'nextCycle' },
          ],
        },
        finalCheck: {
          invoke: {
            id: 'finalCheck',
            src: 'diagnostics',
            input: () => diagnosticsRequest({ kind: 'discover' }),
            onDone: [
              {
                guard: { type: 'noOpenTargets', params: ({ event }) => event.output },
                target: '#cycle.solved',
                actions: { type: 'absorbDiagnostics', params: ({ event }) => event.output },
              },
              {
                target: '#cycle.stopped',
                actions: [{ type: 'absorbDiagnostics', params: ({ event }) => event.output }, 'setLimitStop'],
              },
            ],
            // the limit was reached either way: without a final answer the run stops on it
            onError: { target: '#cycle.stopped', actions: 'setLimitStop' },
          },
        },
        askContinue: {
          invoke: {
            id: 'askContinue',
            src: 'human',
            input: ({ context }) => continueQuestion(context),
            onDone: [humanStop, { target: '#cycle.plan', actions: [humanAnswer, 'nextCycle'] }],
            onError: stopOnError('human'),
          },
        },
        askBlocker: {
          invoke: {
            id: 'askBlocker',
            src: 'human',
            input: ({ context }) => blockerQuestion(context),
            onDone: [
              {
                guard: { type: 'answeredEvidence', params: ({ event }) => event.output },
                target: '#cycle.plan',
                actions: [{ type: 'absorbHumanEvidence', params: ({ event }) => event.output }, 'nextCycle'],
              },
              {
                guard: { type: 'answeredFormalize', params: ({ event }) => event.output },
                target: '#cycle.stuck',
                actions: [humanAnswer, 'setRedraft'],
              },
              {
                guard: { type: 'answeredReviewStuck', params: ({ event }) => event.output },
                target: 'stuckReview',
                actions: humanAnswer,
              },
              { target: '#cycle.stuck', actions: humanAnswer },
            ],
            onError: stopOnError('human'),
          },
        },
        stuckReview: {
          invoke: {
            id: 'stuckReview',
            src: 'reviewer',
            input: ({ context }) => stuckReviewInput(context),
            onDone: {
              target: 'stuckRoute',
              actions: { type: 'absorbReview', params: ({ event }) => event.output },
            },
            onError: stopOnError('review'),
          },
        },
        // prove's review router: the human asked for the stuck review; resume = back to the human
        stuckRoute: {
          always: [
            {
              guard: 'routeDeep',
              target: '#cycle.work.deep',
              actions: ['reopenCycle', { type: 'markRouted', params: { route: 'deep' } }],
            },
            {
              guard: 'routeRepair',
              target: '#cycle.work.repair',
              actions: ['reopenCycle', { type: 'markRouted', params: { route: 'repair' } }],
            },
            { guard: 'routeOuter', target: '#cycle.stuck', actions: 'endWithNextAction' },
            // halt and resume: the human (the control loop of prove) decides again
            { target: 'askBlocker' },
          ],
        },
      },
    },
    solved: { type: 'final', entry: 'finalizeSolved' },
    stuck: { type: 'final', entry: 'finalizeStuck' },
    stopped: { type: 'final', entry: 'finalizeStopped' },
  },
});

/** The cycle machine's type. */
export type CycleMachine = typeof cycleMachine;
/** The cycle machine's input (options, tracker, owned files, baseline, prior handoff). */
export type CycleMachineInput = CycleInput;
/** The cycle machine's context. */
export type CycleMachineContext = CycleContext;
/** The cycle machine's output: the run's run-contract/v1 handoff record, carried by every final state. */
export type CycleMachineOutput = Handoff;
/** The inputs and outputs of the actors a host provides (also on `handoff-runtime/runtime`). */
export type {
  CheckpointInput,
  CheckpointOutput,
  DiagnosticsInput,
  DiagnosticsOutput,
  HumanInput,
  HumanOutput,
  PatchInput,
  PatchOutput,
  PlannerInput,
  PlannerOutput,
  RestoreInput,
  RestoreOutput,
  ReviewInput,
  ReviewOutput,
  SnapshotInput,
  SnapshotOutput,
  WorkerInput,
  WorkOutcome,
} from '../src/cycle/types.js';
