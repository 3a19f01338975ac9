/**
 * The worker port that delegates one task per dispatch through a transport (a child process for
 * the CLI, a function in-process) and enforces the contract around it: fresh baseline right before
 * dispatch, validation of every handoff (malformed → protocol-error outcome, never a throw),
 * echo of the task identity, and custody after return. Per role (`WorkerInput.role`): a deep
 * dispatch owns its declared files; a repair worker is patch-only (it may not edit: its diff comes
 * back in `artifacts` for the runtime's patcher); a falsify pass may not prove the negation of a
 * target whose `sorry` stays (unless the policy is `negate`); a golf pass may change only the
 * golfed declaration's proof (its statement fenced, no `sorry` brought back: `golfViolation`).
 */
import { resolve } from 'node:path';
import { recordBaseline } from '../baseline/index.js';
import type { FileBaseline } from '../baseline/schema.js';
import { type Dispatch, type Handoff, validateDispatch, validateHandoff } from '../contract/index.js';
import { declarationNameAt, falsificationParameters, negationViolation } from '../cycle/falsification.js';
import { changedLineCount } from '../cycle/line-diff.js';
import { repairAnswerViolation, repairEditViolation } from '../cycle/repair-rules.js';
import { grantCapabilities, searchViolation } from '../cycle/search-budget.js';
import type { CycleOptions, WorkerInput, WorkOutcome } from '../cycle/types.js';
import { importsChanged } from '../cycle/verification-ladder.js';
import { declarationNameAt as blockNameAt } from '../synthesis/declarations.js';
import { golfViolation } from '../synthesis/golf-guard.js';
import { postReturnViolation, preDispatchDrift } from './custody-guard.js';
import { buildDispatch, ownedPathsOf } from './dispatch-builder.js';
import { captureOwned, type OwnedCapture, ownedTypeViolation } from './owned-files.js';
import type { Unstamped, WorkerPort } from './ports.js';
import { restoreAfterRefusal } from './restore-after-refusal.js';
import {
  defaultFenceResolver,
  type FenceResolver,
  fenceVerdict,
  headersOfCapture,
  unfenceable,
} from './statement-fence.js';
import { createVerifiedCustody, type VerifiedCustody } from './verified-custody.js';
import {
  captureZoneBytes,
  describeWorkspaceChanges,
  gitDirsOf,
  snapshotForDispatch,
  snapshotWorkspace,
  type WorkspaceChanges,
  workspaceChanges,
  type ZoneBytes,
} from './workspace-watch.js';

/**
 * What a transport returns for one dispatch. A sandboxed transport adds `discarded`: the
 * violation naming what the worker wrote outside its owned files (discarded with its layer, never
 * on the host), or null.
 */
export type TransportResult = (
  | {
      readonly kind: 'output';
      readonly progress: readonly Record<string, unknown>[];
      readonly handoff: unknown;
    }
  | { readonly kind: 'protocol-error' | 'operational-error' | 'permission-denied'; readonly detail: string }
) & { readonly discarded?: string | null };

/** Receives each `run-persist-progress/v1` object a worker reports, in order. */
export type ProgressSink = (progress: Readonly<Record<string, unknown>>) => void;

/** Carries one dispatch to a worker and brings back its output. */
export interface WorkerTransport {
  /**
   * Runs one dispatch. `onProgress` receives every progress object as it arrives (a child
   * process: live, line by line; in-process: after the function returns).
   */
  run(dispatch: Dispatch, signal: AbortSignal, onProgress?: ProgressSink): Promise<TransportResult>;
  /**
   * The worker runs in the sandbox (src/sandbox): nothing it writes outside its owned files reaches
   * the host, and its result's `discarded` names what it tried — so the project is not walked
   * around its dispatch.
   */
  readonly sandboxed?: boolean;
}

/** Options of {@link createDelegatingWorker}. */
export interface DelegatingWorkerOptions {
  readonly projectRoot: string;
  readonly transport: WorkerTransport;
  /** The inline fallback after a permission denial (optional). */
  readonly inline?: WorkerTransport;
  readonly scratch: string;
  readonly capabilities?: readonly string[];
  /** Observes each dispatch before it is sent (persistence, progress display). */
  readonly onDispatch?: (d: Dispatch) => void | Promise<void>;
  /** Observes each validated worker handoff. */
  readonly onHandoff?: (h: Handoff, d: Dispatch) => void | Promise<void>;
  /**
   * Receives each progress object of a dispatch, in order (display, persistence). Calls are
   * serialized; a rejection coded `invalid_progress` makes the attempt a protocol error, any other
   * rejection ends the run like a failing worker.
   */
  readonly onProgress?: (p: Readonly<Record<string, unknown>>, d: Dispatch) => void | Promise<void>;
  /**
   * The run's verified custody (watch zones, accepted bytes for the checkpoint). Default: the
   * project and its git directories, no store.
   */
  readonly custody?: VerifiedCustody;
  /**
   * The statement fence's header extractor per file (default: Lean for `.lean`, nothing else);
   * a file it maps to null is not fenced.
   */
  readonly fence?: FenceResolver;
}

function ownedBaseline(b: FileBaseline, owned: readonly string[]): FileBaseline {
  return { schema: b.schema, files: b.files.filter((f) => owned.includes(f.path)) };
}

const POLICIES: readonly CycleOptions['falsification'][] = ['salvage', 'negate', 'off'];

/** The falsification policy a falsify dispatch carries (`parameters.falsification.policy`; default `salvage`). */
function policyOf(parameters: WorkerInput['parameters']): CycleOptions['falsification'] {
  const f = parameters?.falsification;
  const p = typeof f === 'object' && f !== null ? (f as { policy?: unknown }).policy : undefined;
  return POLICIES.find((x) => x === p) ?? 'salvage';
}

const sameBytes = (a: Buffer | null | undefined, b: Buffer | null | undefined): boolean =>
  a === b || (a != null && b != null && a.equals(b));

/** The owned files whose bytes differ between two captures. */
function editedFiles(before: OwnedCapture, after: OwnedCapture, owned: readonly string[]): string[] {
  return owned.filter((f) => !sameBytes(before.get(f)?.bytes, after.get(f)?.bytes));
}

/**
 * The delegating worker port, plus `workBeside`: one dispatch run beside sibling dispatches of the
 * same wave (src/runtime/batch-worker.ts), whose owned files (`siblings`) its workspace watch
 * leaves to them — a sibling's writes to its own files are not this worker's custody violation,
 * and each worker's owned files are still checked against its own handoff.
 *
 * @example
 * ```ts
 * const worker: DelegatingWorkerPort = createDelegatingWorker({ projectRoot, transport, scratch });
 * await worker.workBeside(input, signal, ['/repo/B.lean']); // B.lean belongs to a sibling of the wave
 * ```
 */
export interface DelegatingWorkerPort extends WorkerPort {
  workBeside(
    input: WorkerInput,
    signal: AbortSignal,
    siblings: readonly string[],
  ): Promise<Unstamped<WorkOutcome>>;
  /** Whether the run's custody watches a run store (then a wave cannot run concurrently). */
  readonly watchesStore: () => Promise<boolean>;
}

/**
 * Creates the delegating worker port.
 *
 * @example
 * ```ts
 * const worker = createDelegatingWorker({ projectRoot, transport: subprocessTransport(argv, { cwd: projectRoot }), scratch });
 * ```
 */
export function createDelegatingWorker(o: DelegatingWorkerOptions): DelegatingWorkerPort {
  let custody: VerifiedCustody | null = o.custody ?? null;
  const custodyOf = async (): Promise<VerifiedCustody> => {
    custody ??= createVerifiedCustody({
      projectRoot: o.projectRoot,
      gitDirs: await gitDirsOf(o.projectRoot),
      storeRoot: null,
    });
    return custody;
  };
  const port: DelegatingWorkerPort = {
    work: (input, signal) => port.workBeside(input, signal, []),
    watchesStore: async () => (await custodyOf()).zones.storeRoot !== null,
    async workBeside(input, signal, siblings): Promise<Unstamped<WorkOutcome>> {
      const role = input.role ?? 'fill';
      const paths = ownedPathsOf(o.projectRoot, input);
      if (!paths.ok) return { kind: 'operational-error', detail: paths.detail, dispatch: null };
      const owned = [...paths.owned];
      if (input.ownedFiles !== undefined) {
        // a declared set is data from a plan: each path must be a regular file (or absent) at its
        // own location before anything is dispatched
        const swapped = await ownedTypeViolation(owned);
        if (swapped !== null) return { kind: 'operational-error', detail: swapped, dispatch: null };
      }
      const drift = await preDispatchDrift(input.baseline, owned);
      if (drift !== null) return { kind: 'custody-violation', detail: drift, dispatch: null };
      const keeper = await custodyOf();
      const held = ownedBaseline(input.baseline, owned);
      // the custody the parent holds was just checked against the disk: dispatch exactly it (the
      // fresh custody baseline of a prior-run reuse reaches the first dispatch unchanged)
      const fresh = held.files.length === owned.length ? held : await recordBaseline(owned);
      const captured = await captureOwned(owned);
      const fence = o.fence ?? defaultFenceResolver;
      const headersBefore = await headersOfCapture(captured, fence);
      const blind = unfenceable(o.projectRoot, headersBefore);
      if (blind !== null) return { kind: 'operational-error', detail: blind, dispatch: null };
      const capabilities = [
        ...(o.capabilities ?? ['marker-diagnostics']),
        ...grantCapabilities(input.searchBudget, input.searchLedger),
      ];
      const text = (m: OwnedCapture, f: string) => m.get(f)?.bytes?.toString('utf8') ?? '';
      // a falsify pass's artifacts are named after the target's declaration (`h_counterexample`,
      // `h_salvaged`), read from the bytes just captured: the pure cycle never sees the file
      const named =
        role === 'falsify'
          ? {
              ...input,
              parameters: falsificationParameters(
                policyOf(input.parameters),
                input.target,
                declarationNameAt(
                  text(captured, resolve(o.projectRoot, input.target.file)),
                  input.target.line,
                ),
              ),
            }
          : input;
      const dispatch = buildDispatch(named, owned, fresh, o.scratch, capabilities);
      const dv = validateDispatch(dispatch);
      if (!dv.ok) {
        return {
          kind: 'operational-error',
          detail: `the runtime built an invalid dispatch: ${dv.issues[0]?.message ?? ''}`,
          dispatch,
        };
      }
      await o.onDispatch?.(dispatch);
      const transport = input.inline && o.inline ? o.inline : o.transport;
      // the workspace is snapshotted after the runtime's own journal write for this dispatch: from
      // here until the worker returns, nothing but the worker writes to the project, git or store
      // the watch leaves out this dispatch's owned files and its wave siblings'
      const unwatched = [...new Set([...owned, ...siblings])];
      // a sandboxed worker writes only to its own layer: what it changed is read from the layer
      // (the transport's `discarded`), not from walking the project
      const sandboxed = transport.sandboxed === true;
      // (one project walk per dispatch: the baseline is carried over from the last look when only
      // the runtime's own writes can lie between, `snapshotForDispatch`)
      const before = sandboxed ? null : snapshotForDispatch(keeper.zones, unwatched);
      const kept: ZoneBytes = sandboxed
        ? new Map()
        : await captureZoneBytes(keeper.zones, before ?? undefined);
      // progress calls run one at a time; the first failure is kept (never left unhandled while
      // the worker still runs) and later lines of this dispatch are not submitted
      let progressChain: Promise<void> = Promise.resolve();
      let progressError: unknown = null;
      const sink: ProgressSink | undefined = o.onProgress
        ? (p) => {
            progressChain = progressChain
              .then(() => (progressError === null ? o.onProgress?.(p, dispatch) : undefined))
              .catch((e: unknown) => {
                progressError ??= e;
              });
          }
        : undefined;
      const r = await transport.run(dispatch, signal, sink);
      await progressChain;
      const after = before === null ? null : await snapshotWorkspace(keeper.zones, unwatched);
      const changes: WorkspaceChanges =
        before === null || after === null
          ? { project: [], git: [], store: [] }
          : workspaceChanges(before, after);
      // every refusal puts the owned files back to their pre-dispatch bytes, and git's control
      // files and the run store back to theirs, and says so
      const restoreAll = () => restoreAfterRefusal(captured, keeper.zones, kept, changes);
      const refuse = async (
        kind: Exclude<WorkOutcome['kind'], 'handoff'>,
        detail: string,
      ): Promise<Unstamped<WorkOutcome>> => {
        const notes = await restoreAll();
        return { kind, detail: [detail, ...notes].join('; '), dispatch };
      };
      const tampered =
        (await ownedTypeViolation(owned)) ??
        (sandboxed ? (r.discarded ?? null) : describeWorkspaceChanges(changes));
      if (progressError !== null) {
        if ((progressError as { code?: unknown }).code !== 'invalid_progress') {
          // the run ends like a failing worker: nothing the worker wrote stays behind
          await restoreAll();
          throw progressError;
        }
        if (tampered !== null) return refuse('custody-violation', tampered);
        return refuse('protocol-error', `worker progress rejected: ${(progressError as Error).message}`);
      }
      if (r.kind !== 'output') {
        if (tampered !== null) return refuse('custody-violation', `${r.detail}; and ${tampered}`);
        return refuse(r.kind, r.detail);
      }
      if (tampered !== null) return refuse('custody-violation', tampered);
      const hv = validateHandoff(r.handoff);
      if (!hv.ok) {
        const issues = hv.issues
          .slice(0, 3)
          .map((i) => `${i.path || '(root)'}: ${i.message}`)
          .join('; ');
        return refuse('protocol-error', `invalid handoff record: ${issues}`);
      }
      const h = hv.value;
      if (h.target !== dispatch.target || h.scope !== dispatch.scope || h.mode !== dispatch.mode) {
        return refuse(
          'protocol-error',
          `the handoff does not echo the dispatched task (${dispatch.target}, ${dispatch.scope}, ${dispatch.mode})`,
        );
      }
      const ownedSet = [...new Set(h.files_owned)].sort().join('\n');
      if (ownedSet !== [...owned].sort().join('\n')) {
        return refuse('protocol-error', 'files_owned does not echo the dispatch owned_files');
      }
      // the bytes read here are the ones verified against the returned baseline and the only
      // ones a checkpoint may commit
      const accepted = await captureOwned(owned);
      if (role === 'repair') {
        // patch-only: the runtime applies the diff itself, under custody, after this returns
        const edited = repairEditViolation(editedFiles(captured, accepted, owned));
        if (edited !== null) return refuse('custody-violation', edited);
      }
      const violation = postReturnViolation(h, fresh, owned, accepted);
      if (violation !== null) return refuse('custody-violation', violation);
      // the statement fence, on the accepted bytes: a changed, renamed, strengthened-by-hypothesis
      // or deleted declaration (or a new axiom) refuses the edit and makes the target stuck
      const breach = await fenceVerdict(o.projectRoot, headersBefore, accepted, fence, dispatch.capabilities);
      if (breach !== null) return refuse('fence-violation', breach);
      if (role === 'falsify') {
        const file = resolve(o.projectRoot, input.target.file);
        const before = text(captured, file);
        const after = text(accepted, file);
        if (before !== after) {
          const name = declarationNameAt(before, input.target.line);
          const unsafe =
            name === null
              ? `falsification: no theorem or lemma at ${input.target.id} to check the pass against`
              : negationViolation(before, after, name, policyOf(input.parameters));
          if (unsafe !== null) return refuse('fence-violation', unsafe);
        }
      }
      if (role === 'golf') {
        // only the golfed declaration's proof: every other owned file untouched, the rest of the
        // target file byte-identical, the statement fenced, no sorry brought back
        const file = resolve(o.projectRoot, input.target.file);
        const others = editedFiles(captured, accepted, owned).filter((f) => f !== file);
        if (others.length > 0)
          return refuse(
            'fence-violation',
            `golf: only ${input.target.file} may change (edited ${others.join(', ')})`,
          );
        const before = text(captured, file);
        const name = blockNameAt(before, input.target.line);
        const unsafe =
          name === null
            ? `golf: no declaration at ${input.target.id} to golf`
            : golfViolation(before, text(accepted, file), name);
        if (unsafe !== null) return refuse('fence-violation', unsafe);
      }
      const overSearch = searchViolation(h, { budget: input.searchBudget, ledger: input.searchLedger });
      if (overSearch !== null) return refuse('protocol-error', `search budget: ${overSearch}`);
      if (h.stop_reason === 'protocol-error' || h.stop_reason === 'operational-error') {
        const detail = h.stop_detail ?? h.stop_reason;
        return refuse(
          /permission/i.test(detail) ? 'permission-denied' : h.stop_reason,
          `the worker stopped: ${detail}`,
        );
      }
      if (role === 'repair') {
        const shape = repairAnswerViolation(h);
        if (shape !== null) return refuse('protocol-error', shape);
      }
      await o.onHandoff?.(h, dispatch);
      keeper.accept(accepted, after, unwatched, headersBefore, dispatch.capabilities);
      const changedFiles = [...new Set(h.files_changed)];
      return {
        kind: 'handoff',
        dispatch,
        handoff: h,
        accepted: [...h.files_changed],
        baseline: ownedBaseline(h.file_baseline ?? fresh, owned),
        progressLines: r.progress.length,
        importsChanged: h.files_changed.some((f) => importsChanged(text(captured, f), text(accepted, f))),
        linesChanged: changedFiles.reduce(
          (n, f) => n + changedLineCount(text(captured, f), text(accepted, f)),
          0,
        ),
      };
    },
  };
  return port;
}
