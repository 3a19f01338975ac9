/**
 * Custody helpers for the runtime: {@link assertCustody} (check before every mutation; only a
 * `match` authorizes) and {@link CustodyChain} (the single-writer chain: check → write → advance,
 * and stop for good after a failed advance).
 */
import { HandoffError, isHandoffError } from '../errors/index.js';
import { advanceBaseline } from './advance.js';
import { type BaselineCheckOptions, checkBaseline } from './check.js';
import type { BaselineCheck } from './check-schema.js';
import { requireCwd } from './paths.js';
import { requireBaseline } from './require-baseline.js';
import type { FileBaseline } from './schema.js';

/** What a caller should do after drift: never re-record and retry. */
export const DRIFT_RECOMMENDATIONS = ['rerun', 'serialize', 'worktree'] as const;

/**
 * Checks `baseline` and returns the check when it is a `match`; otherwise throws, so no mutation
 * can follow a failed check.
 *
 * @example
 * ```ts
 * await assertCustody(baseline, { only: ['/repo/A.lean'] }); // throws on drift or error
 * await writeFile('/repo/A.lean', next);
 * ```
 * @throws HandoffError `drift` (`details.check`, `details.affected`, `details.recommendations`),
 * `io_error` (`details.check`) for error results, and the input refusals of {@link checkBaseline}.
 */
export async function assertCustody(
  baseline: FileBaseline,
  options: BaselineCheckOptions = {},
): Promise<BaselineCheck> {
  const check = await checkBaseline(baseline, options);
  if (check.result === 'match') return check;
  const affected = check.entries.filter((e) => e.status !== 'unchanged');
  const list = affected.map((e) => `${e.path} (${e.status})`).join(', ');
  if (check.result === 'drift') {
    throw new HandoffError(
      'drift',
      `stale baseline, no mutation: ${list}; rerun, serialize, or isolate in a worktree — never re-record and retry`,
      {
        details: { check, affected, recommendations: [...DRIFT_RECOMMENDATIONS] },
      },
    );
  }
  throw new HandoffError('io_error', `custody check failed operationally, no mutation: ${list}`, {
    details: { check, affected },
  });
}

function freezeBaseline(b: FileBaseline): FileBaseline {
  for (const f of b.files) Object.freeze(f);
  Object.freeze(b.files);
  return Object.freeze(b);
}

/** Options of a {@link CustodyChain}. */
export interface CustodyChainOptions {
  /** Absolute directory against which relative target paths resolve (default `process.cwd()`). */
  readonly cwd?: string;
}

/**
 * The single-writer custody chain. It holds the current (last accepted) baseline, checks the
 * intended targets before each write, advances exactly those targets after it, and serializes
 * writes. After a failed advance the chain is broken: every later call throws
 * `custody_violation`, because the chain is no longer trustworthy.
 *
 * A write whose `mutate` throws is not advanced and does not break the chain: any partial change
 * shows up as drift at the next check (fail closed; nothing is blessed).
 *
 * @example
 * ```ts
 * const chain = new CustodyChain(dispatch.file_baseline, { cwd: repo });
 * await chain.write(['/repo/A.lean'], () => writeFile('/repo/A.lean', patched));
 * handoff.file_baseline = chain.current;
 * ```
 */
export class CustodyChain {
  #current: FileBaseline;
  readonly #cwd: string;
  #failure: HandoffError | undefined;
  #tail: Promise<unknown> = Promise.resolve();

  /**
   * Starts a chain from a baseline (validated; fail closed).
   *
   * @throws HandoffError `invalid_record` or `usage` (exit 2).
   */
  constructor(baseline: FileBaseline, options: CustodyChainOptions = {}) {
    this.#current = freezeBaseline(structuredClone(requireBaseline(baseline)));
    this.#cwd = requireCwd(options.cwd);
  }

  /** The current baseline (frozen): the one to use for the next check, and to hand back. */
  get current(): FileBaseline {
    return this.#current;
  }

  /** True after a failed advance; the chain then refuses everything. */
  get broken(): boolean {
    return this.#failure !== undefined;
  }

  /** The error that broke the chain, if any. */
  get failure(): HandoffError | undefined {
    return this.#failure;
  }

  #refuseIfBroken(): void {
    if (this.#failure !== undefined) {
      throw new HandoffError(
        'custody_violation',
        'custody chain broken by a failed advance; no further mutation',
        { details: { cause: this.#failure.toJSON() }, cause: this.#failure },
      );
    }
  }

  #serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(task, task);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /**
   * Checks the current baseline (all entries, or `targets`); resolves with the `match` check.
   *
   * @example
   * ```ts
   * await chain.check(['/repo/A.lean']);
   * ```
   * @throws HandoffError as {@link assertCustody}; `custody_violation` when broken.
   */
  check(targets?: readonly string[]): Promise<BaselineCheck> {
    return this.#serialize(async () => {
      this.#refuseIfBroken();
      return assertCustody(
        this.#current,
        targets === undefined ? { cwd: this.#cwd } : { only: targets, cwd: this.#cwd },
      );
    });
  }

  /**
   * Advances the entries the writer changed. A failure breaks the chain.
   *
   * @example
   * ```ts
   * await chain.advance(['/repo/A.lean']);
   * ```
   * @throws HandoffError from {@link advanceBaseline}; `custody_violation` when already broken.
   */
  advance(changed: readonly string[]): Promise<FileBaseline> {
    return this.#serialize(() => this.#advance(changed));
  }

  async #advance(changed: readonly string[]): Promise<FileBaseline> {
    this.#refuseIfBroken();
    try {
      this.#current = freezeBaseline(await advanceBaseline(this.#current, changed, { cwd: this.#cwd }));
      return this.#current;
    } catch (e) {
      this.#failure = isHandoffError(e)
        ? e
        : new HandoffError('internal', `advance failed: ${String(e)}`, { cause: e });
      throw e;
    }
  }

  /**
   * One custody-guarded write: checks `targets` (only a match proceeds), runs `mutate`, then
   * advances `targets`. Writes are serialized.
   *
   * @example
   * ```ts
   * await chain.write(['/repo/A.lean'], () => writeFile('/repo/A.lean', next));
   * ```
   * @throws HandoffError `drift` / `io_error` before the write (nothing was mutated), whatever
   * `mutate` throws (not advanced), advance errors (chain broken), `custody_violation` when broken.
   */
  write<T>(targets: readonly string[], mutate: () => Promise<T> | T): Promise<T> {
    return this.#serialize(async () => {
      this.#refuseIfBroken();
      if (targets.length === 0) {
        throw new HandoffError('usage', 'a custody-guarded write names at least one target');
      }
      await assertCustody(this.#current, { only: targets, cwd: this.#cwd });
      const value = await mutate();
      await this.#advance(targets);
      return value;
    });
  }
}
