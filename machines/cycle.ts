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
      description:
        'Chooses what this cycle works on: discovers the open targets, picks one and plans the attempt (the human approves the plan when asked to). Leads to work, or ends the run solved or stuck.',
      initial: 'discover',
      states: {
        discover: {
          description:
            'Waits for the diagnostics to list the open targets: none left ends the run solved, otherwise choose.',
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
          description:
            'Picks the next target without waiting: none that may run ends the run stuck; a target that needs no plan (planning off, already planned this cycle, a trivial goal) goes straight to work; otherwise planning.',
          entry: 'pickTarget',
          always: [
            { guard: 'noTargetPicked', target: '#cycle.stuck' },
            { guard: 'skipPlanning', target: '#cycle.work' },
            { target: 'planning' },
          ],
        },
        planning: {
          description:
            "Waits for the planner's plan for the picked target, then to approve when the plan needs the human's approval, else to work.",
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
          description:
            'Waits for the human to approve the plan: stop ends the run, any other answer starts the work.',
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
      description:
        "One attempt on the target: the rerun guard, the worker's dispatch (custody and the statement fence checked by the host), the verification of its claim, then an escalation (repair, deep mode, the human's call on deep) or the checkpoint. Review and the stuck router come back here for falsification, deep and repair.",
      initial: 'guard',
      states: {
        guard: {
          description:
            'Applies the rerun guard without waiting: relaunching the same blocked task without new evidence is refused, otherwise the dispatch.',
          always: [{ guard: 'relaunchForbidden', target: 'refused' }, { target: 'dispatching' }],
        },
        refused: {
          description:
            'Records the refused relaunch, then asks the human about the blocker (prove) or chooses the next target.',
          entry: 'markRefused',
          always: [
            { guard: 'isProve', target: '#cycle.boundary.askBlocker' },
            { target: '#cycle.plan.choose' },
          ],
        },
        dispatching: {
          description:
            "Waits for the worker's handoff. A denied permission falls back to the inline worker; a fence violation goes to the checkpoint with the target stuck; a custody violation or protocol error stops the run, a worker failure stops it as an operational error; otherwise verifyRoute.",
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
          description:
            "Decides without waiting whether the handoff left a claim to verify (a 'solved' claim always is): nothing goes straight to escalate, otherwise verify.",
          always: [
            { guard: 'nothingToVerify', target: 'escalate', actions: 'assessStuck' },
            { target: 'verify' },
          ],
        },
        verify: {
          description:
            "Waits for the diagnostics over the accepted bytes to confirm or refute the worker's claim; a refuted 'solved' edit is noted for the checkpoint to restore; then escalate.",
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
          description:
            "Decides without waiting what follows the ordinary pass: repair, deep mode, the human's call on deep mode, or the checkpoint.",
          always: [
            { guard: 'escalateRepair', target: 'repair' },
            { guard: 'escalateDeep', target: 'deep' },
            { guard: 'escalateAskDeep', target: 'askDeep' },
            { target: '#cycle.checkpoint' },
          ],
        },
        askDeep: {
          description:
            "Waits for the human's call on deep mode: stop ends the run, deep runs it, any other answer goes to the checkpoint.",
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
          description:
            "Deep mode: the tracker's preflight, a snapshot of what it may change, the diagnostics' baseline, one deep worker call under the scope fence, its verification and a judgement; a pass that does not hold is rolled back. Leads to the checkpoint, or stuck when a rollback fails.",
          initial: 'preflight',
          states: {
            // tracker can-deep: a denial skips deep (policy: not stuck; runtime: the next tick stops)
            preflight: {
              description:
                "Asks the tracker's can-deep without waiting: a denial skips deep mode (to the checkpoint), otherwise deep mode starts with a snapshot.",
              always: [
                { guard: 'deepDenied', target: '#cycle.checkpoint', actions: 'skipDeep' },
                { target: 'snapshot', actions: 'startDeep' },
              ],
            },
            snapshot: {
              description:
                'Waits for the snapshot of the files deep mode may change (what a rollback puts back).',
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
              description:
                "Waits for the diagnostics before the deep call (the regression gate's baseline); a failure rolls back.",
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
              description:
                "Waits for the deep worker's handoff: a fence violation or a worker failure rolls back, a custody violation or protocol error stops the run, otherwise verify.",
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
              description:
                'Waits for the diagnostics after the deep call and judges the pass against the scope fence, the regression gate and the rollback policy; a failure rolls back.',
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
              description:
                'Decides without waiting: a pass the judgement refused is rolled back, otherwise accepted.',
              always: [{ guard: 'deepRollbackNeeded', target: 'rollback' }, { target: 'accepted' }],
            },
            rollback: {
              description:
                'Waits for the restorer to put the snapshot back: a failed rollback ends the run stuck with nothing checkpointed, otherwise the checkpoint.',
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
            accepted: {
              description: 'Accepts the deep pass, then the checkpoint.',
              entry: 'acceptDeep',
              always: { target: '#cycle.checkpoint' },
            },
          },
        },
        repair: {
          description:
            "Repair: the worker answers the diagnostics' error with a patch, the runtime applies it to the owned files and verifies it, round after round within the repair budget. Leads to the checkpoint, or stops the run on a protocol fault.",
          initial: 'budget',
          states: {
            budget: {
              description:
                'Decides without waiting: no error left to repair goes to the checkpoint, a spent budget ends repair as exhausted, otherwise a repair dispatch.',
              always: [
                { guard: 'repairNoError', target: '#cycle.checkpoint', actions: 'noRepairError' },
                { guard: 'repairDenied', target: 'exhausted' },
                { target: 'dispatching', actions: 'startRepair' },
              ],
            },
            dispatching: {
              description:
                "Waits for the repair worker's handoff: a valid repair goes to patching; any other handoff stops the run (protocol); a fence violation goes to the checkpoint with the target stuck; a custody violation, protocol error or failure stops the run.",
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
              description:
                "Waits for the patcher to apply the repair's patch to the owned files: a stale or refused patch stops the run, otherwise verify.",
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
              description: 'Waits for the diagnostics after the patch and judges the repair.',
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
              description:
                'Decides without waiting: an improvement is done, giving up (two neutral attempts, or no budget) is exhausted, otherwise another round.',
              always: [
                { guard: 'repairImproved', target: 'done' },
                { guard: 'repairGivesUp', target: 'exhausted' },
                { target: 'budget' },
              ],
            },
            done: {
              description: 'Accepts the repair, then the checkpoint.',
              entry: 'acceptRepair',
              always: { target: '#cycle.checkpoint' },
            },
            exhausted: {
              description: 'Marks repair exhausted for this target, then the checkpoint.',
              entry: 'markRepairExhausted',
              always: { target: '#cycle.checkpoint' },
            },
          },
        },
        falsify: {
          description:
            "Falsification: a worker tries to refute the target's statement, then the diagnostics check what it returned. Leads to the checkpoint, or stops the run on a protocol fault.",
          initial: 'dispatching',
          states: {
            dispatching: {
              description:
                "Waits for the falsification worker's handoff: a handoff is verified, a fence violation goes to the checkpoint with the target stuck, a custody violation, protocol error or failure stops the run.",
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
              description: "Waits for the diagnostics over the falsification's result, then the checkpoint.",
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
          description:
            'The delegated worker was denied permission: switches to the inline worker and dispatches again when there is one, else stops the run as an operational error.',
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
      description:
        "Keeps what this cycle verified: refuted edits restored first, the project gate (the diagnostics over the project), the human's approval when asked for, then a commit of exactly the verified bytes. Leads to review, or stops the run when the commit is refused.",
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
          description:
            'Waits for the project gate (the diagnostics over the whole project): a failing gate skips the commit, otherwise route.',
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
          description:
            'Decides without waiting: no checkpoint this cycle (--no-checkpoint, --commit never, nothing accepted) skips; the ask policy asks the human; otherwise commit.',
          always: [
            { guard: 'checkpointSkipped', target: 'skip' },
            { guard: 'commitAsk', target: 'confirm' },
            { target: 'commit' },
          ],
        },
        confirm: {
          description:
            "Waits for the human's approval of the commit: stop ends the run, skip skips it, otherwise commit.",
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
          description:
            'Waits for the checkpointer to commit exactly the verified bytes (objects read back before the ref moves): a refused checkpoint stops the run, otherwise review.',
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
        skip: {
          description: 'Notes the skipped checkpoint, then review.',
          entry: 'noteSkipCheckpoint',
          always: { target: '#cycle.review' },
        },
      },
    },
    review: {
      description:
        "Reviews the cycle when its target got stuck or a review is due, and routes a stuck review's next action: back into work, to the replan, or the end of the run.",
      initial: 'route',
      states: {
        route: {
          description:
            'Decides without waiting: a target stuck this cycle or a due review goes to reviewing, otherwise the boundary.',
          always: [
            { guard: 'stuckThisCycle', target: 'reviewing' },
            { guard: 'reviewIsDue', target: 'reviewing' },
            { target: '#cycle.boundary' },
          ],
        },
        reviewing: {
          description: "Waits for the reviewer's review of the cycle, then routeNext.",
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
          description:
            "Routes the review's next action without waiting (once per target per cycle): falsify, deep or repair go back into work; an outer route ends the run stuck with the next action; continue and stop go to the replan, the target staying blocked for the rerun guard.",
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
      description:
        'Re-plans after the review (the human approves the replan in prove mode and may pick a falsification policy instead). Leads to the boundary, or to falsification.',
      initial: 'planning',
      states: {
        planning: {
          description:
            "Waits for the planner's replan: prove mode asks the human to approve it, otherwise the boundary.",
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
          description:
            'Waits for the human on the replan: stop ends the run, declining it asks which falsification policy to try, otherwise the boundary.',
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
          description:
            "Waits for the human's falsification policy for the declined plan: a policy starts falsification, otherwise the boundary.",
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
      description:
        "Ends the cycle: ticks the tracker's budgets, then the next cycle's plan, the human's call (prove mode), or a final check when a limit is reached.",
      initial: 'tick',
      states: {
        tick: {
          description:
            "Ticks the tracker without waiting: a limit reached goes to the final check; in prove mode a stuck target asks about the blocker and otherwise asks whether to continue; otherwise the next cycle's plan.",
          entry: 'tickTracker',
          always: [
            { guard: 'limitReached', target: 'finalCheck' },
            { guard: 'proveAndStuck', target: 'askBlocker' },
            { guard: 'isProve', target: 'askContinue' },
            { target: '#cycle.plan', actions: 'nextCycle' },
          ],
        },
        finalCheck: {
          description:
            'Waits for one last discovery: no open target ends the run solved, otherwise the run stops on the limit (also when the check itself fails).',
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
          description:
            "Waits for the human's go-ahead for the next cycle (prove mode): stop ends the run, otherwise the next cycle's plan.",
          invoke: {
            id: 'askContinue',
            src: 'human',
            input: ({ context }) => continueQuestion(context),
            onDone: [humanStop, { target: '#cycle.plan', actions: [humanAnswer, 'nextCycle'] }],
            onError: stopOnError('human'),
          },
        },
        askBlocker: {
          description:
            'Waits for the human on the blocker (prove mode): new evidence starts the next cycle, formalize ends the run stuck for a redraft, a stuck review goes to stuckReview, anything else ends the run stuck.',
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
          description:
            "Waits for the reviewer's review of the stuck target the human asked for, then stuckRoute.",
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
          description:
            'Routes the stuck review without waiting: deep or repair reopen the cycle in work, an outer route ends the run stuck, halt and resume go back to the human.',
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
    solved: {
      description: "Final: no open target is left; the run's handoff says solved.",
      type: 'final',
      entry: 'finalizeSolved',
    },
    stuck: {
      description: 'Final: the run ended on a blocker; the handoff names it and the next step.',
      type: 'final',
      entry: 'finalizeStuck',
    },
    stopped: {
      description:
        'Final: the run stopped (the human, a limit, an error, a custody or protocol violation); the handoff says why.',
      type: 'final',
      entry: 'finalizeStopped',
    },
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
