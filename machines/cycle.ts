/**
 * The six-phase cycle (seed 002): Plan → Work → Checkpoint → Review → Replan → Continue/Stop, as
 * an xstate v5 machine. Guards and actions are named and call the pure rules of
 * `src/runtime/cycle-rules.ts` and `src/tracker/counters.ts`; the six actors (planner, worker,
 * diagnostics, reviewer, checkpointer, human) are declared here and provided by the runtime
 * (`src/runtime/`), in-process for tests or as subprocesses for the CLI. Final states carry the
 * run's run-contract/v1 handoff record as the machine's output.
 *
 * Extension points (not run here): deep mode (`options.deep`, the tracker's can-deep), repair
 * mode, and the synthesis outer loop (a `formalize` answer ends the run with `next_action:
 * redraft` for an outer loop to route).
 */
import { assign, fromPromise, setup } from 'xstate';
import type { Handoff, StopReason } from '../src/contract/index.js';
import {
  attemptOf,
  detectStuck,
  fenceStuck,
  finalHandoff,
  isTrivialGoal,
  mergeBaseline,
  pickTarget,
  relaunchVerdict,
  reviewDue,
  reviewScopeFor,
  verifyEdit,
  wrapStuckHandoff,
} from '../src/runtime/cycle-rules.js';
import type {
  CheckpointInput,
  CheckpointOutput,
  CycleContext,
  CycleInput,
  DiagnosticsInput,
  DiagnosticsOutput,
  HumanInput,
  HumanOutput,
  PlannerInput,
  PlannerOutput,
  ReviewInput,
  ReviewOutput,
  WorkerInput,
  WorkOutcome,
} from '../src/runtime/cycle-types.js';
import {
  EMPTY_LEDGER,
  ledgerAfterHandoff,
  ledgerAfterPlan,
  searchGrant,
} from '../src/runtime/search-budget.js';
import { tierPlan, type VerificationQuestion } from '../src/runtime/verification-ladder.js';
import { kwSearchRemaining, recordKwSearch, tick } from '../src/tracker/counters.js';

function declared<O, I>(name: string) {
  return fromPromise<O, I>(async () => {
    throw new Error(`cycle actor '${name}' was not provided (use machine.provide or createCycleRuntime)`);
  });
}

/** The diagnostics request for a question: the ladder's starting tier and ceiling (verification-ladder.ts). */
function ask(q: VerificationQuestion, files: readonly string[] = []): DiagnosticsInput {
  const plan = tierPlan(q);
  return { question: q.kind, tier: plan.start, maxTier: plan.max, files: [...files] };
}

/** Options the human is offered after a clear blocker (seed 000 § Human-in-the-loop). */
export const BLOCKER_OPTIONS = ['continue-with-evidence', 'formalize', 'review-stuck', 'stop'] as const;

/**
 * The initial context of a cycle run (no clock or ids are read: everything comes from `input`).
 *
 * @example
 * ```ts
 * const ctx = initialCycleContext(input);
 * ```
 */
export function initialCycleContext(input: CycleInput): CycleContext {
  const blocked: Record<string, Handoff> = {};
  const evidenceFor: Record<string, readonly string[]> = {};
  const prior = input.priorHandoff;
  if (prior?.blocker_signature) {
    const m = /^(.*):(\d+):/.exec(prior.blocker_signature);
    if (m) {
      const id = `${m[1]}:${m[2]}`;
      blocked[id] = { ...prior, target: id, scope: 'sorry' };
      if (input.priorEvidence && input.priorEvidence.length > 0) evidenceFor[id] = [...input.priorEvidence];
    }
  }
  return {
    options: input.options,
    warnings: [...input.warnings],
    tracker: input.tracker,
    now: input.startedAt,
    limitViolations: [],
    targets: [],
    initialCount: null,
    lastCount: null,
    lastDecreaseAt: input.startedAt,
    plan: [],
    searches: [],
    current: null,
    attempts: {},
    blocked,
    evidenceFor,
    searchLedgers: {},
    refused: [],
    lastWork: null,
    handoffs: [],
    accepted: [],
    filesOwned: [...input.filesOwned],
    filesChanged: [],
    baseline: input.baseline,
    stuck: null,
    lastStuck: null,
    stuckHandoff: null,
    gateErrors: [],
    review: null,
    reviews: 0,
    checkpoints: [],
    committedThisCycle: false,
    delegation: 'delegate',
    humanAnswer: null,
    stopDetail: null,
    log: [],
    final: null,
    plannedCycle: 0,
    pendingStop: null,
    nextActionOverride: null,
  };
}

const cycleNo = (c: CycleContext) => c.tracker.cycles + 1;
const outputOf = <T>(e: unknown): T => (e as { output: T }).output;
const answer = (e: unknown) => outputOf<HumanOutput>(e).answer;

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
  },
  guards: {
    noOpenTargets: ({ event }) => outputOf<DiagnosticsOutput>(event).targets.length === 0,
    noTargetPicked: ({ context }) => context.current === null,
    skipPlanning: ({ context }) =>
      context.plannedCycle === cycleNo(context) ||
      context.options.planning === 'off' ||
      (context.current !== null && isTrivialGoal(context.current.goal)),
    needsPlanApproval: ({ context }) =>
      context.options.mode === 'prove' && context.options.planning === 'ask',
    relaunchForbidden: ({ context }) =>
      context.current !== null && relaunchVerdict(context, context.current)?.forbidden === true,
    isProve: ({ context }) => context.options.mode === 'prove',
    inlineAvailable: ({ context }) => context.options.inlineFallback && context.delegation === 'delegate',
    outcomeIs: ({ event }, params: { kind: WorkOutcome['kind'] }) =>
      outputOf<WorkOutcome>(event).kind === params.kind,
    // verify a worker's changed file, and any solved claim (even one that changed nothing)
    nothingToVerify: ({ context }) =>
      context.current === null ||
      context.lastWork?.kind !== 'handoff' ||
      (context.lastWork.accepted.length === 0 && context.lastWork.handoff.status !== 'solved'),
    checkpointSkipped: ({ context }) =>
      !context.options.checkpoint || context.options.commit === 'never' || context.accepted.length === 0,
    gateFailed: ({ event }) => !outputOf<DiagnosticsOutput>(event).ok,
    commitAsk: ({ context }) => context.options.commit === 'ask',
    checkpointRefused: ({ event }) => (outputOf<CheckpointOutput>(event).refused ?? null) !== null,
    stuckThisCycle: ({ context }) => context.stuck !== null,
    reviewIsDue: ({ context }) =>
      reviewDue(context.options.reviewEvery, cycleNo(context), context.committedThisCycle),
    limitReached: ({ context }) => context.limitViolations.length > 0,
    proveAndStuck: ({ context }) => context.options.mode === 'prove' && context.stuck !== null,
    answered: ({ event }, params: { answer: string }) => answer(event) === params.answer,
    answeredEvidence: ({ event }) =>
      answer(event) === 'continue-with-evidence' &&
      outputOf<HumanOutput>(event).evidence.some((e) => e.trim() !== ''),
  },
  actions: {
    absorbDiagnostics: assign(({ context, event }) => {
      const out = outputOf<DiagnosticsOutput>(event);
      const count = out.targets.length;
      const decreased = context.lastCount !== null && count < context.lastCount;
      return {
        now: Math.max(context.now, out.now),
        targets: out.targets,
        initialCount: context.initialCount ?? count,
        lastDecreaseAt: decreased ? out.now : context.lastDecreaseAt,
        lastCount: count,
      };
    }),
    pickTarget: assign(({ context }) => ({ current: pickTarget(context) })),
    absorbPlan: assign(({ context, event }) => {
      const out = outputOf<PlannerOutput>(event);
      let tracker = context.tracker;
      const budget = kwSearchRemaining(tracker, out.now);
      const searches = out.searches.slice(0, budget);
      for (let i = 0; i < searches.length; i++) tracker = recordKwSearch(tracker);
      const evidenceFor = { ...context.evidenceFor };
      for (const [t, ev] of Object.entries(out.evidence)) {
        evidenceFor[t] = [...(evidenceFor[t] ?? []), ...ev];
      }
      // planning searches feed the fallback gate of the target being planned
      const id = context.current?.id;
      const searchLedgers =
        id === undefined
          ? context.searchLedgers
          : {
              ...context.searchLedgers,
              [id]: ledgerAfterPlan(context.searchLedgers[id] ?? EMPTY_LEDGER, searches),
            };
      return {
        now: Math.max(context.now, out.now),
        plan: out.steps,
        searches,
        tracker,
        evidenceFor,
        searchLedgers,
        plannedCycle: cycleNo(context),
        log: [...context.log, `plan: ${out.summary}`],
      };
    }),
    markRefused: assign(({ context }) => {
      const t = context.current;
      if (t === null) return {};
      const v = relaunchVerdict(context, t);
      return {
        refused: [...context.refused, t.id],
        stuckHandoff: context.blocked[t.id] ?? context.stuckHandoff,
        log: [...context.log, `guard: relaunch of ${t.id} refused — ${v?.reason ?? ''}`],
      };
    }),
    switchToInline: assign(({ context }) => ({
      delegation: 'inline' as const,
      log: [...context.log, 'work: permission denied — delegation aborted, continuing inline'],
    })),
    absorbWork: assign(({ context, event }) => {
      const out = outputOf<WorkOutcome>(event);
      if (out.kind !== 'handoff' || context.current === null)
        return { lastWork: out, now: Math.max(context.now, out.now) };
      const t = context.current;
      const attempts = {
        ...context.attempts,
        [t.id]: [...(context.attempts[t.id] ?? []), attemptOf(cycleNo(context), out)],
      };
      const solved = out.handoff.status === 'solved';
      const blocked = { ...context.blocked };
      const evidenceFor = { ...context.evidenceFor };
      if (solved) {
        delete blocked[t.id];
        delete evidenceFor[t.id];
      } else if (blocked[t.id] !== undefined) {
        // the relaunch consumed its evidence; a new blocker needs new evidence again
        delete evidenceFor[t.id];
      }
      // the worker's searches count against the tracker's knowledge-search budget of this cycle
      let tracker = context.tracker;
      const searches = Math.min(out.handoff.evidence.queries.length, kwSearchRemaining(tracker, out.now));
      for (let i = 0; i < searches; i++) tracker = recordKwSearch(tracker);
      return {
        lastWork: out,
        now: Math.max(context.now, out.now),
        tracker,
        attempts,
        blocked,
        evidenceFor,
        searchLedgers: {
          ...context.searchLedgers,
          [t.id]: ledgerAfterHandoff(context.searchLedgers[t.id] ?? EMPTY_LEDGER, out.handoff),
        },
        handoffs: [...context.handoffs, out.handoff],
        accepted: [...new Set([...context.accepted, ...out.accepted])],
        filesChanged: [...new Set([...context.filesChanged, ...out.accepted])],
        baseline: mergeBaseline(context.baseline, out.baseline),
        log: [...context.log, `work: ${t.id} → ${out.handoff.status}`],
      };
    }),
    markFenceStuck: assign(({ context, event }) => {
      const out = outputOf<WorkOutcome>(event);
      const t = context.current;
      if (t === null || out.kind === 'handoff') return {};
      const v = fenceStuck(t, out.detail);
      return { stuck: v, lastStuck: v, log: [...context.log, `stuck: ${v.detail}`] };
    }),
    assessStuck: assign(({ context }) => {
      const t = context.current;
      if (t === null) return {};
      const v = detectStuck({
        target: t,
        attempts: context.attempts[t.id] ?? [],
        gateErrors: context.gateErrors,
        now: context.now,
        lastDecreaseAt: context.lastDecreaseAt,
        openCount: context.lastCount ?? 0,
        stallMinutes: context.options.stallMinutes,
        maxFailuresPerTarget: context.options.maxFailuresPerTarget,
      });
      const solvedNow = context.lastWork?.kind === 'handoff' && context.lastWork.handoff.status === 'solved';
      return solvedNow || v === null
        ? {}
        : { stuck: v, lastStuck: v, log: [...context.log, `stuck: ${v.detail}`] };
    }),
    absorbVerify: assign(({ context, event }) => {
      const out = outputOf<DiagnosticsOutput>(event);
      const t = context.current;
      const w = context.lastWork;
      if (t === null || w?.kind !== 'handoff') return {};
      const v = verifyEdit(t, context.attempts[t.id] ?? [], w.handoff.status, out);
      return {
        now: Math.max(context.now, out.now),
        attempts: { ...context.attempts, [t.id]: v.attempts },
        log: [...context.log, v.line],
      };
    }),
    absorbGate: assign(({ context, event }) => {
      const out = outputOf<DiagnosticsOutput>(event);
      return {
        now: Math.max(context.now, out.now),
        gateErrors: [...context.gateErrors, out.errors].slice(-5),
      };
    }),
    noteSkipCheckpoint: assign(({ context }) => ({
      log: [
        ...context.log,
        context.accepted.length === 0
          ? 'checkpoint: No changes this cycle — skipping checkpoint'
          : `checkpoint: skipped (${context.options.commit === 'never' ? '--commit=never' : 'gate failed or checkpoint off'})`,
      ],
    })),
    absorbCheckpoint: assign(({ context, event }) => {
      const out = outputOf<CheckpointOutput>(event);
      return {
        now: Math.max(context.now, out.now),
        committedThisCycle: out.committed,
        checkpoints: out.committed
          ? [
              ...context.checkpoints,
              { cycle: cycleNo(context), commit: out.commit, files: context.accepted, message: out.message },
            ]
          : context.checkpoints,
        // a commit's message is its subject (`checkpoint: …`); a skip reports why
        log: [
          ...context.log,
          out.committed
            ? `${out.message}${out.commit ? ` (${out.commit.slice(0, 8)})` : ''}`
            : `checkpoint: ${out.refused ? `refused — ${out.refused}` : out.message}`,
        ],
      };
    }),
    absorbReview: assign(({ context, event }) => {
      const out = outputOf<ReviewOutput>(event);
      const base = { now: Math.max(context.now, out.now), review: out, reviews: context.reviews + 1 };
      const v = out.mode === 'stuck' ? (context.stuck ?? context.lastStuck) : null;
      if (v === null) return { ...base, log: [...context.log, `review: ${out.suggestions[0] ?? 'done'}`] };
      const wrapped = wrapStuckHandoff(context, v, out);
      return {
        ...base,
        stuckHandoff: wrapped,
        blocked: { ...context.blocked, [v.target]: wrapped },
        log: [
          ...context.log,
          `review (stuck): ${wrapped.blocker_class} — next_action ${wrapped.next_action}`,
        ],
      };
    }),
    tickTracker: assign(({ context }) => {
      const t = tick(context.tracker, context.stuck !== null, context.now);
      return { tracker: t.state, limitViolations: t.violations };
    }),
    absorbHumanEvidence: assign(({ context, event }) => {
      const out = outputOf<HumanOutput>(event);
      const id = context.stuckHandoff?.target ?? context.current?.id;
      if (id === undefined || id === null) return { humanAnswer: out };
      return {
        humanAnswer: out,
        now: Math.max(context.now, out.now),
        evidenceFor: { ...context.evidenceFor, [id]: [...(context.evidenceFor[id] ?? []), ...out.evidence] },
        log: [...context.log, `human: new evidence for ${id}`],
      };
    }),
    absorbHuman: assign(({ context, event }) => {
      const out = outputOf<HumanOutput>(event);
      return { humanAnswer: out, now: Math.max(context.now, out.now) };
    }),
    nextCycle: assign(() => ({
      current: null,
      stuck: null,
      accepted: [],
      refused: [],
      committedThisCycle: false,
      review: null,
      lastWork: null,
    })),
    setStop: assign((_, params: { reason: StopReason }) => ({
      pendingStop: { reason: params.reason, detail: null },
    })),
    setWorkStop: assign(({ event }, params: { reason: StopReason; prefix: string }) => {
      const out = outputOf<WorkOutcome>(event);
      const detail = out.kind === 'handoff' ? params.prefix : `${params.prefix}: ${out.detail}`;
      return { pendingStop: { reason: params.reason, detail } };
    }),
    setCheckpointStop: assign(({ event }) => ({
      pendingStop: {
        reason: 'protocol-error' as const,
        detail: `custody violation at checkpoint: ${outputOf<CheckpointOutput>(event).refused ?? ''}`,
      },
    })),
    setErrorStop: assign(({ event }, params: { phase: string }) => ({
      pendingStop: {
        reason: 'operational-error' as const,
        detail: `${params.phase} failed: ${String((event as { error?: unknown }).error ?? 'unknown error')}`,
      },
    })),
    setLimitStop: assign(({ context }) => {
      const v = context.limitViolations;
      const reason = (v.includes('max-stuck') ? 'max-stuck' : v[0]) as StopReason;
      return { pendingStop: { reason, detail: null } };
    }),
    setRedraft: assign({ nextActionOverride: 'redraft' as const }),
    finalizeSolved: assign(({ context }) => ({ final: finalHandoff(context, { status: 'solved' }) })),
    finalizeStuck: assign(({ context }) => {
      const stuck = context.stuckHandoff ?? context.blocked[context.refused[0] ?? ''] ?? null;
      const f = finalHandoff(context, { status: 'stuck', stuck });
      return { final: context.nextActionOverride ? { ...f, next_action: context.nextActionOverride } : f };
    }),
    finalizeStopped: assign(({ context }) => {
      const p = context.pendingStop ?? { reason: 'user-stop' as const, detail: null };
      const stuck =
        p.reason === 'max-stuck'
          ? (context.stuckHandoff ??
            (context.lastStuck ? wrapStuckHandoff(context, context.lastStuck, context.review) : null))
          : null;
      const kind = {
        status: 'stopped' as const,
        stopReason: p.reason,
        stuck,
        ...(p.detail === null ? {} : { detail: p.detail }),
      };
      return { final: finalHandoff(context, kind) };
    }),
  },
});

/** The cycle machine. Provide its actors with `cycleMachine.provide({ actors })` (see src/runtime). */
export const cycleMachine = cycleSetup.createMachine({
  id: 'cycle',
  context: ({ input }) => initialCycleContext(input),
  output: ({ context }) => context.final as Handoff,
  initial: 'plan',
  states: {
    plan: {
      initial: 'discover',
      states: {
        discover: {
          invoke: {
            id: 'discover',
            src: 'diagnostics',
            input: () => ask({ kind: 'discover' }),
            onDone: [
              { guard: 'noOpenTargets', target: '#cycle.solved', actions: 'absorbDiagnostics' },
              { target: 'choose', actions: 'absorbDiagnostics' },
            ],
            onError: {
              target: '#cycle.stopped',
              actions: { type: 'setErrorStop', params: { phase: 'diagnostics' } },
            },
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
            input: ({ context }) => ({
              kind: 'plan' as const,
              cycle: cycleNo(context),
              targets: context.targets,
              blocked: Object.keys(context.blocked),
              searchBudget: kwSearchRemaining(context.tracker, context.now),
              stuck: null,
              review: null,
            }),
            onDone: [
              { guard: 'needsPlanApproval', target: 'approve', actions: ['absorbPlan', 'pickTarget'] },
              { target: '#cycle.work', actions: ['absorbPlan', 'pickTarget'] },
            ],
            onError: {
              target: '#cycle.stopped',
              actions: { type: 'setErrorStop', params: { phase: 'planner' } },
            },
          },
        },
        approve: {
          invoke: {
            id: 'approvePlan',
            src: 'human',
            input: ({ context }) => ({
              question: 'approve-plan' as const,
              options: ['approve', 'stop'],
              summary: context.log.at(-1) ?? '',
            }),
            onDone: [
              {
                guard: { type: 'answered', params: { answer: 'stop' } },
                target: '#cycle.stopped',
                actions: ['absorbHuman', { type: 'setStop', params: { reason: 'user-stop' } }],
              },
              { target: '#cycle.work', actions: 'absorbHuman' },
            ],
            onError: {
              target: '#cycle.stopped',
              actions: { type: 'setErrorStop', params: { phase: 'human' } },
            },
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
            input: ({ context }) => {
              const t = context.current!;
              const prior = context.blocked[t.id];
              const attempts = context.attempts[t.id] ?? [];
              const lastFail = [...attempts].reverse().find((a) => !a.solved);
              const ledger = context.searchLedgers[t.id] ?? EMPTY_LEDGER;
              return {
                target: t,
                cycle: cycleNo(context),
                mode: context.options.mode,
                priorBlocker: prior?.blocker_signature ?? null,
                evidenceDelta: prior ? [...(context.evidenceFor[t.id] ?? [])] : [],
                priorFailure: lastFail?.signature ?? null,
                searchResults: context.searches,
                searchBudget: searchGrant(context.tracker, context.now, ledger).budget,
                searchLedger: ledger,
                trivial: isTrivialGoal(t.goal),
                inline: context.delegation === 'inline',
                budget: {
                  max_cycles: context.options.maxCycles,
                  max_stuck_cycles: context.options.maxStuck,
                  runtime: context.options.maxRuntime === '' ? null : context.options.maxRuntime,
                },
                baseline: context.baseline,
              };
            },
            onDone: [
              {
                guard: { type: 'outcomeIs', params: { kind: 'permission-denied' } },
                target: 'fallback',
                actions: 'absorbWork',
              },
              {
                guard: { type: 'outcomeIs', params: { kind: 'fence-violation' } },
                target: '#cycle.checkpoint',
                actions: ['absorbWork', 'markFenceStuck'],
              },
              {
                guard: { type: 'outcomeIs', params: { kind: 'custody-violation' } },
                target: '#cycle.stopped',
                actions: [
                  'absorbWork',
                  { type: 'setWorkStop', params: { reason: 'protocol-error', prefix: 'custody violation' } },
                ],
              },
              {
                guard: { type: 'outcomeIs', params: { kind: 'protocol-error' } },
                target: '#cycle.stopped',
                actions: [
                  'absorbWork',
                  {
                    type: 'setWorkStop',
                    params: { reason: 'protocol-error', prefix: 'worker protocol error' },
                  },
                ],
              },
              {
                guard: { type: 'outcomeIs', params: { kind: 'operational-error' } },
                target: '#cycle.stopped',
                actions: [
                  'absorbWork',
                  { type: 'setWorkStop', params: { reason: 'operational-error', prefix: 'worker failed' } },
                ],
              },
              { target: 'verifyRoute', actions: 'absorbWork' },
            ],
            onError: {
              target: '#cycle.stopped',
              actions: { type: 'setErrorStop', params: { phase: 'worker' } },
            },
          },
        },
        verifyRoute: {
          always: [
            { guard: 'nothingToVerify', target: '#cycle.checkpoint', actions: 'assessStuck' },
            { target: 'verify' },
          ],
        },
        verify: {
          invoke: {
            id: 'verify',
            src: 'diagnostics',
            input: ({ context }) =>
              ask(
                {
                  kind: 'edit',
                  importsChanged: context.lastWork?.kind === 'handoff' && context.lastWork.importsChanged,
                },
                context.current ? [context.current.file] : [],
              ),
            onDone: { target: '#cycle.checkpoint', actions: ['absorbVerify', 'assessStuck'] },
            onError: {
              target: '#cycle.stopped',
              actions: { type: 'setErrorStop', params: { phase: 'verification' } },
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
      initial: 'gate',
      states: {
        gate: {
          invoke: {
            id: 'gate',
            src: 'diagnostics',
            input: () => ask({ kind: 'checkpoint' }),
            onDone: [
              { guard: 'gateFailed', target: 'skip', actions: 'absorbGate' },
              { target: 'route', actions: 'absorbGate' },
            ],
            onError: {
              target: '#cycle.stopped',
              actions: { type: 'setErrorStop', params: { phase: 'project gate' } },
            },
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
            input: ({ context }) => ({
              question: 'approve-commit' as const,
              options: ['commit', 'skip', 'stop'],
              summary: `commit ${context.accepted.join(', ')}`,
            }),
            onDone: [
              {
                guard: { type: 'answered', params: { answer: 'stop' } },
                target: '#cycle.stopped',
                actions: ['absorbHuman', { type: 'setStop', params: { reason: 'user-stop' } }],
              },
              {
                guard: { type: 'answered', params: { answer: 'skip' } },
                target: 'skip',
                actions: 'absorbHuman',
              },
              { target: 'commit', actions: 'absorbHuman' },
            ],
            onError: {
              target: '#cycle.stopped',
              actions: { type: 'setErrorStop', params: { phase: 'human' } },
            },
          },
        },
        commit: {
          invoke: {
            id: 'checkpointer',
            src: 'checkpointer',
            input: ({ context }) => ({
              cycle: cycleNo(context),
              files: context.accepted,
              summary:
                `cycle ${cycleNo(context)}: ${context.current?.id ?? ''} ${context.lastWork?.kind === 'handoff' ? context.lastWork.handoff.status : ''}`.trim(),
              commit: context.options.commit,
            }),
            onDone: [
              {
                guard: 'checkpointRefused',
                target: '#cycle.stopped',
                actions: ['absorbCheckpoint', 'setCheckpointStop'],
              },
              { target: '#cycle.review', actions: 'absorbCheckpoint' },
            ],
            onError: {
              target: '#cycle.stopped',
              actions: { type: 'setErrorStop', params: { phase: 'checkpoint' } },
            },
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
            input: ({ context }) => ({
              cycle: cycleNo(context),
              mode: context.stuck !== null ? ('stuck' as const) : ('normal' as const),
              ...reviewScopeFor(context.options.scope, context.current),
              stuck: context.stuck,
              lastHandoff: context.handoffs.at(-1) ?? null,
            }),
            onDone: { target: '#cycle.replan', actions: 'absorbReview' },
            onError: {
              target: '#cycle.stopped',
              actions: { type: 'setErrorStop', params: { phase: 'review' } },
            },
          },
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
            input: ({ context }) => ({
              kind: 'replan' as const,
              cycle: cycleNo(context),
              targets: context.targets,
              blocked: Object.keys(context.blocked),
              searchBudget: kwSearchRemaining(context.tracker, context.now),
              stuck: context.stuck,
              review: context.review,
            }),
            onDone: [
              { guard: 'isProve', target: 'approve', actions: 'absorbPlan' },
              { target: '#cycle.boundary', actions: 'absorbPlan' },
            ],
            onError: {
              target: '#cycle.stopped',
              actions: { type: 'setErrorStop', params: { phase: 'replan' } },
            },
          },
        },
        approve: {
          invoke: {
            id: 'approveReplan',
            src: 'human',
            input: ({ context }) => ({
              question: 'approve-replan' as const,
              options: ['approve', 'decline', 'stop'],
              summary: context.log.at(-1) ?? '',
            }),
            onDone: [
              {
                guard: { type: 'answered', params: { answer: 'stop' } },
                target: '#cycle.stopped',
                actions: ['absorbHuman', { type: 'setStop', params: { reason: 'user-stop' } }],
              },
              { target: '#cycle.boundary', actions: 'absorbHuman' },
            ],
            onError: {
              target: '#cycle.stopped',
              actions: { type: 'setErrorStop', params: { phase: 'human' } },
            },
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
            input: () => ask({ kind: 'discover' }),
            onDone: [
              { guard: 'noOpenTargets', target: '#cycle.solved', actions: 'absorbDiagnostics' },
              { target: '#cycle.stopped', actions: ['absorbDiagnostics', 'setLimitStop'] },
            ],
            onError: { target: '#cycle.stopped', actions: 'setLimitStop' },
          },
        },
        askContinue: {
          invoke: {
            id: 'askContinue',
            src: 'human',
            input: ({ context }) => ({
              question: 'continue' as const,
              options: ['continue', 'stop'],
              summary: `cycle ${context.tracker.cycles} done; ${context.lastCount ?? 0} open target(s) before it`,
            }),
            onDone: [
              {
                guard: { type: 'answered', params: { answer: 'stop' } },
                target: '#cycle.stopped',
                actions: ['absorbHuman', { type: 'setStop', params: { reason: 'user-stop' } }],
              },
              { target: '#cycle.plan', actions: ['absorbHuman', 'nextCycle'] },
            ],
            onError: {
              target: '#cycle.stopped',
              actions: { type: 'setErrorStop', params: { phase: 'human' } },
            },
          },
        },
        askBlocker: {
          invoke: {
            id: 'askBlocker',
            src: 'human',
            input: ({ context }) => ({
              question: 'blocker' as const,
              options: [...BLOCKER_OPTIONS],
              summary: context.stuckHandoff
                ? `${context.stuckHandoff.target} is stuck: ${context.stuckHandoff.blocker_signature}`
                : 'a target is stuck',
            }),
            onDone: [
              {
                guard: 'answeredEvidence',
                target: '#cycle.plan',
                actions: ['absorbHumanEvidence', 'nextCycle'],
              },
              {
                guard: { type: 'answered', params: { answer: 'formalize' } },
                target: '#cycle.stuck',
                actions: ['absorbHuman', 'setRedraft'],
              },
              {
                guard: { type: 'answered', params: { answer: 'review-stuck' } },
                target: 'stuckReview',
                actions: 'absorbHuman',
              },
              { target: '#cycle.stuck', actions: 'absorbHuman' },
            ],
            onError: {
              target: '#cycle.stopped',
              actions: { type: 'setErrorStop', params: { phase: 'human' } },
            },
          },
        },
        stuckReview: {
          invoke: {
            id: 'stuckReview',
            src: 'reviewer',
            input: ({ context }) => ({
              cycle: context.tracker.cycles,
              mode: 'stuck' as const,
              ...reviewScopeFor(context.options.scope, context.current),
              stuck: context.lastStuck,
              lastHandoff: context.handoffs.at(-1) ?? null,
            }),
            onDone: { target: 'askBlocker', actions: 'absorbReview' },
            onError: {
              target: '#cycle.stopped',
              actions: { type: 'setErrorStop', params: { phase: 'review' } },
            },
          },
        },
      },
    },
    solved: { type: 'final', entry: 'finalizeSolved' },
    stuck: { type: 'final', entry: 'finalizeStuck' },
    stopped: { type: 'final', entry: 'finalizeStopped' },
  },
});
