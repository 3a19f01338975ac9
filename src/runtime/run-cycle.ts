/**
 * The host that drives machines/cycle (layer 3): provides the actors from the ports (deep mode's
 * snapshotter and restorer, repair mode's patcher when those ports exist), stamps
 * every actor output with the injected clock, reports progress, and resolves to the run's final
 * handoff record (validated; a defect becomes an operational-error record, never a crash).
 */
import { createActor, fromPromise, toPromise } from 'xstate';
import { cycleMachine } from '../../machines/cycle.js';
import type { MachineInspector } from '../../machines/inspector.js';
import { recordBaseline } from '../baseline/index.js';
import type { FileBaseline } from '../baseline/schema.js';
import { type Handoff, validateHandoff } from '../contract/index.js';
import { finalHandoff } from '../cycle/final-handoff.js';
import type {
  CycleContext,
  CycleOptions,
  DiagnosticsInput,
  DiagnosticsOutput,
  VerificationTier,
  WorkerInput,
  WorkOutcome,
} from '../cycle/types.js';
import { nextTier } from '../cycle/verification-ladder.js';
import { initTracker } from '../tracker/counters.js';
import { runBatch } from './batch-worker.js';
import type { DelegatingWorkerPort } from './delegating-worker.js';
import { type EditRestorer, restoreOnStop } from './edit-restorer.js';
import type { Clock, CyclePorts, DiagnosticsPort, Unstamped, WorkerPort } from './ports.js';

/** One progress report: the phase, counters and any new log lines. */
export interface CycleProgress {
  readonly phase: string;
  readonly cycle: number;
  readonly maxCycles: number;
  readonly open: number | null;
  readonly consecutiveStuck: number;
  readonly elapsedMs: number;
  readonly newLog: readonly string[];
}

/** Input of {@link runCycle}. */
export interface CycleRunInput {
  readonly runId: string;
  readonly options: CycleOptions;
  readonly warnings?: readonly string[];
  readonly ports: CyclePorts;
  readonly filesOwned: readonly string[];
  readonly baseline: FileBaseline;
  readonly priorHandoff?: Handoff | null;
  readonly priorEvidence?: readonly string[];
  readonly clock?: Clock;
  /** Where a batch's owned files resolve (default: read off each dispatch's baseline). */
  readonly projectRoot?: string;
  readonly onProgress?: (p: CycleProgress) => void;
  /**
   * An xstate inspector attached to the cycle machine's actor (`createActor(machine, { inspect })`):
   * it sees every event, snapshot and invoked port actor of the run.
   */
  readonly inspect?: MachineInspector;
  /**
   * Puts a failed edit back (src/runtime/edit-restorer.ts): it captures each dispatch's owned
   * files before the worker runs, and the cycle restores an edit whose `solved` claim did not
   * hold before its checkpoint — or, when the run stops before that checkpoint, once the machine
   * reached `stopped`. Absent: such an edit is not committed but stays in the tree.
   */
  readonly editRestorer?: EditRestorer;
}

/** What a run produced. */
export interface CycleRunResult {
  readonly runId: string;
  readonly handoff: Handoff;
  readonly context: CycleContext;
}

function phaseOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) {
    const [k, v] = Object.entries(value)[0] ?? ['?', ''];
    return typeof v === 'string' ? `${k}.${v}` : `${k}.${phaseOf(v)}`;
  }
  return '?';
}

/**
 * Asks diagnostics on the verification ladder: the requested tier first; while the answer is
 * `inconclusive`, the next heavier tier up to `maxTier`. The result names the tier that answered
 * and every tier tried.
 *
 * @example
 * ```ts
 * const out = await diagnoseOnLadder(port, { question: 'edit', tier: 'file-fast', maxTier: 'module', files: ['A.lean'] });
 * out.tiersTried; // ['file-fast', 'file-deps'] when file-fast could not answer
 * ```
 */
export async function diagnoseOnLadder(
  port: DiagnosticsPort,
  input: DiagnosticsInput,
): Promise<Unstamped<DiagnosticsOutput>> {
  const tried: VerificationTier[] = [];
  let tier: VerificationTier | null = input.tier;
  let out: Unstamped<DiagnosticsOutput> | null = null;
  while (tier !== null) {
    tried.push(tier);
    out = await port.diagnose({ ...input, tier });
    if (out.inconclusive !== true) break;
    tier = nextTier(tier, input.maxTier ?? input.tier);
  }
  return {
    ...(out as Unstamped<DiagnosticsOutput>),
    tier: tried.at(-1) as VerificationTier,
    tiersTried: tried,
  };
}

/** Outcomes that end the run when a batch sibling returns them (the machine stops on them). */
const RUN_ENDING = new Set(['custody-violation', 'protocol-error', 'operational-error']);

/**
 * Runs one worker dispatch, or a batch (`input.batch`, a fill dispatch only): with a delegating
 * worker (`workBeside`) through {@link runBatch} — waves of disjoint owned files, at most
 * `input.maxDelegates` at once — else one at a time through `work`, never concurrently. Resolves
 * to the primary's outcome with `batch`: the siblings' outcomes, each stamped with `clock`; when a
 * sibling's outcome ends the run (custody, protocol or operational error) and the primary's does
 * not, that violation is the outcome, its detail naming the sibling's target. `projectRoot`
 * resolves the owned files (default: read off the primary's custody baseline, see
 * {@link rootOf}; when it cannot be, the batch runs one at a time through `work`).
 *
 * @example
 * ```ts
 * const out = await workDispatch(worker, { ...inputA, batch: [inputB], maxDelegates: 2 }, signal, Date.now, '/repo');
 * out.kind === 'handoff' && out.batch?.length; // 1
 * ```
 */
export async function workDispatch(
  worker: WorkerPort,
  input: WorkerInput,
  signal: AbortSignal,
  clock: Clock,
  projectRoot?: string,
): Promise<Unstamped<WorkOutcome>> {
  const { batch, maxDelegates, ...primary } = input;
  if (batch === undefined || batch.length === 0 || (input.role ?? 'fill') !== 'fill')
    return worker.work(primary, signal);
  const inputs = [primary, ...batch];
  const beside = worker as Partial<DelegatingWorkerPort>;
  const delegating = typeof beside.workBeside === 'function' && typeof beside.watchesStore === 'function';
  const root = delegating ? (projectRoot ?? rootOf(primary)) : null;
  let outs: Unstamped<WorkOutcome>[];
  if (root !== null) {
    outs = await runBatch(beside as DelegatingWorkerPort, inputs, {
      projectRoot: root,
      maxDelegates: maxDelegates ?? 1,
      signal,
    });
  } else {
    outs = [];
    for (const i of inputs) outs.push(await worker.work(i, signal));
  }
  const [first, ...rest] = outs as [Unstamped<WorkOutcome>, ...Unstamped<WorkOutcome>[]];
  if (RUN_ENDING.has(first.kind)) return first;
  // a refused primary that does not end the run (fence, permission) keeps its siblings: their
  // accepted files are in custody and must reach the cycle's baseline
  // a file a handoff returned must still hold its returned bytes once the whole batch is done: a
  // sibling writing it after its owner's custody check is caught here
  for (const [k, o] of outs.entries()) {
    if (o.kind !== 'handoff') continue;
    const held = o.baseline.files.filter((f) => f.exists);
    if (held.length === 0) continue;
    const now = await recordBaseline(held.map((f) => f.path));
    const moved = held.find((f, n) => now.files[n]?.sha256 !== f.sha256);
    if (moved !== undefined)
      return {
        kind: 'custody-violation',
        detail: `batch: ${moved.path} changed after the handoff of ${inputs[k]?.target.id ?? '?'} (written by another dispatch of the batch)`,
        dispatch: o.dispatch,
      };
  }
  const bad = rest.findIndex((o) => RUN_ENDING.has(o.kind));
  const v = rest[bad];
  if (v !== undefined && v.kind !== 'handoff')
    return { ...v, detail: `batch sibling ${batch[bad]?.target.id ?? '?'}: ${v.detail}` };
  return { ...first, batch: rest.map((o) => ({ ...o, now: clock() }) as WorkOutcome) };
}

/**
 * The project root a worker input's project-relative target file resolves under, read off its
 * custody baseline: the entry whose path ends with `/<target file>` (an absolute target file
 * needs no root: `/`); null when no entry names the target's file.
 *
 * @example
 * ```ts
 * rootOf({ target: { file: 'A.lean' }, baseline: { files: [{ path: '/repo/A.lean' }] } }); // '/repo'
 * ```
 */
export function rootOf(input: Pick<WorkerInput, 'target' | 'baseline'>): string | null {
  const file = String(input.target.file).replace(/^(\.\/)+/, '');
  if (file.startsWith('/')) return '/';
  const suffix = `/${file}`;
  const hit = input.baseline.files.find((f) => String(f.path).endsWith(suffix));
  return hit === undefined ? null : String(hit.path).slice(0, -suffix.length) || '/';
}

/**
 * Provides the cycle machine's actors from `ports`, stamping outputs with `clock`. With `edits`, the
 * worker actor captures each dispatch's owned files before it runs and the edit restorer puts a
 * failed edit back; without it the edit restorer answers that nothing was restored.
 *
 * @example
 * ```ts
 * const machine = provideCycle(ports, Date.now, '/repo'); // '/repo': where a batch's owned files resolve
 * ```
 */
export function provideCycle(ports: CyclePorts, clock: Clock, projectRoot?: string, edits?: EditRestorer) {
  const stamp = <T extends object>(v: T) => ({ ...v, now: clock() });
  return cycleMachine.provide({
    actors: {
      planner: fromPromise(async ({ input }) => stamp(await ports.planner.plan(input))),
      worker: fromPromise(async ({ input, signal }) => {
        await edits?.capture(input);
        return stamp(await workDispatch(ports.worker, input, signal, clock, projectRoot));
      }),
      diagnostics: fromPromise(async ({ input }) => stamp(await diagnoseOnLadder(ports.diagnostics, input))),
      reviewer: fromPromise(async ({ input }) => stamp(await ports.reviewer.review(input))),
      checkpointer: fromPromise(async ({ input }) => stamp(await ports.checkpointer.checkpoint(input))),
      human: fromPromise(async ({ input }) => stamp(await ports.human.ask(input))),
      snapshotter: fromPromise(async ({ input }) => {
        if (ports.snapshots === undefined)
          throw new Error('deep mode needs a snapshot port (ports.snapshots)');
        return stamp(await ports.snapshots.take(input));
      }),
      restorer: fromPromise(async ({ input }) => {
        if (ports.snapshots === undefined)
          throw new Error('deep mode needs a snapshot port (ports.snapshots)');
        return stamp(await ports.snapshots.restore(input));
      }),
      editRestorer: fromPromise(async ({ input }) => {
        if (edits === undefined) {
          const files = input.edits.flatMap((e) => e.files);
          return stamp({ restored: [], failed: files, detail: 'no edit restorer was provided' });
        }
        return stamp(await edits.restore(input));
      }),
      patcher: fromPromise(async ({ input }) => {
        if (ports.patcher === undefined) throw new Error('repair mode needs a patcher port (ports.patcher)');
        return stamp(await ports.patcher.apply(input));
      }),
    },
  });
}

/**
 * Which optional modes the ports allow (deep: a snapshot port; repair: a patcher port), and the
 * startup warning when `--deep` asks for deep mode the host did not provide (repair is an
 * escalation no option asks for: without a patcher it is skipped silently).
 *
 * @example
 * ```ts
 * optionalModes(ports, options); // { available: { deep: false, repair: false }, warnings: ['deep mode unavailable: …'] }
 * ```
 */
export function optionalModes(
  ports: Pick<CyclePorts, 'snapshots' | 'patcher'>,
  options: Pick<CycleOptions, 'deep'>,
): { available: { deep: boolean; repair: boolean }; warnings: string[] } {
  const available = { deep: ports.snapshots !== undefined, repair: ports.patcher !== undefined };
  const warnings: string[] = [];
  if (!available.deep && options.deep !== 'never')
    warnings.push(`deep mode unavailable: no snapshot port — --deep=${options.deep} is skipped`);
  return { available, warnings };
}

/**
 * Runs one six-phase cycle session to its final state.
 *
 * @example
 * ```ts
 * const { handoff } = await runCycle({ runId, options, ports, filesOwned, baseline });
 * handoff.status; // 'solved' | 'stuck' | 'stopped'
 * ```
 */
export async function runCycle(i: CycleRunInput): Promise<CycleRunResult> {
  const clock = i.clock ?? Date.now;
  const startedAt = clock();
  const sid = i.runId.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 128) || 'run';
  const tr = initTracker(
    {
      maxCycles: i.options.maxCycles,
      maxStuck: i.options.maxStuck,
      maxRuntime: i.options.maxRuntime,
      maxDeepPerCycle: i.options.maxDeepPerCycle,
      maxConsecutiveDeep: i.options.maxConsecutiveDeep,
    },
    sid,
    startedAt,
  );
  if (!tr.ok) throw new Error(tr.error);
  const modes = optionalModes(i.ports, i.options);
  const actor = createActor(provideCycle(i.ports, clock, i.projectRoot, i.editRestorer), {
    input: {
      options: i.options,
      warnings: [...(i.warnings ?? []), ...modes.warnings],
      available: { ...modes.available, restore: i.editRestorer !== undefined },
      tracker: tr.state,
      startedAt,
      filesOwned: i.filesOwned,
      baseline: i.baseline,
      priorHandoff: i.priorHandoff ?? null,
      priorEvidence: i.priorEvidence ?? [],
    },
    ...(i.inspect === undefined ? {} : { inspect: i.inspect }),
  });
  let logSeen = 0;
  let lastPhase = '';
  actor.subscribe({
    next: (s) => {
      const phase = phaseOf(s.value);
      const log = s.context.log;
      if (phase === lastPhase && log.length === logSeen) return;
      lastPhase = phase;
      const newLog = log.slice(logSeen);
      logSeen = log.length;
      i.onProgress?.({
        phase,
        cycle: s.context.tracker.cycles + (s.status === 'done' ? 0 : 1),
        maxCycles: i.options.maxCycles,
        open: s.context.lastCount,
        consecutiveStuck: s.context.tracker.consecutive_stuck,
        elapsedMs: clock() - startedAt,
        newLog,
      });
    },
    error: () => {},
  });
  actor.start();
  let out: Handoff;
  try {
    out = await toPromise(actor);
  } catch (e) {
    const ctx = actor.getSnapshot().context;
    out = finalHandoff(ctx, {
      status: 'stopped',
      stopReason: 'operational-error',
      detail: `runtime error: ${String(e)}`,
    });
  }
  // a run that ended before its cycle's checkpoint (stopped; stuck on a failed deep rollback) puts
  // that cycle's refuted edits back
  const end = await restoreOnStop(actor.getSnapshot().context, out, i.editRestorer, clock);
  out = end.handoff;
  const ctx = end.context;
  if (ctx.log.length > logSeen)
    i.onProgress?.({
      phase: out.status,
      cycle: ctx.tracker.cycles,
      maxCycles: i.options.maxCycles,
      open: ctx.lastCount,
      consecutiveStuck: ctx.tracker.consecutive_stuck,
      elapsedMs: clock() - startedAt,
      newLog: ctx.log.slice(logSeen),
    });
  const v = validateHandoff(out);
  const handoff = v.ok
    ? v.value
    : finalHandoff(ctx, {
        status: 'stopped',
        stopReason: 'operational-error',
        detail: `the final handoff failed validation: ${v.issues.map((x) => `${x.path}: ${x.message}`).join('; ')}`,
      });
  return { runId: i.runId, handoff, context: ctx };
}
