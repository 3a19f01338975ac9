/**
 * `HandoffChain`: a statically wired line of stages bound to a task contract. Construction checks
 * the topology; `advance` runs one seam; `run` drives the chain to acceptance (optionally making
 * every commit durable in a {@link ChainJournal}); `resume` continues from a journal. All three go
 * through the seam machine (`machines/chain.ts`, driven by `driveChain` in machine-runner.ts):
 * there is no second, hand-written seam loop.
 */
import { tryCanonicalJson } from '../canonical/index.js';
import { HandoffError } from '../errors/index.js';
import type { AcceptanceReceipt } from './acceptance-receipt.js';
import { type Baton, type FactRecord, type StageReceipt, seedBaton } from './baton.js';
import { type FactRule, INPUT_PRODUCER } from './fact-rule.js';
import type { ChainJournal } from './journal.js';
import { type ChainDrive, driveChain, type RunOptions } from './machine-runner.js';
import { inputRunId, nextStage, type SeamCommit, type SeamPlan, stageRunId } from './seam.js';
import { SeamError } from './seam-error.js';
import type { StageFn } from './stage-call.js';
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

export type { RunOptions } from './machine-runner.js';

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
   * Runs one seam on `baton` through the seam machine: checks the checkpoint and the required
   * facts, runs the stage on a fresh view, checks its delta in the reference order, and returns the
   * validated commit (nothing is journaled; the next stage does not start).
   *
   * @throws SeamError one of the nine seam codes, with the checkpoint (`baton`) and its receipts.
   * @throws HandoffError `invalid_checkpoint` (foreign or inconsistent baton), `chain_complete`.
   */
  async advance(
    baton: Baton,
    options: Pick<RunOptions, 'stageTimeoutMs' | 'inspect'> = {},
  ): Promise<SeamCommit> {
    const d = await driveChain(this, baton, options, 'one-seam');
    if (d.commit !== null) return d.commit;
    if (d.status === 'accepted') {
      throw new HandoffError(
        'chain_complete',
        `chain '${this.chain_id}' is already complete at ${baton.snapshot_id}`,
      );
    }
    throw stopError(d);
  }

  /**
   * Runs from `baton` (a fresh baton or a checkpoint) to acceptance through the seam machine. A
   * checkpoint resumes at its failed stage with the same `stage_run_id`; earlier stages never run
   * again. With a journal, the starting baton and every commit are made durable before the next
   * stage starts. A failed seam stops the run unless `retryWhen` asks for a retry (same run id,
   * within the contract's `budget.max_attempts`).
   *
   * @throws SeamError when a seam refuses (its `checkpoint` is the baton to resume from).
   * @throws HandoffError `journal_conflict` (or what else the journal or `onCommit` throws) when a
   * commit cannot be made durable.
   */
  async run(baton: Baton, options: RunOptions = {}): Promise<ChainResult> {
    const d = await driveChain(this, baton, options, 'run');
    if (d.status !== 'accepted' || d.acceptance === null) throw stopError(d);
    return { baton: d.baton, receipts: d.baton.stage_receipts, acceptance: d.acceptance };
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
 * The exception of a run the machine stopped at a seam: the journal's own error when the commit
 * could not be made durable, else a {@link SeamError} holding the checkpoint.
 */
function stopError(d: ChainDrive): unknown {
  const f = d.failure;
  if (f === null) return new HandoffError('internal', 'the seam machine stopped without a failure');
  if (f.code === 'commit_failed') return d.commitError?.error ?? new HandoffError('internal', f.detail);
  return new SeamError(f.code, f.stage, f.detail, d.baton);
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
