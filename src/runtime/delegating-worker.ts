/**
 * The worker port that delegates one task per dispatch through a transport (a child process for
 * the CLI, a function in-process) and enforces the contract around it: fresh baseline right before
 * dispatch, validation of every handoff (malformed → protocol-error outcome, never a throw),
 * echo of the task identity, and custody after return.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { recordBaseline } from '../baseline/index.js';
import type { FileBaseline } from '../baseline/schema.js';
import { type Dispatch, type Handoff, validateDispatch, validateHandoff } from '../contract/index.js';
import { postReturnViolation, preDispatchDrift, sentinelSnapshot } from './custody-guard.js';
import type { WorkerInput, WorkOutcome } from './cycle-types.js';
import { buildDispatch } from './dispatch-builder.js';
import type { Unstamped, WorkerPort } from './ports.js';
import { grantCapabilities, searchViolation } from './search-budget.js';
import { importsChanged } from './verification-ladder.js';

/** What a transport returns for one dispatch. */
export type TransportResult =
  | {
      readonly kind: 'output';
      readonly progress: readonly Record<string, unknown>[];
      readonly handoff: unknown;
    }
  | { readonly kind: 'protocol-error' | 'operational-error' | 'permission-denied'; readonly detail: string };

/** Receives each `run-persist-progress/v1` object a worker reports, in order. */
export type ProgressSink = (progress: Readonly<Record<string, unknown>>) => void;

/** Carries one dispatch to a worker and brings back its output. */
export interface WorkerTransport {
  /**
   * Runs one dispatch. `onProgress` receives every progress object as it arrives (a child
   * process: live, line by line; in-process: after the function returns).
   */
  run(dispatch: Dispatch, signal: AbortSignal, onProgress?: ProgressSink): Promise<TransportResult>;
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
}

async function texts(paths: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const p of paths) out.set(p, await readFile(p, 'utf8').catch(() => ''));
  return out;
}

function ownedBaseline(b: FileBaseline, owned: readonly string[]): FileBaseline {
  return { schema: b.schema, files: b.files.filter((f) => owned.includes(f.path)) };
}

/**
 * Creates the delegating worker port.
 *
 * @example
 * ```ts
 * const worker = createDelegatingWorker({ projectRoot, transport: subprocessTransport(argv, { cwd: projectRoot }), scratch });
 * ```
 */
export function createDelegatingWorker(o: DelegatingWorkerOptions): WorkerPort {
  return {
    async work(input: WorkerInput, signal: AbortSignal): Promise<Unstamped<WorkOutcome>> {
      const owned = [resolve(o.projectRoot, input.target.file)];
      const drift = await preDispatchDrift(input.baseline, owned);
      if (drift !== null) return { kind: 'custody-violation', detail: drift, dispatch: null };
      const before = await sentinelSnapshot(o.projectRoot, owned);
      // the custody the parent holds was just checked against the disk: dispatch exactly it (the
      // fresh custody baseline of a prior-run reuse reaches the first dispatch unchanged)
      const held = ownedBaseline(input.baseline, owned);
      const fresh = held.files.length === owned.length ? held : await recordBaseline(owned);
      const textBefore = await texts(owned);
      const capabilities = [
        ...(o.capabilities ?? ['marker-diagnostics']),
        ...grantCapabilities(input.searchBudget, input.searchLedger),
      ];
      const dispatch = buildDispatch(input, owned, fresh, o.scratch, capabilities);
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
      if (progressError !== null) {
        if ((progressError as { code?: unknown }).code !== 'invalid_progress') throw progressError;
        return {
          kind: 'protocol-error',
          detail: `worker progress rejected: ${(progressError as Error).message}`,
          dispatch,
        };
      }
      const after = await sentinelSnapshot(o.projectRoot, owned);
      if (r.kind !== 'output') {
        const foreign =
          [...after.keys()].some((k) => after.get(k) !== before.get(k)) || after.size !== before.size;
        if (foreign) {
          return { kind: 'custody-violation', detail: `${r.detail}; and non-owned files changed`, dispatch };
        }
        return { kind: r.kind, detail: r.detail, dispatch };
      }
      const hv = validateHandoff(r.handoff);
      if (!hv.ok) {
        const issues = hv.issues
          .slice(0, 3)
          .map((i) => `${i.path || '(root)'}: ${i.message}`)
          .join('; ');
        return { kind: 'protocol-error', detail: `invalid handoff record: ${issues}`, dispatch };
      }
      const h = hv.value;
      if (h.target !== dispatch.target || h.scope !== dispatch.scope || h.mode !== dispatch.mode) {
        return {
          kind: 'protocol-error',
          detail: `the handoff does not echo the dispatched task (${dispatch.target}, ${dispatch.scope}, ${dispatch.mode})`,
          dispatch,
        };
      }
      const ownedSet = [...new Set(h.files_owned)].sort().join('\n');
      if (ownedSet !== [...owned].sort().join('\n')) {
        return {
          kind: 'protocol-error',
          detail: 'files_owned does not echo the dispatch owned_files',
          dispatch,
        };
      }
      const violation = await postReturnViolation(h, fresh, owned, before, after);
      if (violation !== null) return { kind: 'custody-violation', detail: violation, dispatch };
      const overSearch = searchViolation(h, { budget: input.searchBudget, ledger: input.searchLedger });
      if (overSearch !== null)
        return { kind: 'protocol-error', detail: `search budget: ${overSearch}`, dispatch };
      if (h.stop_reason === 'protocol-error' || h.stop_reason === 'operational-error') {
        const detail = h.stop_detail ?? h.stop_reason;
        return {
          kind: /permission/i.test(detail) ? 'permission-denied' : h.stop_reason,
          detail: `the worker stopped: ${detail}`,
          dispatch,
        };
      }
      await o.onHandoff?.(h, dispatch);
      return {
        kind: 'handoff',
        dispatch,
        handoff: h,
        accepted: [...h.files_changed],
        baseline: ownedBaseline(h.file_baseline ?? fresh, owned),
        progressLines: r.progress.length,
        importsChanged: await (async () => {
          const textAfter = await texts(h.files_changed);
          return h.files_changed.some((f) => importsChanged(textBefore.get(f) ?? '', textAfter.get(f) ?? ''));
        })(),
      };
    },
  };
}
