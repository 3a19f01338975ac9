/**
 * `synthesis` — the outer loop around the six-phase cycle (seed 002 § Synthesis Outer Loop, §
 * Draft Commit Boundary, § Session-Generated Provenance, § Statement Safety, § Claim Queue, §
 * Review Router, § Claim Boundary Protocol). Source-backed: the claim queue is extracted once,
 * then per claim: start-claim → is its declaration already in the target? → draft → (guided: a
 * human approves) → assemble into the target → validate → `draft:` commit (unless `--commit
 * never`; guided `--commit ask` asks the human first) → the inner cycle → on stuck, the review router (`continue`/`deep`/`repair` run the
 * inner cycle again within the claim's budgets, `redraft` re-drafts if provenance and the
 * statement policy allow, `golf` runs a golf pass, `stop` ends the claim) → reset-claim → next
 * claim, until the queue is empty or the session runtime is spent. Scope-backed: one pseudo-claim
 * that starts at the inner cycle. Named guards and actions call the pure rules of
 * `src/synthesis/loop/`; actor outputs reach them as typed `params`. The actors are declared here
 * and provided by `src/runtime/synthesis-run.ts` (real git, subprocess drafter and worker).
 */
import { type AnyEventObject, assign, fromPromise, setup } from 'xstate';
import {
  absorbAssemble,
  absorbCommit,
  absorbCommitAnswer,
  absorbDraft,
  absorbExtract,
  absorbGolf,
  absorbInvalid,
  absorbNow,
  absorbProve,
  absorbValidated,
  allowRedraft,
  alreadyPresent,
  approveInput,
  assembleEnded,
  assembleInput,
  beginClaim,
  beginScope,
  type ClaimEnd,
  claimBudgetLeft,
  commitInput,
  commitQuestion,
  currentRoute,
  draftEnded,
  draftInput,
  endClaim,
  golfEnded,
  golfInput,
  haltSession,
  humanEnded,
  initialSynthesisContext,
  inspectInput,
  invalidEnded,
  noteRoute,
  proveInput,
  redraftVerdict,
  refusedEnd,
  routedEnd,
  runtimeExhausted,
  synthesisOutput,
} from '../src/synthesis/loop/index.js';
import type {
  ApproveInput,
  ApproveOutput,
  AssembleInput,
  AssembleOutput,
  CommitInput,
  CommitOutput,
  DraftInput,
  DraftOutput,
  ExtractOutput,
  GolfInput,
  GolfOutput,
  InspectInput,
  InspectOutput,
  ProveInput,
  ProveOutput,
  SynthesisContext,
  SynthesisInput,
  SynthesisOutput,
  ValidateInput,
  ValidateOutput,
} from '../src/synthesis/loop/types.js';

function declared<O, I>(name: string) {
  return fromPromise<O, I>(async () => {
    throw new Error(`synthesis actor '${name}' was not provided (use machine.provide or runSynthesis)`);
  });
}

/** The redraft rule on the context (provenance + statement policy). */
const verdictOf = (c: SynthesisContext) =>
  redraftVerdict({
    policy: c.input.policy,
    explicit: c.input.policyExplicit,
    provenance: c.provenance,
    file: c.input.targetFile,
    declarations: c.active?.declarations ?? [],
  });

/** Redrafts left for the active claim. */
const redraftLeft = (c: SynthesisContext) => (c.active?.redrafts ?? 0) < c.input.maxRedrafts;

/** The machine's setup: types, declared actors, named guards and actions. */
export const synthesisSetup = setup({
  types: {} as {
    context: SynthesisContext;
    input: SynthesisInput;
    output: SynthesisOutput;
  },
  actors: {
    extract: declared<ExtractOutput, Record<string, never>>('extract'),
    inspectTarget: declared<InspectOutput, InspectInput>('inspectTarget'),
    drafter: declared<DraftOutput, DraftInput>('drafter'),
    human: declared<ApproveOutput, ApproveInput>('human'),
    assemble: declared<AssembleOutput, AssembleInput | null>('assemble'),
    validate: declared<ValidateOutput, ValidateInput>('validate'),
    committer: declared<CommitOutput, CommitInput>('committer'),
    prove: declared<ProveOutput, ProveInput>('prove'),
    golf: declared<GolfOutput, GolfInput>('golf'),
  },
  guards: {
    scopeBacked: ({ context }) => context.input.entry === 'scope',
    extractFailed: (_, out: ExtractOutput) => !out.ok,
    queueEmpty: ({ context }) => context.cursor >= context.queue.length,
    runtimeExhausted: ({ context }) => runtimeExhausted(context),
    scopeClaim: ({ context }) => context.active?.claim.kind === 'scope',
    declarationPresent: (_, out: InspectOutput) => out.present,
    drafted: (_, out: DraftOutput) => out.kind === 'drafted',
    guided: ({ context }) => context.input.mode === 'guided',
    answeredApprove: (_, out: ApproveOutput) => out.answer === 'approve',
    answeredSkip: (_, out: ApproveOutput) => out.answer === 'skip',
    nothingAdded: (_, out: AssembleOutput) => !out.ok || out.added.length === 0,
    draftChecks: (_, out: ValidateOutput) => out.ok,
    redraftLeft: ({ context }) => redraftLeft(context),
    commitNever: ({ context }) => context.input.commit === 'never',
    // guided --commit ask: the human is asked before the draft: commit (autoformalize coerces ask
    // to auto at startup, like autoprove; the mode check keeps the machine honest without it)
    commitAsk: ({ context }) => context.input.commit === 'ask' && context.input.mode === 'guided',
    answeredCommit: (_, out: ApproveOutput) => out.answer === 'commit',
    answeredKeep: (_, out: ApproveOutput) => out.answer === 'keep',
    commitFailed: (_, out: CommitOutput) => !out.committed && out.error !== null,
    routeProved: ({ context }) => currentRoute(context).to === 'proved',
    routeAgain: ({ context }) => currentRoute(context).to === 'again' && claimBudgetLeft(context),
    routeRedraft: ({ context }) => currentRoute(context).to === 'redraft',
    routeGolf: ({ context }) => currentRoute(context).to === 'golf',
    redraftAllowed: ({ context }) => verdictOf(context).allowed && redraftLeft(context),
    redraftHalts: ({ context }) => {
      const v = verdictOf(context);
      return !v.allowed && v.halt;
    },
  },
  actions: {
    absorbExtract: assign(({ context }, out: ExtractOutput) => absorbExtract(context, out)),
    beginClaim: assign(({ context }) => beginClaim(context)),
    beginScope: assign(({ context }) => beginScope(context)),
    absorbNow: assign(({ context }, out: { now: number }) => absorbNow(context, out)),
    absorbDraft: assign(({ context }, out: DraftOutput) => absorbDraft(context, out)),
    absorbAssemble: assign(({ context }, out: AssembleOutput) => absorbAssemble(context, out)),
    absorbValidated: assign(({ context }, out: ValidateOutput) => absorbValidated(context, out)),
    absorbInvalid: assign(({ context }, out: ValidateOutput) => absorbInvalid(context, out)),
    absorbCommit: assign(({ context }, out: CommitOutput) => absorbCommit(context, out)),
    absorbCommitAnswer: assign(({ context }, out: ApproveOutput) => absorbCommitAnswer(context, out)),
    absorbProve: assign(({ context }, out: ProveOutput) => absorbProve(context, out)),
    absorbGolf: assign(({ context }, out: GolfOutput) => absorbGolf(context, out)),
    noteRoute: assign(({ context }) => noteRoute(context)),
    allowRedraft: assign(({ context }) => allowRedraft(context, verdictOf(context))),
    finishClaim: assign(({ context }, end: ClaimEnd) => endClaim(context, end)),
    stopByHuman: assign({ stoppedByHuman: true }),
    halt: assign(({ context }, reason: string) => haltSession(context, reason)),
    // the phase is a static param (the diagram prints it); the error comes from the error event
    failClaim: assign(({ context, event }, p: { phase: string }) =>
      endClaim(context, {
        status: 'stuck',
        reason: `${p.phase} failed: ${String('error' in event ? ((event.error as Error)?.message ?? event.error) : 'error')}`,
      }),
    ),
  },
});

type EndOf = (a: { context: SynthesisContext; event: AnyEventObject }) => ClaimEnd;

/** An actor's output as an action's params (every actor stamps its `now`). */
const output = ({ event }: { event: AnyEventObject }) => event.output;
/** Absorb only the actor's clock. */
const tick = { type: 'absorbNow', params: output } as const;
/** The reducers that absorb an actor's output. */
type Absorber =
  | 'absorbNow'
  | 'absorbDraft'
  | 'absorbAssemble'
  | 'absorbValidated'
  | 'absorbInvalid'
  | 'absorbCommit'
  | 'absorbCommitAnswer'
  | 'absorbProve'
  | 'absorbGolf';
/** Absorb an actor's output with the named reducer. */
const absorb = <T extends Absorber>(type: T) => ({ type, params: output }) as const;

/**
 * The one way a claim ends (every claim-ending branch of the machine): the actions that absorb
 * what the branch learned (`before`), the claim's report line with reset-claim (`finishClaim`,
 * the ending from `end`), then the next claim — or, when the human stopped the session
 * (`humanStop`), the end of the session.
 */
function claimEnds(
  end: EndOf,
  before: readonly ('noteRoute' | ReturnType<typeof absorb>)[] = [],
  humanStop = false,
) {
  return {
    target: humanStop ? '#synthesis.done' : '#synthesis.next',
    actions: [
      ...before,
      { type: 'finishClaim', params: end } as const,
      ...(humanStop ? (['stopByHuman'] as const) : []),
    ],
  } as const;
}

/** The `onError` of a per-claim actor: the claim ends stuck naming the phase; the session goes on. */
function claimError(phase: string) {
  return { target: '#synthesis.next', actions: { type: 'failClaim', params: { phase } } } as const;
}

/**
 * The synthesis machine. Provide its actors with `synthesisMachine.provide({ actors })` (see
 * `runSynthesis` in src/runtime/synthesis-run.ts).
 *
 * @example
 * ```ts
 * const actor = createActor(synthesisMachine.provide({ actors }), { input });
 * actor.start();
 * const { reports } = await toPromise(actor); // SynthesisOutput
 * ```
 */
export const synthesisMachine = synthesisSetup.createMachine({
  id: 'synthesis',
  context: ({ input }) => initialSynthesisContext(input),
  output: ({ context }) => synthesisOutput(context),
  initial: 'entry',
  states: {
    entry: {
      always: [{ guard: 'scopeBacked', target: 'claim', actions: 'beginScope' }, { target: 'extracting' }],
    },
    extracting: {
      invoke: {
        id: 'extract',
        src: 'extract',
        input: () => ({}),
        onDone: [
          {
            guard: { type: 'extractFailed', params: ({ event }) => event.output },
            target: 'failed',
            actions: { type: 'absorbExtract', params: ({ event }) => event.output },
          },
          { target: 'next', actions: { type: 'absorbExtract', params: ({ event }) => event.output } },
        ],
        onError: {
          target: 'failed',
          actions: {
            type: 'absorbExtract',
            params: ({ event, context }) => ({
              now: context.now,
              ok: false as const,
              error: `claim extraction failed: ${String((event.error as Error)?.message ?? event.error)}`,
            }),
          },
        },
      },
    },
    next: {
      always: [
        { guard: 'queueEmpty', target: 'done' },
        { guard: 'runtimeExhausted', target: 'done' },
        { target: 'claim', actions: 'beginClaim' },
      ],
    },
    claim: {
      initial: 'starting',
      states: {
        starting: {
          always: [{ guard: 'scopeClaim', target: 'proving' }, { target: 'inspecting' }],
        },
        inspecting: {
          invoke: {
            id: 'inspectTarget',
            src: 'inspectTarget',
            input: ({ context }) => inspectInput(context),
            onDone: [
              {
                guard: { type: 'declarationPresent', params: output },
                ...claimEnds(({ context }) => alreadyPresent(context), [tick]),
              },
              { target: 'drafting', actions: tick },
            ],
            onError: claimError('target inspection'),
          },
        },
        drafting: {
          invoke: {
            id: 'drafter',
            src: 'drafter',
            input: ({ context }) => draftInput(context),
            onDone: [
              {
                guard: { type: 'drafted', params: output },
                target: 'approving',
                actions: absorb('absorbDraft'),
              },
              claimEnds(({ event }) => draftEnded(event.output as DraftOutput), [absorb('absorbDraft')]),
            ],
            onError: claimError('drafter'),
          },
        },
        approving: {
          always: [{ guard: 'guided', target: 'asking' }, { target: 'assembling' }],
        },
        asking: {
          invoke: {
            id: 'approveDraft',
            src: 'human',
            input: ({ context }) => approveInput(context),
            onDone: [
              { guard: { type: 'answeredApprove', params: output }, target: 'assembling', actions: tick },
              {
                guard: { type: 'answeredSkip', params: output },
                ...claimEnds(() => humanEnded('skip'), [tick]),
              },
              claimEnds(() => humanEnded('stop'), [tick], true),
            ],
            onError: claimError('human'),
          },
        },
        assembling: {
          invoke: {
            id: 'assemble',
            src: 'assemble',
            input: ({ context }) => assembleInput(context),
            onDone: [
              {
                guard: { type: 'nothingAdded', params: output },
                ...claimEnds(
                  ({ context, event }) => assembleEnded(context, event.output as AssembleOutput),
                  [tick],
                ),
              },
              { target: 'validating', actions: absorb('absorbAssemble') },
            ],
            onError: claimError('assembly'),
          },
        },
        validating: {
          invoke: {
            id: 'validate',
            src: 'validate',
            input: ({ context }) => ({
              claim: context.active?.claim ?? inspectInput(context).claim,
              targetFile: context.input.targetFile,
              declarations: [...(context.active?.declarations ?? [])],
            }),
            onDone: [
              {
                guard: { type: 'draftChecks', params: output },
                target: 'checked',
                actions: absorb('absorbValidated'),
              },
              { guard: 'redraftLeft', target: 'drafting', actions: absorb('absorbInvalid') },
              claimEnds(({ event }) => invalidEnded(event.output as ValidateOutput), [tick]),
            ],
            onError: claimError('validation'),
          },
        },
        checked: {
          always: [
            { guard: 'commitNever', target: 'proving' },
            { guard: 'commitAsk', target: 'askingCommit' },
            { target: 'committing' },
          ],
        },
        askingCommit: {
          invoke: {
            id: 'approveCommit',
            src: 'human',
            input: ({ context }) => commitQuestion(context),
            onDone: [
              {
                guard: { type: 'answeredCommit', params: output },
                target: 'committing',
                actions: absorb('absorbCommitAnswer'),
              },
              {
                guard: { type: 'answeredKeep', params: output },
                target: 'proving',
                actions: absorb('absorbCommitAnswer'),
              },
              claimEnds(() => humanEnded('stop', 'commit'), [tick], true),
            ],
            onError: claimError('human'),
          },
        },
        committing: {
          invoke: {
            id: 'committer',
            src: 'committer',
            input: ({ context }) => commitInput(context),
            onDone: [
              {
                guard: { type: 'commitFailed', params: output },
                target: '#synthesis.halted',
                actions: [
                  absorb('absorbCommit'),
                  {
                    type: 'halt',
                    params: ({ event }) => `draft: commit failed: ${event.output.error ?? 'unknown'}`,
                  },
                ],
              },
              { target: 'proving', actions: absorb('absorbCommit') },
            ],
            onError: {
              target: '#synthesis.halted',
              actions: { type: 'halt', params: 'draft: commit failed (committer error)' },
            },
          },
        },
        proving: {
          invoke: {
            id: 'prove',
            src: 'prove',
            input: ({ context }) => proveInput(context),
            onDone: { target: 'routing', actions: absorb('absorbProve') },
            onError: claimError('inner cycle'),
          },
        },
        routing: {
          always: [
            { guard: 'routeProved', ...claimEnds(({ context }) => routedEnd(context)) },
            { guard: 'routeAgain', target: 'proving', actions: 'noteRoute' },
            { guard: 'routeRedraft', target: 'redrafting' },
            { guard: 'routeGolf', target: 'golfing', actions: 'noteRoute' },
            claimEnds(({ context }) => routedEnd(context)),
          ],
        },
        redrafting: {
          always: [
            { guard: 'redraftAllowed', target: 'drafting', actions: 'allowRedraft' },
            {
              guard: 'redraftHalts',
              target: '#synthesis.halted',
              actions: [
                'noteRoute',
                {
                  type: 'halt',
                  params: ({ context }) => {
                    const v = verdictOf(context);
                    return `explicit --statement-policy preserve: ${v.allowed ? 'redraft' : v.reason}`;
                  },
                },
              ],
            },
            claimEnds(
              ({ context }) => {
                const v = verdictOf(context);
                return v.allowed ? routedEnd(context) : refusedEnd(v);
              },
              ['noteRoute'],
            ),
          ],
        },
        golfing: {
          invoke: {
            id: 'golf',
            src: 'golf',
            input: ({ context }) => golfInput(context),
            onDone: claimEnds(
              ({ context, event }) => golfEnded(context, event.output as GolfOutput),
              [absorb('absorbGolf')],
            ),
            onError: claimError('golf pass'),
          },
        },
      },
    },
    done: { type: 'final' },
    halted: { type: 'final' },
    failed: { type: 'final' },
  },
});

/** The synthesis machine's type. */
export type SynthesisMachine = typeof synthesisMachine;
/** The synthesis machine's input. */
export type SynthesisMachineInput = SynthesisInput;
/** The synthesis machine's context. */
export type SynthesisMachineContext = SynthesisContext;
/** The synthesis machine's output: one report per claim and how the session ended. */
export type SynthesisMachineOutput = SynthesisOutput;
export type {
  ApproveInput,
  ApproveOutput,
  AssembleInput,
  AssembleOutput,
  CommitInput,
  CommitOutput,
  DraftInput,
  DraftOutput,
  ExtractOutput,
  GolfInput,
  GolfOutput,
  InspectInput,
  InspectOutput,
  ProveInput,
  ProveOutput,
  ValidateInput,
  ValidateOutput,
} from '../src/synthesis/loop/types.js';
