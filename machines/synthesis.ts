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
import { assign, fromPromise, setup } from 'xstate';
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
  commitHaltReason,
  commitInput,
  commitQuestion,
  currentRoute,
  draftEnded,
  draftInput,
  endClaim,
  extractFailure,
  failClaim,
  golfEnded,
  golfInput,
  haltSession,
  humanEnded,
  initialSynthesisContext,
  inspectInput,
  invalidEnded,
  noteRoute,
  proveInput,
  redraftHaltReason,
  redraftHalts,
  redraftLeft,
  redraftNotTaken,
  redraftPermitted,
  redraftVerdictOf,
  routedEnd,
  runtimeExhausted,
  stopByHuman,
  synthesisOutput,
  validateInput,
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
    redraftAllowed: ({ context }) => redraftPermitted(context),
    redraftHalts: ({ context }) => redraftHalts(context),
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
    allowRedraft: assign(({ context }) => allowRedraft(context, redraftVerdictOf(context))),
    finishClaim: assign(({ context }, end: ClaimEnd) => endClaim(context, end)),
    stopByHuman: assign(() => stopByHuman()),
    halt: assign(({ context }, reason: string) => haltSession(context, reason)),
    // the phase is a static param (the diagram prints it); the error comes from the error event
    failClaim: assign(({ context, event }, p: { phase: string }) =>
      failClaim(context, p.phase, 'error' in event ? event.error : 'error'),
    ),
  },
});

/**
 * What a claim ending is computed from: the context and the event that ends it — the done event of
 * an actor with output `O`, or (no `O`) any event, as on an eventless transition.
 */
type Ending<O = never> = { context: SynthesisContext; event: [O] extends [never] ? object : { output: O } };
/** How a claim ends. */
type EndOf<O> = (a: Ending<O>) => ClaimEnd;

/** An actor's output as a guard's or an action's params, typed by the done event it is given. */
const output = <O>({ event }: { event: { output: O } }): O => event.output;
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
 * what the branch learned (`before`; `[]` when nothing), the claim's report line with reset-claim (`finishClaim`,
 * the ending from `end`), then the next claim — or, when the human stopped the session
 * (`humanStop`), the end of the session.
 */
function claimEnds<O = never, A extends 'noteRoute' | { readonly type: Absorber } = never>(
  end: EndOf<O>,
  before: readonly A[],
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
      description:
        'Where a session starts: a scope-backed session goes straight to its one pseudo-claim, a source-backed one extracts its claim queue.',
      always: [{ guard: 'scopeBacked', target: 'claim', actions: 'beginScope' }, { target: 'extracting' }],
    },
    extracting: {
      description: 'The claim queue is extracted once from the source; a failure ends the session at failed.',
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
            params: ({ event, context }) => extractFailure(context, event.error),
          },
        },
      },
    },
    next: {
      description:
        'Between claims: the next claim starts unless the queue is empty or the session runtime is spent (then done).',
      always: [
        { guard: 'queueEmpty', target: 'done' },
        { guard: 'runtimeExhausted', target: 'done' },
        { target: 'claim', actions: 'beginClaim' },
      ],
    },
    claim: {
      description:
        'One claim from its start to its report line (reset-claim): every ending goes to next, a halt to halted, a human stop to done.',
      initial: 'starting',
      states: {
        starting: {
          description:
            'A scope pseudo-claim goes straight to the inner cycle; a source claim is inspected first.',
          always: [{ guard: 'scopeClaim', target: 'proving' }, { target: 'inspecting' }],
        },
        inspecting: {
          description:
            'Is the declaration of the claim already in the target? Then the claim ends as present, else it is drafted.',
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
          description: 'The drafter writes the declaration; no draft ends the claim.',
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
              claimEnds(
                ({ event }: Ending<DraftOutput>) => draftEnded(event.output),
                [absorb('absorbDraft')],
              ),
            ],
            onError: claimError('drafter'),
          },
        },
        approving: {
          description: 'Guided mode asks the human about the draft; autonomous mode assembles it.',
          always: [{ guard: 'guided', target: 'asking' }, { target: 'assembling' }],
        },
        asking: {
          description:
            'The human answers about the draft: approve assembles it, skip ends the claim, stop ends the session.',
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
          description: 'The draft is assembled into the target; nothing added ends the claim.',
          invoke: {
            id: 'assemble',
            src: 'assemble',
            input: ({ context }) => assembleInput(context),
            onDone: [
              {
                guard: { type: 'nothingAdded', params: output },
                ...claimEnds(
                  ({ context, event }: Ending<AssembleOutput>) => assembleEnded(context, event.output),
                  [tick],
                ),
              },
              { target: 'validating', actions: absorb('absorbAssemble') },
            ],
            onError: claimError('assembly'),
          },
        },
        validating: {
          description:
            'The assembled draft is validated: a pass is checked, a failure is redrafted while redrafts are left, else the claim ends invalid.',
          invoke: {
            id: 'validate',
            src: 'validate',
            input: ({ context }) => validateInput(context, inspectInput(context).claim),
            onDone: [
              {
                guard: { type: 'draftChecks', params: output },
                target: 'checked',
                actions: absorb('absorbValidated'),
              },
              { guard: 'redraftLeft', target: 'drafting', actions: absorb('absorbInvalid') },
              claimEnds(({ event }: Ending<ValidateOutput>) => invalidEnded(event.output), [tick]),
            ],
            onError: claimError('validation'),
          },
        },
        checked: {
          description:
            'A validated draft: --commit never proves it as it is, guided --commit ask asks first, else it is committed.',
          always: [
            { guard: 'commitNever', target: 'proving' },
            { guard: 'commitAsk', target: 'askingCommit' },
            { target: 'committing' },
          ],
        },
        askingCommit: {
          description:
            'The human answers about the draft: commit: commit commits it, keep proves it uncommitted, stop ends the session.',
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
          description: 'The draft: commit is made; a failed commit halts the session.',
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
                    params: ({ event }) => commitHaltReason(event.output),
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
          description: 'The inner six-phase cycle runs on the claim; its handoff goes to the review router.',
          invoke: {
            id: 'prove',
            src: 'prove',
            input: ({ context }) => proveInput(context),
            onDone: { target: 'routing', actions: absorb('absorbProve') },
            onError: claimError('inner cycle'),
          },
        },
        routing: {
          description:
            'The review router: proved ends the claim, continue/deep/repair prove again within the budgets, redraft and golf go on, anything else ends the claim.',
          always: [
            { guard: 'routeProved', ...claimEnds(({ context }) => routedEnd(context), []) },
            { guard: 'routeAgain', target: 'proving', actions: 'noteRoute' },
            { guard: 'routeRedraft', target: 'redrafting' },
            { guard: 'routeGolf', target: 'golfing', actions: 'noteRoute' },
            claimEnds(({ context }) => routedEnd(context), []),
          ],
        },
        redrafting: {
          description:
            'A redraft the router asked for: allowed with a redraft left drafts again, refused under an explicit preserve halts, otherwise the claim ends.',
          always: [
            { guard: 'redraftAllowed', target: 'drafting', actions: 'allowRedraft' },
            {
              guard: 'redraftHalts',
              target: '#synthesis.halted',
              actions: ['noteRoute', { type: 'halt', params: ({ context }) => redraftHaltReason(context) }],
            },
            claimEnds(({ context }) => redraftNotTaken(context), ['noteRoute']),
          ],
        },
        golfing: {
          description: 'The golf pass shortens the proved claim; the claim then ends with its result.',
          invoke: {
            id: 'golf',
            src: 'golf',
            input: ({ context }) => golfInput(context),
            onDone: claimEnds(
              ({ context, event }: Ending<GolfOutput>) => golfEnded(context, event.output),
              [absorb('absorbGolf')],
            ),
            onError: claimError('golf pass'),
          },
        },
      },
    },
    done: {
      type: 'final',
      description:
        'The queue is empty, the runtime is spent or the human stopped; the report lists every claim.',
    },
    halted: {
      type: 'final',
      description: 'Halted: an explicit preserve refused a redraft, or a draft: commit failed.',
    },
    failed: { type: 'final', description: 'The claim extraction failed; no claim was attempted.' },
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
