/**
 * The records exchanged between the cycle machine (machines/cycle.ts) and its actors: options,
 * targets, actor inputs and outputs, and the machine context. Types only (layer 0).
 */

import type { BaselineEntry, FileBaseline } from '../baseline/schema.js';
import type { Dispatch, Handoff, Scope, StopReason } from '../contract/index.js';
import type { BlockerClassTable } from '../profile/blocker-classes.js';
import type { TrackerViolation } from '../tracker/counters.js';
import type { TrackerState } from '../tracker/schema.js';
import type { SearchLedger } from './search-budget.js';

/** The two proving modes the cycle runs. */
export type CycleMode = 'prove' | 'autoprove';
/** When reviews run: after every checkpoint commit, every N cycles, or only when stuck. */
export type ReviewEvery = 'checkpoint' | 'never' | number;

/** Resolved options of one cycle run (after defaults and autoprove coercions). */
export interface CycleOptions {
  readonly target: string;
  readonly scope: Scope;
  readonly mode: CycleMode;
  readonly planning: 'on' | 'off' | 'ask';
  readonly reviewEvery: ReviewEvery;
  readonly reviewSource: 'internal' | 'external' | 'both';
  readonly commit: 'never' | 'ask' | 'auto';
  readonly checkpoint: boolean;
  readonly maxCycles: number;
  readonly maxStuck: number;
  readonly maxRuntime: string;
  readonly stallMinutes: number;
  readonly maxFailuresPerTarget: number;
  /**
   * When deep mode runs on a target (seed 002 § Deep Mode): `never`; `ask` (prove: the human is
   * asked when the target is stuck); `stuck` (when the stuck rules fire); `always` (after every
   * work pass that leaves the target open).
   */
  readonly deep: 'never' | 'ask' | 'stuck' | 'always';
  readonly deepRollback: 'on-regression' | 'on-no-improvement' | 'always' | 'never';
  readonly deepRegressionGate: 'strict' | 'off';
  /** Max open targets one deep invocation may take on (structural: sent in `parameters`). */
  readonly deepSorryBudget: number;
  /** Advisory time budget of one deep invocation (a duration such as `10m`; sent in `parameters`). */
  readonly deepTimeBudget: string;
  /** Deep invocations allowed per cycle (tracker `can-deep`). */
  readonly maxDeepPerCycle: number;
  /** Consecutive cycles with deep allowed (tracker `can-deep`). */
  readonly maxConsecutiveDeep: number;
  /** Files deep may touch: the target's file, or the declared cross-file set. */
  readonly deepScope: 'target' | 'cross-file';
  /** Scope fence: max files one deep invocation may change. */
  readonly deepMaxFiles: number;
  /** Scope fence: max lines (added + removed) one deep invocation may change. */
  readonly deepMaxLines: number;
  /** Repair attempts per error signature per cycle (2). */
  readonly repairPerSignature: number;
  /** Repair attempts per cycle (prove 6, autoprove 8). */
  readonly repairPerCycle: number;
  /** Targets worked per cycle (prove 1, autoprove 2); concurrent only with disjoint owned files. */
  readonly batchSize: number;
  /** Max workers running at once within a batch. */
  readonly maxDelegates: number;
  /**
   * The falsification policy (seed 002 § Stuck → Counterexample / Salvage): `salvage`
   * (counterexample + salvage lemmas only — the autoprove default), `negate` (the human chose to
   * allow proving the negation), `off` (no witness search).
   */
  readonly falsification: 'salvage' | 'negate' | 'off';
  /** An outer synthesis loop is active: `redraft` and `golf` routes are handed to it. */
  readonly outerLoop: boolean;
  /** Whether an inline (in-process) worker is available as the permission-denial fallback. */
  readonly inlineFallback: boolean;
  /**
   * The domain profile's blocker phrases (how a review's primary blocker maps to a
   * run-contract/v1 class); default: the proof phrases.
   */
  readonly blockerClasses?: BlockerClassTable;
}

/** An open target reported by diagnostics (a marker such as `sorry`, at a file and line). */
export interface TargetInfo {
  /** `file:line`, file relative to the project root. */
  readonly id: string;
  readonly file: string;
  readonly line: number;
  /** The source line or goal text (may be empty). */
  readonly goal: string;
}

/** Verification tiers, lightest first (seed 002 § Build Target Policy). */
export type VerificationTier = 'file-fast' | 'file-deps' | 'module' | 'project';

/** Input of the diagnostics actor. */
export interface DiagnosticsInput {
  /** The question asked: open targets (`discover`), a worker's edit, or the checkpoint gate. */
  readonly question: 'discover' | 'edit' | 'checkpoint';
  /** The tier to ask (chosen by `tierPlan`, see src/cycle/verification-ladder.ts). */
  readonly tier: VerificationTier;
  /** The heaviest tier the runtime may climb to when an answer is inconclusive (default: `tier`). */
  readonly maxTier?: VerificationTier;
  /** Files to check (project-relative); empty = the whole scope. */
  readonly files: readonly string[];
}
/** Output of the diagnostics actor. */
export interface DiagnosticsOutput {
  readonly now: number;
  readonly tier: VerificationTier;
  readonly targets: readonly TargetInfo[];
  /** Errors (not markers) reported, as `file:line:text`. */
  readonly errors: readonly string[];
  readonly ok: boolean;
  /** The tier cannot answer (e.g. imports not built): the runtime climbs to the next tier. */
  readonly inconclusive?: boolean;
  /** Tiers asked, lightest first, when the runtime climbed the ladder. */
  readonly tiersTried?: readonly VerificationTier[];
}

/** One plan step. */
export interface PlanStep {
  readonly target: string;
  readonly note: string;
  /**
   * Files the step declares for deep mode with `--deep-scope=cross-file` (project-relative);
   * absent = the target's file only.
   */
  readonly files?: readonly string[];
}
/** Input of the planner actor. */
export interface PlannerInput {
  readonly kind: 'plan' | 'replan';
  readonly cycle: number;
  readonly targets: readonly TargetInfo[];
  readonly blocked: readonly string[];
  /** Knowledge searches still allowed this cycle (tracker `kw-search` budget). */
  readonly searchBudget: number;
  readonly stuck: StuckVerdict | null;
  readonly review: ReviewOutput | null;
}
/** Output of the planner actor. */
export interface PlannerOutput {
  readonly now: number;
  readonly steps: readonly PlanStep[];
  /** Searches performed (each counts against the tracker's knowledge-search budget). */
  readonly searches: readonly { tool: string; query: string; top: readonly string[] }[];
  /** New evidence per target (qualifying evidence_delta entries for a relaunch). */
  readonly evidence: Readonly<Record<string, readonly string[]>>;
  readonly summary: string;
}

/**
 * What a worker dispatch is for: `fill` (the ordinary pass), `deep` (deep mode:
 * `sorry-filler-deep`, budgets in `parameters.deep_budget`), `repair` (patch-only `proof-repair`:
 * a unified diff in `artifacts`, `files_changed: []`), `falsify` (witness search: counterexample
 * and salvage artifacts), `golf` (the synthesis loop's `proof-golfer` pass over a proved
 * declaration: only its proof may change, its statement is fenced, no `sorry` may come back).
 */
export type WorkRole = 'fill' | 'deep' | 'repair' | 'falsify' | 'golf';

/** Pre-flight context carried by a dispatch (seed 002 § Pre-flight Context). */
export interface PreflightContext {
  /** Diagnostics summary of the owned files (`file:line:text`). */
  readonly diagnostics: readonly string[];
  /** Snippets already tested on this target, with their outcome. */
  readonly candidatesTested: readonly { readonly snippet: string; readonly result: string }[];
  /** Code actions known for the target. */
  readonly codeActions: readonly string[];
}

/** Input of the worker actor. */
export interface WorkerInput {
  /** What the dispatch is for (absent = `fill`). */
  readonly role?: WorkRole;
  /**
   * The files the dispatch owns, project-relative (absent = the target's file). A deep
   * cross-file dispatch owns the declared set; every other role owns the target's file.
   */
  readonly ownedFiles?: readonly string[];
  /** Role parameters copied into the dispatch's `parameters` (deep budgets, the repair error). */
  readonly parameters?: Readonly<Record<string, unknown>>;
  /** Pre-flight context (absent = empty lists). */
  readonly preflight?: PreflightContext;
  readonly target: TargetInfo;
  readonly cycle: number;
  readonly mode: CycleMode;
  readonly priorBlocker: string | null;
  readonly evidenceDelta: readonly string[];
  readonly priorFailure: string | null;
  readonly searchResults: readonly { tool: string; query: string; top: readonly string[] }[];
  readonly searchBudget: number;
  /** The target's search ledger before this dispatch (the fallback gate, see src/cycle/search-budget.ts). */
  readonly searchLedger: SearchLedger;
  readonly trivial: boolean;
  readonly inline: boolean;
  readonly budget: { max_cycles: number; max_stuck_cycles: number; runtime: string | null };
  /** The custody baseline the parent currently holds (checked for drift before dispatch). */
  readonly baseline: FileBaseline;
  /**
   * A batch (`--batch-size` > 1): the inputs of the other targets of this cycle, each owning
   * files disjoint from this one's and from each other's (src/cycle/batch.ts `selectBatch`). The
   * runtime may run them concurrently (at most `--max-delegates` at once) and returns their
   * outcomes in `WorkOutcome.batch`. Absent = one target.
   */
  readonly batch?: readonly WorkerInput[];
  /** With a batch: max dispatches running at once (`--max-delegates`; absent = 1). */
  readonly maxDelegates?: number;
}
/** Output of the worker actor: a validated, custody-checked handoff or a stop. */
export type WorkOutcome =
  | {
      readonly kind: 'handoff';
      readonly now: number;
      readonly dispatch: Dispatch;
      readonly handoff: Handoff;
      /** Files whose changes were accepted (files_changed, custody-checked). */
      readonly accepted: readonly string[];
      /** The worker's final baseline, adopted as-is. */
      readonly baseline: FileBaseline;
      readonly progressLines: number;
      /** Whether the edit changed the import lines of a changed file (verification ladder). */
      readonly importsChanged: boolean;
      /**
       * Lines changed (added + removed, a line diff of each accepted file against its
       * pre-dispatch bytes), summed over the changed files: the deep scope fence (absent = 0).
       */
      readonly linesChanged?: number;
      /**
       * Whether the edit changed a module another owned file imports (verification ladder: the
       * dependency-aware tier first; absent = false).
       */
      readonly dependentsChanged?: boolean;
      /**
       * A batch dispatch: the outcomes of the other targets of the batch (see
       * {@link WorkerInput.batch}), in the order of the inputs; absent = no batch.
       */
      readonly batch?: readonly WorkOutcome[];
    }
  | {
      /**
       * `fence-violation`: the worker changed a declaration header; its edit was refused and the
       * owned files restored, and the target is stuck (the run goes on).
       */
      readonly kind:
        | 'custody-violation'
        | 'fence-violation'
        | 'protocol-error'
        | 'operational-error'
        | 'permission-denied';
      readonly now: number;
      readonly detail: string;
      readonly dispatch: Dispatch | null;
      /**
       * A batch whose primary was refused without ending the run (`fence-violation`,
       * `permission-denied`): the other targets' outcomes, whose accepted files stay in custody.
       */
      readonly batch?: readonly WorkOutcome[];
    };

/** Input of the snapshotter actor: a path-scoped snapshot of exactly `files` (deep entry). */
export interface SnapshotInput {
  /** Project-relative files (the deep-managed set); nothing else is captured. */
  readonly files: readonly string[];
  /** `deep-snapshot: <target id>`. */
  readonly label: string;
}
/** Output of the snapshotter actor. */
export interface SnapshotOutput {
  readonly now: number;
  /** Opaque id the restorer takes back. */
  readonly id: string;
  readonly files: readonly string[];
}
/** Input of the restorer actor: put the snapshot's files back to their exact bytes. */
export interface RestoreInput {
  readonly snapshotId: string;
  readonly files: readonly string[];
  /** The rollback reason (`deep: <trigger> — <detail>`), for the log. */
  readonly reason: string;
}
/**
 * Output of the restorer actor. `ok: false` (or an actor error) is a failed rollback: the cycle
 * stops, the target is stuck "deep: rollback failed" and the checkpoint is skipped.
 */
export interface RestoreOutput {
  readonly now: number;
  readonly ok: boolean;
  readonly restored: readonly string[];
  readonly detail: string | null;
}
/**
 * One edit the cycle puts back (src/cycle/restore-edits.ts): the files a dispatch's handoff
 * returned whose `solved` claim did not hold, still as the worker returned them.
 */
export interface EditToRestore {
  /** The target of the dispatch (`file:line`). */
  readonly target: string;
  /** The files to put back to their pre-dispatch bytes, spelled as the custody baseline spells them. */
  readonly files: readonly string[];
  /** Why, in words (`the claim 'solved' did not hold — …`). */
  readonly reason: string;
  /**
   * The pre-dispatch state each file goes back to, by file: its sha256, or null for a file that did
   * not exist. The restorer puts back the capture holding exactly that state (a deep or repair pass
   * after the refuted dispatch captured the file again); absent: the latest capture.
   */
  readonly to?: Readonly<Record<string, string | null>>;
}
/**
 * A refuted edit of this cycle not yet put back (src/cycle/restore-edits.ts): recorded when
 * verification refutes a `solved` claim (or a batch's primary is refused, so its siblings' claims
 * cannot be verified), consumed by the checkpoint's restore or, when the run stops before the
 * checkpoint, by the restore on the way to `stopped`.
 */
export interface RefutedEdit {
  /** The target of the dispatch (`file:line`). */
  readonly target: string;
  /** The files it returned, spelled as the custody baseline spells them. */
  readonly files: readonly string[];
  /** Why, in words (`the claim 'solved' did not hold — …`). */
  readonly reason: string;
  /** The pre-dispatch baseline entries of `files` (what they go back to). */
  readonly before: readonly BaselineEntry[];
  /** The entries the handoff returned for `files` (still held: no later pass changed them). */
  readonly returned: readonly BaselineEntry[];
}
/** Input of the edit restorer actor: the failed edits of this cycle, put back before the checkpoint. */
export interface EditRestoreInput {
  readonly cycle: number;
  readonly edits: readonly EditToRestore[];
}
/**
 * Output of the edit restorer actor: the files that hold their pre-dispatch bytes again (spelled
 * as in the input) and the ones that could not be put back, with the reason (null: none failed).
 */
export interface EditRestoreOutput {
  readonly now: number;
  readonly restored: readonly string[];
  readonly failed: readonly string[];
  readonly detail: string | null;
}
/**
 * Input of the patcher actor: apply a repair worker's unified diff under custody. The runtime
 * checks the baseline immediately before applying, refuses fuzzy or out-of-scope hunks and
 * advances the baseline of the applied files.
 */
export interface PatchInput {
  readonly patch: string;
  /** Project-relative files the patch may touch (the repair dispatch's owned files). */
  readonly files: readonly string[];
  readonly baseline: FileBaseline;
  /**
   * The repair dispatch's fence grants (its `fence:` capabilities, docs/fence.md § Grants): the
   * patched text is fenced as the worker's own edit would be. Absent: none.
   */
  readonly grants?: readonly string[];
}
/** Output of the patcher actor. */
export type PatchOutput =
  | {
      readonly now: number;
      readonly kind: 'applied';
      /** Project-relative files the patch changed. */
      readonly changed: readonly string[];
      readonly baseline: FileBaseline;
    }
  | {
      readonly now: number;
      /** `stale`: the baseline no longer matches the disk; `refused`: a hunk did not apply exactly or left scope. */
      readonly kind: 'stale' | 'refused';
      readonly detail: string;
    };

/** Input of the checkpointer actor. */
export interface CheckpointInput {
  readonly cycle: number;
  readonly files: readonly string[];
  readonly summary: string;
  readonly commit: 'never' | 'ask' | 'auto';
}
/** Output of the checkpointer actor. */
export interface CheckpointOutput {
  readonly now: number;
  readonly committed: boolean;
  readonly commit: string | null;
  readonly message: string;
  /**
   * Why the checkpoint was refused (a late write found by the re-check against verified custody);
   * absent or null when it was not.
   */
  readonly refused?: string | null;
}

/** Input of the reviewer actor. */
export interface ReviewInput {
  readonly cycle: number;
  readonly mode: 'normal' | 'stuck';
  readonly scope: 'sorry' | 'file';
  readonly file: string | null;
  readonly line: number | null;
  readonly stuck: StuckVerdict | null;
  readonly lastHandoff: Handoff | null;
}
/** Output of the reviewer actor (the stuck-mode review block when mode is stuck). */
export interface ReviewOutput {
  readonly now: number;
  readonly mode: 'normal' | 'stuck';
  /** Primary blocker class as a human phrase ("missing library lemma"); stuck mode only. */
  readonly primaryBlocker: string | null;
  readonly topBlockers: readonly string[];
  readonly evidence: readonly string[];
  readonly falsification: boolean;
  readonly nextAction: Handoff['next_action'];
  readonly suggestions: readonly string[];
}

/** A human question and its options. */
export interface HumanInput {
  readonly question:
    | 'approve-plan'
    | 'approve-replan'
    | 'approve-commit'
    | 'continue'
    | 'blocker'
    /** Prior-run reuse: approve the drift report's token before custody (prove only). */
    | 'approve-drift'
    /** `--deep=ask` (prove): enter deep mode on the stuck target? (`deep` | `skip` | `stop`). */
    | 'approve-deep'
    /** Prove, stuck, plan declined: which falsification policy (`salvage` | `negate` | `skip` | `stop`). */
    | 'falsification';
  readonly options: readonly string[];
  readonly summary: string;
}
/** The human's answer; `evidence` accompanies `continue-with-evidence`. */
export interface HumanOutput {
  readonly now: number;
  readonly answer: string;
  readonly evidence: readonly string[];
}

/** Which stuck condition fired (seed 002 § Stuck Definition). */
export type StuckCondition =
  | 'repeated-failure'
  | 'repeated-build-error'
  | 'no-progress'
  | 'empty-search'
  /** Deep mode was rolled back (regression, scope, header, no improvement, always) or its rollback failed. */
  | 'deep-rollback'
  /** Two repair attempts on the same signature without improvement, or the repair budget ran out. */
  | 'repair-exhausted'
  /** The worker changed a declaration header (the statement fence): stuck at once, `next_action: redraft`. */
  | 'fence-violation';

/** A stuck verdict for one target. */
export interface StuckVerdict {
  readonly target: string;
  readonly condition: StuckCondition;
  readonly signature: string;
  readonly detail: string;
}

/** One worker attempt on a target, as the stuck rules see it. */
export interface AttemptRecord {
  readonly cycle: number;
  readonly solved: boolean;
  readonly signature: string | null;
  readonly snippets: readonly string[];
  readonly emptySearch: boolean;
}

/** A completed checkpoint. */
export interface CheckpointRecord {
  readonly cycle: number;
  readonly commit: string | null;
  readonly files: readonly string[];
  readonly message: string;
}

/** Diagnostics as deep mode compares them (pre-deep baseline vs after the deep pass). */
export interface DiagnosticsSnapshot {
  readonly targets: readonly TargetInfo[];
  readonly errors: readonly string[];
}

/** A deep invocation in progress (the `work.deep` states). */
export interface DeepRun {
  readonly target: string;
  /** The deep-managed files: snapshotted, compared and rolled back together. */
  readonly files: readonly string[];
  readonly snapshotId: string | null;
  /** Diagnostics of `files` captured before the deep dispatch. */
  readonly pre: DiagnosticsSnapshot | null;
  /** Diagnostics of `files` after the deep pass. */
  readonly post: DiagnosticsSnapshot | null;
  /** The parent's custody baseline at deep entry (custody goes back to it on rollback). */
  readonly preBaseline: FileBaseline;
  /** The run's changed files at deep entry (they stay changed after a rollback). */
  readonly changedBefore: readonly string[];
  /** Files the deep worker changed (accepted by custody, not yet by the deep judgement). */
  readonly changed: readonly string[];
  readonly linesChanged: number;
  /** The header fence (a `fence-violation` outcome) refused the deep edit. */
  readonly fence: string | null;
  /** Whether the deep pass improved the file set (sorry count down or an error gone). */
  readonly improved: boolean;
  /** Set when the deep pass must be rolled back: the reason (`deep: <trigger> — <detail>`). */
  readonly rollback: string | null;
}

/** The repair ledger of a cycle: attempts per error signature, in total, and neutral streaks. */
export interface RepairLedgerState {
  readonly perSignature: Readonly<Record<string, number>>;
  readonly total: number;
  readonly noImprovement: Readonly<Record<string, number>>;
}

/** A repair attempt in progress (the `work.repair` states). */
export interface RepairRun {
  readonly target: string;
  /** The structured error being repaired (`file:line:text`). */
  readonly error: string;
  readonly signature: string;
  /** Why repair was triggered (`same blocker signature 2 iterations`, …). */
  readonly trigger: string;
  /** Errors in scope before the attempt (count and signatures: the improvement rule). */
  readonly before: { readonly errors: number; readonly signatures: readonly string[] };
  /** The unified diff of the repair worker. */
  readonly patch: string | null;
  /** Files the applied patch changed. */
  readonly changed: readonly string[];
  readonly outcome: 'improved' | 'neutral' | null;
}

/** Input of the cycle machine. */
export interface CycleInput {
  readonly options: CycleOptions;
  readonly warnings: readonly string[];
  readonly tracker: TrackerState;
  readonly startedAt: number;
  readonly filesOwned: readonly string[];
  readonly baseline: FileBaseline;
  /** A prior run's handoff (prior-run reuse): its blocker is carried into the guard. */
  readonly priorHandoff: Handoff | null;
  /** Evidence offered for relaunching the prior handoff's blocked target (its evidence_delta). */
  readonly priorEvidence?: readonly string[];
  /**
   * Which optional actors the host provided: deep mode needs a snapshotter and a restorer,
   * repair mode a patcher. Absent = none (deep and repair are skipped, with a startup warning
   * when the options ask for them).
   */
  readonly available?: { readonly deep: boolean; readonly repair: boolean; readonly restore?: boolean };
}

/** Context of the cycle machine. */
export interface CycleContext {
  readonly options: CycleOptions;
  readonly warnings: readonly string[];
  readonly tracker: TrackerState;
  readonly now: number;
  /** The limits the last tracker tick reported reached (empty while the run may go on). */
  readonly limitViolations: readonly TrackerViolation[];
  readonly targets: readonly TargetInfo[];
  readonly initialCount: number | null;
  readonly lastCount: number | null;
  /**
   * The errors of the last discovery (`file:line:text`): a run they keep from `solved` with no
   * target left ends stuck on the first (src/cycle/final-handoff.ts).
   */
  readonly discoveryErrors: readonly string[];
  readonly lastDecreaseAt: number;
  readonly plan: readonly PlanStep[];
  readonly searches: readonly { tool: string; query: string; top: readonly string[] }[];
  readonly current: TargetInfo | null;
  readonly attempts: Readonly<Record<string, readonly AttemptRecord[]>>;
  /** The parent-wrapped stuck handoff per target id: what the rerun guard is evaluated against. */
  readonly blocked: Readonly<Record<string, Handoff>>;
  /** Evidence gathered for a relaunch, per target id. */
  readonly evidenceFor: Readonly<Record<string, readonly string[]>>;
  /** Search ledgers per target id (inconclusive searches, unavailable tools): the fallback gate. */
  readonly searchLedgers: Readonly<Record<string, SearchLedger>>;
  /** Targets the guard refused this cycle (skipped until new evidence arrives). */
  readonly refused: readonly string[];
  readonly lastWork: WorkOutcome | null;
  /** Every accepted worker handoff of the run, in order. */
  readonly handoffs: readonly Handoff[];
  readonly accepted: readonly string[];
  readonly filesOwned: readonly string[];
  readonly filesChanged: readonly string[];
  readonly baseline: FileBaseline;
  readonly stuck: StuckVerdict | null;
  readonly lastStuck: StuckVerdict | null;
  readonly stuckHandoff: Handoff | null;
  readonly gateErrors: readonly (readonly string[])[];
  readonly review: ReviewOutput | null;
  readonly reviews: number;
  readonly checkpoints: readonly CheckpointRecord[];
  readonly committedThisCycle: boolean;
  readonly delegation: 'delegate' | 'inline';
  readonly humanAnswer: HumanOutput | null;
  readonly stopDetail: string | null;
  readonly log: readonly string[];
  readonly final: Handoff | null;
  /** The cycle in which the planner last ran (planning runs once per cycle). */
  readonly plannedCycle: number;
  /** The stop the run is heading to (set by the transition into `stopped`). */
  readonly pendingStop: { readonly reason: StopReason; readonly detail: string | null } | null;
  /** Next action override for the final record (`redraft` when the human chose formalize). */
  readonly nextActionOverride: Handoff['next_action'] | null;
  /**
   * How the run is continued after it (the final record's `new_evidence_required_for_rerun`), e.g.
   * the `handoff formalize --formalize restage --target <file>` command of a formalize answer
   * without an outer loop; null = the blocker's own requirement.
   */
  readonly continuation: string | null;
  /**
   * Which optional actors are provided (deep: snapshotter + restorer; repair: patcher; restore:
   * the edit restorer, which puts a failed edit back to its pre-dispatch bytes).
   */
  readonly available: { readonly deep: boolean; readonly repair: boolean; readonly restore?: boolean };
  /**
   * The failed edits put back this run, in words (`restored A.lean: the claim 'solved' did not
   * hold — …`, or why one could not be): the final record's failed avenues carry them.
   */
  readonly restoredEdits: readonly string[];
  /**
   * The refuted edits of this cycle not yet put back: the checkpoint restores them (or drops them
   * when a later verified pass changed their files), and a run that stops before the checkpoint
   * restores them on its way to `stopped`. Absent = none.
   */
  readonly refutedEdits?: readonly RefutedEdit[];
  /** Files rolled back by deep mode this cycle: never staged. */
  readonly rolledBack: readonly string[];
  /** The deep invocation in progress (null outside `work.deep`). */
  readonly deep: DeepRun | null;
  /** The repair attempts of this cycle. */
  readonly repairLedger: RepairLedgerState;
  /** Repair attempts per error signature over the whole run (stuck rule 2). */
  readonly repairHistory: Readonly<Record<string, number>>;
  /** The repair attempt in progress (null outside `work.repair`). */
  readonly repair: RepairRun | null;
  /** Targets the review router (or falsification) already routed this cycle: once per target per cycle. */
  readonly routed: readonly string[];
  /** The last verify errors per target id (`file:line:text`): repair triggers and pre-flight context. */
  readonly verifyErrors: Readonly<Record<string, readonly string[]>>;
  /** The falsification policy in force for the current dispatch (prove: the human's choice). */
  readonly falsifyPolicy: CycleOptions['falsification'] | null;
}
