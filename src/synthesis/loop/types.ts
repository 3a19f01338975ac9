/**
 * The synthesis outer loop's records (layer 1, types only): the claim the loop carries, the
 * policies, the per-claim report, the machine's input and context, and the inputs and outputs of
 * the actors `machines/synthesis.ts` declares and `src/runtime/synthesis-run.ts` provides.
 * Every actor output carries `now` (ms, stamped by the host's injected clock): the loop reads
 * time only from there, so the machine stays deterministic under test.
 */
import type { Handoff } from '../../contract/index.js';
import type { TrackerState } from '../../tracker/schema.js';

import type { StatementPolicy } from '../draft-schema.js';

export type { StatementPolicy };
/** `--commit` of the outer loop: the `draft:` commit boundary. */
export type DraftCommit = 'never' | 'ask' | 'auto';
/** `formalize` (guided: a human approves each draft) or `autoformalize` (never asks). */
export type SynthesisMode = 'guided' | 'auto';
/** Source-backed (`--source`) or scope-backed (`--formalize restage`, no source). */
export type SynthesisEntry = 'source' | 'scope';

/**
 * One claim as the loop carries it (a structural subset of the claim extractor's `Claim`). A
 * scope-backed session carries one synthetic claim of kind `scope` (no drafting: it starts at the
 * inner cycle).
 */
export interface LoopClaim {
  /** Stable id (document order; the same source yields the same ids). */
  readonly id: string;
  /** 1-based position in the queue after selection. */
  readonly index: number;
  readonly title: string;
  readonly text: string;
  /** The declaration name the claim is expected to become (the skip-if-present check). */
  readonly name: string;
  /** `theorem`, `lemma`, … from the source, or `scope` for the scope-backed pseudo-claim. */
  readonly kind: string;
}

/** How a claim ended. `not-attempted`: the session stopped (runtime, human stop, halt) before it. */
export type ClaimStatus = 'formalized' | 'proved' | 'stuck' | 'skipped' | 'declined' | 'not-attempted';

/** One line of the final report. */
export interface ClaimReport {
  readonly claim: string;
  readonly index: number;
  readonly title: string;
  readonly status: ClaimStatus;
  /** Why (stuck, declined, skipped, formalized-not-proved), else null. */
  readonly reason: string | null;
  /** The declarations this claim put into the target (session-generated). */
  readonly declarations: readonly string[];
  readonly drafts: number;
  readonly innerRuns: number;
  /** Every review-router decision taken for this claim, in order (`redraft`, `continue`, …). */
  readonly routes: readonly string[];
  /** The `draft:` commits made for this claim. */
  readonly commits: readonly string[];
}

/** One (file, declaration) pair of the session-generated provenance set. */
export interface ProvenanceEntry {
  readonly file: string;
  readonly declaration: string;
}

/** The verdict of the redraft rule. */
export type RedraftVerdict =
  | { readonly allowed: true; readonly how: 'rewrite' | 'adjacent' }
  | { readonly allowed: false; readonly reason: string; readonly halt: boolean };

/** Input of the synthesis machine. */
export interface SynthesisInput {
  readonly mode: SynthesisMode;
  readonly entry: SynthesisEntry;
  /** The target file drafts are assembled into (project-relative). */
  readonly targetFile: string;
  readonly policy: StatementPolicy;
  /** True when `--statement-policy` was given (explicit `preserve` halts a refused redraft). */
  readonly policyExplicit: boolean;
  readonly commit: DraftCommit;
  /** Per-claim inner-cycle budget (`--max-cycles`). */
  readonly maxCycles: number;
  /** Per-claim stuck budget (`--max-stuck-cycles`). */
  readonly maxStuck: number;
  /** Session budget (`--max-total-runtime`) in ms; 0 = unlimited. */
  readonly maxRuntimeMs: number;
  /** Redrafts allowed per claim (routes plus failed validations). */
  readonly maxRedrafts: number;
  /** The session's tracker (start-claim/reset-claim at claim boundaries). */
  readonly tracker: TrackerState;
  readonly startedAt: number;
}

/** The claim being worked on. */
export interface ActiveClaim {
  readonly claim: LoopClaim;
  /** Drafts requested so far (first draft included). */
  readonly drafts: number;
  readonly redrafts: number;
  readonly innerRuns: number;
  readonly cyclesUsed: number;
  readonly stuckUsed: number;
  /** The declarations currently in the target for this claim. */
  readonly declarations: readonly string[];
  /** Why the next draft is asked for (validation failure, route), null for the first. */
  readonly redraftReason: string | null;
  /** How the next draft replaces the previous one (`rewrite` or `adjacent`), null for the first. */
  readonly replace: 'rewrite' | 'adjacent' | null;
  readonly draft: DraftOutput | null;
  readonly lastHandoff: Handoff | null;
  readonly routes: readonly string[];
  readonly commits: readonly string[];
  /**
   * Guided `--commit ask`: the human kept the current draft in the working tree but declined its
   * `draft:` commit — nothing of the claim is committed (the inner cycle and the golf pass run
   * with commits off).
   */
  readonly commitDeclined: boolean;
}

/** The synthesis machine's context. */
export interface SynthesisContext {
  readonly input: SynthesisInput;
  readonly tracker: TrackerState;
  readonly queue: readonly LoopClaim[];
  /** Index into `queue` of the next claim to start. */
  readonly cursor: number;
  readonly active: ActiveClaim | null;
  /** Session-generated provenance: in memory only, kept across claims and replans. */
  readonly provenance: readonly ProvenanceEntry[];
  readonly reports: readonly ClaimReport[];
  /** The latest `now` seen from an actor (ms). */
  readonly now: number;
  /** A session halt (explicit preserve refusing a redraft, a failed commit, …), else null. */
  readonly halted: string | null;
  /** The human stopped the session. */
  readonly stoppedByHuman: boolean;
  /** The queue could not be extracted (source unreadable, bad selection). */
  readonly extractError: string | null;
  readonly log: readonly string[];
}

/** Output of the `extract` actor. */
export type ExtractOutput =
  | { readonly now: number; readonly ok: true; readonly claims: readonly LoopClaim[] }
  | { readonly now: number; readonly ok: false; readonly error: string };

/** Input of the `inspectTarget` actor: is the claim's declaration already in the target? */
export interface InspectInput {
  readonly claim: LoopClaim;
  readonly targetFile: string;
}
/** Output of the `inspectTarget` actor. */
export interface InspectOutput {
  readonly now: number;
  /** The claim's declaration name found at a line start in the target. */
  readonly present: boolean;
}

/** Input of the `drafter` actor. */
export interface DraftInput {
  readonly claim: LoopClaim;
  readonly targetFile: string;
  readonly policy: StatementPolicy;
  /** 1 for the first draft. */
  readonly attempt: number;
  readonly reason: string | null;
  /** The declarations of the previous draft this one replaces (`rewrite`) or sits beside. */
  readonly previous: readonly string[];
  readonly replace: 'rewrite' | 'adjacent' | null;
}
/** Output of the `drafter` actor. */
export type DraftOutput =
  | {
      readonly now: number;
      readonly kind: 'drafted';
      readonly declarations: readonly string[];
      readonly text: string;
      readonly imports: readonly string[];
    }
  | { readonly now: number; readonly kind: 'declined'; readonly reason: string }
  | { readonly now: number; readonly kind: 'error'; readonly reason: string };

/**
 * Input of the `human` actor (guided mode). Two questions: `draft` (approve a draft before it is
 * assembled: `approve`, `skip`, `stop`) and, under `--commit ask`, `commit` (the validated draft
 * is in the working tree; make its `draft:` commit: `commit`, keep it uncommitted: `keep`, `stop`).
 */
export interface ApproveInput {
  readonly question: 'draft' | 'commit';
  readonly claim: LoopClaim;
  readonly declarations: readonly string[];
  readonly text: string;
  /** The `draft:` commit message the `commit` question is about (null for `draft`). */
  readonly message: string | null;
  readonly options: readonly ['approve', 'skip', 'stop'] | readonly ['commit', 'keep', 'stop'];
}
/** Output of the `human` actor. */
export interface ApproveOutput {
  readonly now: number;
  readonly answer: string;
}

/** Input of the `assemble` actor: write the draft into the target (working tree). */
export interface AssembleInput {
  readonly claim: LoopClaim;
  readonly targetFile: string;
  readonly draft: Extract<DraftOutput, { kind: 'drafted' }>;
  /** Declarations of this claim's previous draft to take out first (`rewrite`), else []. */
  readonly remove: readonly string[];
}
/** Output of the `assemble` actor. */
export interface AssembleOutput {
  readonly now: number;
  readonly ok: boolean;
  /** Declarations appended. */
  readonly added: readonly string[];
  /** Declarations skipped because the target already had them. */
  readonly skipped: readonly string[];
  readonly error: string | null;
}

/** Input of the `validate` actor: diagnostics on the target after assembly. */
export interface ValidateInput {
  readonly claim: LoopClaim;
  readonly targetFile: string;
  readonly declarations: readonly string[];
}
/** Output of the `validate` actor (on failure the host has restored the pre-draft bytes). */
export interface ValidateOutput {
  readonly now: number;
  readonly ok: boolean;
  readonly errors: readonly string[];
}

/** Input of the `committer` actor: stage only the target, commit `draft: <summary>`. */
export interface CommitInput {
  readonly claim: LoopClaim;
  readonly targetFile: string;
  readonly declarations: readonly string[];
  readonly message: string;
}
/** Output of the `committer` actor. */
export interface CommitOutput {
  readonly now: number;
  readonly committed: boolean;
  readonly commit: string | null;
  readonly error: string | null;
}

/** Input of the `prove` actor (one inner-cycle run on the claim's declarations). */
export interface ProveInput {
  readonly claim: LoopClaim;
  readonly targetFile: string;
  readonly declarations: readonly string[];
  /** Cycles still allowed for this claim. */
  readonly maxCycles: number;
  /** Stuck cycles still allowed for this claim. */
  readonly maxStuck: number;
  /** Session time left in ms (0 = unlimited). */
  readonly runtimeLeftMs: number;
  /** The route that asked for this run (`continue`, `deep`, `repair`), null for the first run. */
  readonly route: string | null;
  readonly priorHandoff: Handoff | null;
  /** May the inner cycle commit (`--commit` not `never`, and the human did not decline the draft's commit)? */
  readonly commit: boolean;
}
/** Output of the `prove` actor. */
export interface ProveOutput {
  readonly now: number;
  readonly handoff: Handoff;
  /** Cycles the run used. */
  readonly cycles: number;
  /** Stuck cycles the run used. */
  readonly stuckCycles: number;
  /** The declaration holding the stuck target (scope-backed redrafts judge it), else null. */
  readonly stuckDeclaration: string | null;
}

/** Input of the `golf` actor: a golf-mode pass over the claim's declarations. */
export interface GolfInput {
  readonly claim: LoopClaim;
  readonly targetFile: string;
  readonly declarations: readonly string[];
  readonly priorHandoff: Handoff | null;
  /** May an accepted golf be committed (as for {@link ProveInput.commit})? */
  readonly commit: boolean;
}
/** Output of the `golf` actor. */
export interface GolfOutput {
  readonly now: number;
  readonly handoff: Handoff;
}

/** The machine's output: the per-claim reports and how the session ended. */
export interface SynthesisOutput {
  readonly reports: readonly ClaimReport[];
  /** `done` (queue empty), `runtime` (session budget), `human-stop`, `halted`, `extract-failed`. */
  readonly ending: 'done' | 'runtime' | 'human-stop' | 'halted' | 'extract-failed';
  readonly error: string | null;
  readonly provenance: readonly ProvenanceEntry[];
  readonly tracker: TrackerState;
  readonly log: readonly string[];
}
