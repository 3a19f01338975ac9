/**
 * `HandoffChain`: a statically wired line of stages bound to a task contract. Construction checks
 * the topology; `advance` runs one seam; `run` drives the chain to acceptance (optionally making
 * every commit durable in a {@link ChainJournal}); `resume` continues from a journal.
 */
import { tryCanonicalJson } from '../canonical/index.js';
import { HandoffError } from '../errors/index.js';
import type { AcceptanceReceipt } from './acceptance-receipt.js';
import { type Baton, type FactRecord, type StageReceipt, seedBaton } from './baton.js';
import { createView } from './baton-view.js';
import { type FactRule, INPUT_PRODUCER } from './fact-rule.js';
import type { ChainJournal } from './journal.js';
import {
  acceptanceFor,
  checkDelta,
  checkpointProblem,
  checkRequires,
  inputRunId,
  nextStage,
  type SeamCommit,
  type SeamPlan,
  stageFailure,
  stageRunId,
} from './seam.js';
import { SeamError } from './seam-error.js';
import { callStage, type StageFn } from './stage-call.js';
import type { FactInput } from './stage-delta.js';
import { type StageSpec, stageSpec } from './stage-spec.js';
import { type ChainTaskContract, contractDigest } from './task-contract.js';
import { assertTopology } from './topology.js';

/** A stage of a chain definition. */
export interface ChainStage {
  readonly spec: {
    readonly name: string;
    readonly requires?: readonly string[];
    readonly provides?: readonly string[];
  };
  readonly run: StageFn;
}

/** Everything a chain is built from. */
export interface ChainDefinition {
  readonly chain_id: string;
  readonly contract: ChainTaskContract;
  readonly stages: readonly ChainStage[];
  // biome-ignore lint/suspicious/noExplicitAny: rules of any value type share one list
  readonly rules: readonly FactRule<any>[];
  /** Keys given when the baton is created (producer `__input__`). */
  readonly initial_keys?: readonly string[];
}

/** Input of {@link HandoffChain.newBaton}. */
export interface NewBatonInput {
  readonly baton_id: string;
  readonly intent: string;
  /** Initial facts; their keys must equal the chain's `initial_keys`. */
  readonly facts?: Readonly<Record<string, FactInput>>;
}

/** Options of {@link HandoffChain.advance} and {@link HandoffChain.run}. */
export interface RunOptions {
  /** Makes every commit durable before the next stage starts. */
  readonly journal?: ChainJournal;
  /** Called after each commit (after the journal write). */
  readonly onCommit?: (commit: SeamCommit) => void | Promise<void>;
  /**
   * Per-stage time limit; defaults to the contract's `budget.timeout_seconds`. When it passes the
   * stage's `signal` aborts and the seam fails with `stage_failed` (`TimeoutError`).
   */
  readonly stageTimeoutMs?: number;
}

/** A completed chain. */
export interface ChainResult {
  readonly baton: Baton;
  readonly receipts: readonly StageReceipt[];
  readonly acceptance: AcceptanceReceipt;
}

/**
 * A handoff chain. Build it with {@link createChain}.
 *
 * @example
 * ```ts
 * const result = await chain.run(chain.newBaton({ baton_id: 'trip-1', intent: 'be in Shanghai' }));
 * result.acceptance.decision; // 'accepted'
 * ```
 */
export class HandoffChain implements SeamPlan {
  readonly chain_id: string;
  readonly contract: ChainTaskContract;
  readonly contract_digest: string;
  readonly specs: readonly StageSpec[];
  readonly initial_keys: readonly string[];
  readonly rules: ReadonlyMap<string, FactRule>;
  private readonly fns: readonly StageFn[];

  constructor(def: ChainDefinition) {
    this.chain_id = def.chain_id;
    this.contract = def.contract;
    this.contract_digest = contractDigest(def.contract);
    this.specs = Object.freeze(
      def.stages.map((s) =>
        stageSpec({
          name: s.spec.name,
          requires: [...(s.spec.requires ?? [])],
          provides: [...(s.spec.provides ?? [])],
        }),
      ),
    );
    this.initial_keys = Object.freeze([...(def.initial_keys ?? [])]);
    assertTopology({
      chain_id: def.chain_id,
      specs: this.specs,
      rules: def.rules,
      initial_keys: this.initial_keys,
    });
    this.rules = new Map(def.rules.map((r) => [r.key, r as FactRule]));
    this.fns = Object.freeze(def.stages.map((s) => s.run));
  }

  /**
   * A revision-0 baton bound to this chain's contract, with the initial facts type- and
   * evidence-checked and recorded with producer `__input__`.
   *
   * @throws HandoffError `invalid_input` for blank identity, wrong initial keys, or a fact failing its rule.
   */
  newBaton(input: NewBatonInput): Baton {
    if (!input.baton_id?.trim() || !input.intent?.trim()) {
      throw new HandoffError('invalid_input', 'a baton needs a non-empty baton_id and intent');
    }
    const facts = input.facts ?? {};
    const keys = Object.keys(facts);
    const missing = this.initial_keys.filter((k) => !keys.includes(k));
    const extra = keys.filter((k) => !this.initial_keys.includes(k));
    if (missing.length > 0 || extra.length > 0) {
      throw new HandoffError(
        'invalid_input',
        `initial facts must be exactly [${this.initial_keys.join(', ')}]: missing [${missing.join(', ')}], extra [${extra.join(', ')}]`,
      );
    }
    const records: FactRecord[] = this.initial_keys.map((key) => {
      const f = facts[key] as FactInput;
      const rule = this.rules.get(key) as FactRule;
      if (!tryCanonicalJson(f.value).ok || !rule.type.safeParse(f.value).success) {
        throw new HandoffError('invalid_input', `initial fact '${key}' has the wrong type`, {
          details: { key },
        });
      }
      const evidence = [...(f.evidence ?? [])];
      if ((rule.evidence_required ?? true) && evidence.length === 0) {
        throw new HandoffError('invalid_input', `initial fact '${key}' requires evidence`, {
          details: { key },
        });
      }
      return {
        key,
        value: f.value,
        producer_stage: INPUT_PRODUCER,
        stage_run_id: inputRunId(input.baton_id),
        evidence_refs: evidence,
      };
    });
    return seedBaton({
      baton_id: input.baton_id,
      contract_digest: this.contract_digest,
      intent: input.intent,
      records,
    });
  }

  /** The run id the next stage gets on `baton` (undefined when complete). */
  nextRunId(baton: Baton): string | undefined {
    const spec = nextStage(this, baton);
    return spec === undefined ? undefined : stageRunId(baton, spec.name);
  }

  /** The stage function at `index` (used by runtimes that drive the seam machine). */
  stageFn(index: number): StageFn {
    const fn = this.fns[index];
    if (fn === undefined) throw new HandoffError('internal', `no stage at index ${index}`);
    return fn;
  }

  /**
   * Runs one seam on `baton`: checks the checkpoint, the required facts, runs the stage on a
   * fresh view, checks its delta in the reference order and commits.
   *
   * @throws SeamError one of the nine seam codes, with the checkpoint (`baton`) and its receipts.
   * @throws HandoffError `invalid_checkpoint` (foreign or inconsistent baton), `chain_complete`.
   */
  async advance(baton: Baton, options: Pick<RunOptions, 'stageTimeoutMs'> = {}): Promise<SeamCommit> {
    const problem = checkpointProblem(this, baton);
    if (problem !== null) {
      throw new HandoffError('invalid_checkpoint', problem, { details: { snapshot_id: baton.snapshot_id } });
    }
    const spec = nextStage(this, baton);
    if (spec === undefined) {
      throw new HandoffError(
        'chain_complete',
        `chain '${this.chain_id}' is already complete at ${baton.snapshot_id}`,
      );
    }
    const missing = checkRequires(this, baton);
    if (missing) throw new SeamError(missing.code, missing.stage, missing.detail, baton);
    const fn = this.stageFn(baton.revision);
    const view = createView(baton, spec.name, stageRunId(baton, spec.name));
    let delta: unknown;
    try {
      delta = await callStage(
        fn,
        view,
        options.stageTimeoutMs ?? this.contract.budget.timeout_seconds * 1000,
      );
    } catch (e) {
      const f = stageFailure(spec.name, e);
      throw new SeamError(f.code, f.stage, f.detail, baton);
    }
    const out = checkDelta(this, baton, delta);
    if (!out.ok) throw new SeamError(out.code, out.stage, out.detail, baton);
    return out;
  }

  /**
   * Runs from `baton` (a fresh baton or a checkpoint) to acceptance. A checkpoint resumes at its
   * failed stage with the same `stage_run_id`; earlier stages never run again. With a journal,
   * the starting baton and every commit are made durable before the next stage starts.
   *
   * @throws SeamError when a seam refuses (its `checkpoint` is the baton to resume from).
   * @throws HandoffError `journal_conflict` when the journal holds a different history.
   */
  async run(baton: Baton, options: RunOptions = {}): Promise<ChainResult> {
    const problem = checkpointProblem(this, baton);
    if (problem !== null)
      throw new HandoffError('invalid_checkpoint', problem, { details: { snapshot_id: baton.snapshot_id } });
    if (options.journal) {
      await options.journal.commit({
        baton,
        receipt: baton.stage_receipts[baton.stage_receipts.length - 1] ?? null,
      });
    }
    let current = baton;
    while (current.revision < this.specs.length) {
      const c = await this.advance(current, options);
      if (options.journal) await options.journal.commit({ baton: c.baton, receipt: c.receipt });
      if (options.onCommit) await options.onCommit(c);
      current = c.baton;
    }
    return { baton: current, receipts: current.stage_receipts, acceptance: acceptanceFor(this, current) };
  }

  /**
   * Loads the last committed baton of `batonId` from `journal` and runs on from it.
   *
   * @throws HandoffError `no_such_run` when the journal holds nothing for the id; as {@link run}.
   */
  async resume(
    journal: ChainJournal,
    batonId: string,
    options: Omit<RunOptions, 'journal'> = {},
  ): Promise<ChainResult> {
    const last = await journal.loadLast(batonId);
    if (last === undefined) throw new HandoffError('no_such_run', `the journal holds no baton '${batonId}'`);
    return this.run(last, { ...options, journal });
  }
}

/**
 * Builds a chain, validating the topology.
 *
 * @example
 * ```ts
 * const chain = createChain({ chain_id: 'trip', contract, initial_keys: ['request_id'],
 *   stages: [{ spec: { name: 'intent', provides: ['city'] }, run: intentFn }], rules });
 * ```
 * @throws HandoffError `invalid_topology` (details.problems) or `invalid_record` (bad stage spec).
 */
export function createChain(def: ChainDefinition): HandoffChain {
  return new HandoffChain(def);
}
