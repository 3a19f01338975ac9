/**
 * The `--persist` recorder (layer 3): drives the persistence controller (src/persist) over the
 * run store (src/store; fs backend by default) at every boundary of the cycle — start with the
 * first dispatch, redispatches, worker handoffs, reviews, replans (before the tick) and finish —
 * and obeys its failure policy: a `stop` action stops the run (the controller's operational-error
 * handoff is kept as the run's final record).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTraceCollector } from '../audit/trace-collector.js';
import type { Dispatch, Handoff } from '../contract/index.js';
import { stuckBlocker, stuckClass } from '../cycle/final-handoff.js';
import type { PlannerOutput, ReviewInput, ReviewOutput } from '../cycle/types.js';
import { nodeFsLayer, publishFile } from '../durable/index.js';
import { HandoffError } from '../errors/index.js';
import {
  memoryStateStore,
  PersistController,
  type PersistResult,
  type PreparedPriorRun,
  type StateFs,
} from '../persist/index.js';
import type { BlockerClassTable } from '../profile/blocker-classes.js';
import { createFsStore, type FsStore, resolveStoreRoot, runPaths, type Store } from '../store/index.js';
import { phraseOf } from './builtin-ports.js';
import type { JournaledHandoff } from './final-cites.js';
import { prepareResume, type ResumedRun } from './resume-run.js';
import type { RunRecorder } from './run-recorder.js';
import { STOP_SUMMARY_FILE } from './stop-summary.js';

/** Options of {@link createPersistRecorder}. */
export interface PersistRecorderOptions {
  readonly projectRoot: string;
  /** `--run-store` (else `$HANDOFF_RUN_STORE`, else `<project>/.handoff`). */
  readonly runStore?: string | null;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly trackerSessionId?: string | null;
  readonly clock?: () => Date;
  /** A store to journal to instead of the fs store (e.g. `createMemoryStore()`). */
  readonly store?: Store;
  /**
   * Where the controller keeps its invocation state: `memory` (the default: the journal is the only
   * thing written, one sync per event) or `file` (a private state file in a temporary directory,
   * replaced whole twice per mutation — the `handoff persist` verbs' form; given `stateFs`, `file`).
   */
  readonly state?: 'memory' | 'file';
  /** The controller's state-file I/O when the state is a file (default: node:fs with fsync). */
  readonly stateFs?: StateFs;
  /**
   * Record the cycle machine's transitions with the journal (default true): the recorder's
   * `inspect` collects them and each journal write carries the ones since the previous write, for
   * `handoff audit`. Needs a store with `appendBatch` (the fs, memory and PostgreSQL stores).
   */
  readonly trace?: boolean;
  /** The domain profile's blocker phrases, to map stuck reviews (default: the proof phrases). */
  readonly blockerClasses?: BlockerClassTable;
  /**
   * `--resume RUN_ID`: continue this killed run in its own journal instead of starting one (see
   * src/runtime/resume-run.ts: a dead writer's lock recovered, the run judged resumable, the
   * controller state rebuilt from the journal). Needs the state in memory.
   */
  readonly resume?: string;
}

/** A recorder that also exposes the cites it obtained and any policy stop. */
export interface PersistRecorder extends RunRecorder {
  readonly storageRoot: string;
  readonly cites: readonly string[];
  /** The source-note's cite when the run reused a prior run (event #1), else null. */
  readonly sourceNoteCite: string | null;
  /** The controller's stop handoff when the failure policy stopped the run. */
  readonly stopHandoff: Handoff | null;
  /** The invocation-private controller state file (`run-persist-state/v1`), or null when the state is in memory. */
  readonly statePath: string | null;
  /** The controller's view of the run (`status`: committed history, knowledge, markers). */
  status(): Promise<PersistResult>;
  /** Removes the invocation state (call once the run is over and its result was reported). */
  dispose(): Promise<void>;
}

/**
 * Opens the fs store for a project. `holdLocks` (default false) keeps each run's `.lock` from the
 * store's first mutation of the run until `close()` (see docs/store.md § Held run locks): for a
 * writer that owns its run from start to end, as the persistence recorder does.
 *
 * @example
 * ```ts
 * const { store, root } = openRunStore('/repo', null, process.env);
 * ```
 */
export function openRunStore(
  projectRoot: string,
  runStore: string | null | undefined,
  env: Readonly<Record<string, string | undefined>> = {},
  options: { readonly holdLocks?: boolean } = {},
): { store: FsStore; root: string } {
  const root = resolveStoreRoot({ root: runStore ?? undefined, projectRoot, env, cwd: projectRoot });
  return { store: createFsStore({ root, holdLocks: options.holdLocks === true }), root };
}

/**
 * Creates the persistence recorder.
 *
 * @example
 * ```ts
 * const rec = await createPersistRecorder({ projectRoot: '/repo' });
 * await runProject({ …, recorder: rec });
 * ```
 */
export async function createPersistRecorder(o: PersistRecorderOptions): Promise<PersistRecorder> {
  // a store the recorder opens is its own: it holds the run's lock from the run's first write to
  // dispose() (one O_EXCL lock for the run instead of a create and unlink per journal write; the
  // lock is there before the first worker's window opens and stays past the last, so a workspace
  // watch never sees it change); a store passed in is the caller's to configure and close
  const owned =
    o.store === undefined ? openRunStore(o.projectRoot, o.runStore, o.env, { holdLocks: true }) : null;
  const { store, root } = owned ?? { store: o.store as Store, root: (o.store as Store).root };
  const inFile = (o.state ?? (o.stateFs === undefined ? 'memory' : 'file')) === 'file';
  if (o.resume !== undefined && inFile)
    throw new HandoffError('usage', '--resume keeps the controller state in memory');
  let resumed: ResumedRun | null = null;
  let resumedSeq = 0;
  let resumedSourceNote: string | null = null;
  const memory = memoryStateStore();
  const carried: JournaledHandoff[] = [];
  if (o.resume !== undefined) {
    const prepared = await prepareResume({
      store,
      fsRoot: owned === null ? null : root,
      runId: o.resume,
      projectRoot: o.projectRoot,
    }).catch((e: unknown) => {
      owned?.store.close();
      throw e;
    });
    await memory.create(prepared.verdict.state);
    resumed = prepared.resumed;
    resumedSeq = prepared.verdict.state.last_seq;
    resumedSourceNote = prepared.verdict.state.source_note_cite;
    carried.push(...prepared.verdict.handoffs);
  }
  const stateDir = inFile ? await mkdtemp(join(tmpdir(), 'handoff-persist-')) : null;
  const statePath = stateDir === null ? null : join(stateDir, 'run-persist.json');
  const collector =
    o.trace === false || store.appendBatch === undefined
      ? null
      : createTraceCollector({ machines: ['cycle'] });
  const controller = new PersistController({
    ...(statePath === null ? { stateStore: memory } : { statePath }),
    ...(collector === null ? {} : { trace: () => collector.take() }),
    openStore: () => store,
    storageRoot: root,
    projectRoot: o.projectRoot,
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.stateFs ? { stateFs: o.stateFs } : {}),
  });
  let runId: string | null = resumed?.runId ?? null;
  let stopHandoff: Handoff | null = null;
  // group commit: a cycle's review and replan wait for the next journal write (the next dispatch,
  // a handoff or the finish) and go with it in one write and one sync; their cites are the seqs
  // they will have (the store refuses the group otherwise, and the run stops)
  let lastSeq = resumedSeq;
  const pending: { verb: 'review' | 'replan'; payload: unknown }[] = [];
  const nextCite = (): string | null => (runId === null ? null : `${runId}#${lastSeq + pending.length + 1}`);
  let lastReviewCite: string | null = null;
  let sourceNoteCite: string | null = resumedSourceNote;
  const cites: string[] = [];
  const obey = (r: PersistResult): PersistResult => {
    const all = Array.isArray(r.cites) ? (r.cites as string[]) : typeof r.cite === 'string' ? [r.cite] : [];
    cites.push(...all);
    if (typeof r.seq === 'number') lastSeq = r.seq;
    if (r.action === 'stop' || r.action === 'startup-error' || r.action === 'usage') {
      stopHandoff = (r.handoff ?? r.fallback_handoff ?? null) as Handoff | null;
      throw new HandoffError(
        'persist_stop',
        `persistence stopped the run (${r.verb}: ${r.code ?? r.outcome ?? r.action}): ${r.message ?? ''}`,
        {
          details: { result: r },
        },
      );
    }
    return r;
  };
  /** Writes the waiting review/replan events with `last` (if any) in one journal write. */
  const flush = async (last?: { verb: 'dispatch' | 'handoff'; payload: unknown }): Promise<string | null> => {
    const group = [...pending, ...(last === undefined ? [] : [last])];
    pending.length = 0;
    if (group.length === 0) return null;
    const r = obey(await controller.group(group));
    const all = Array.isArray(r.cites) ? (r.cites as string[]) : typeof r.cite === 'string' ? [r.cite] : [];
    return all.at(-1) ?? null;
  };
  const journaledHandoffs: JournaledHandoff[] = [...carried];
  return {
    get runId() {
      return runId;
    },
    storageRoot: root,
    storeDir: o.store === undefined ? root : null,
    cites,
    journaledHandoffs,
    resumed,
    async writeSummary(markdown: string) {
      // only the fs store this recorder opened has a run directory here
      if (owned === null || runId === null) return null;
      const target = join(runPaths(root, runId).dir, STOP_SUMMARY_FILE);
      publishFile(nodeFsLayer(), target, new TextEncoder().encode(markdown), { label: 'summary' });
      return target;
    },
    statePath,
    status: () => controller.status(),
    ...(collector === null ? {} : { inspect: collector.inspect }),
    async dispose() {
      owned?.store.close();
      if (stateDir !== null) await rm(stateDir, { recursive: true, force: true });
    },
    get stopHandoff() {
      return stopHandoff;
    },
    get sourceNoteCite() {
      return sourceNoteCite;
    },
    async start(first: Dispatch, prior?: PreparedPriorRun | null) {
      const r = obey(
        await controller.startPrepared(
          { dispatch: first, trackerSessionId: o.trackerSessionId ?? null },
          prior ?? null,
        ),
      );
      runId = (r.run_id as string | undefined) ?? null;
      sourceNoteCite = typeof r.source_note_cite === 'string' ? r.source_note_cite : null;
      if (sourceNoteCite !== null)
        lastSeq = Number(sourceNoteCite.slice(sourceNoteCite.lastIndexOf('#') + 1));
      if (sourceNoteCite !== null) cites.push(sourceNoteCite);
    },
    async progress(p: Readonly<Record<string, unknown>>) {
      const r = await controller.progress(p);
      if (r.action === 'startup-error' && r.code === 'invalid_progress') {
        // the controller changed nothing; the worker broke the protocol (the runtime stops it)
        const errors = r.errors ?? [];
        throw new HandoffError(
          'invalid_progress',
          `the persistence controller rejected a progress line: ${errors
            .slice(0, 3)
            .map((e) => `${e.code}: ${e.message}`)
            .join('; ')}`,
          { details: { result: r } },
        );
      }
      obey(r);
    },
    async dispatch(d: Dispatch) {
      await flush({ verb: 'dispatch', payload: d });
    },
    async handoff(h: Handoff) {
      const cite = await flush({ verb: 'handoff', payload: h });
      if (cite !== null) journaledHandoffs.push({ cite, handoff: h });
    },
    async review(out: Omit<ReviewOutput, 'now'>, input: ReviewInput) {
      const stuck = out.mode === 'stuck' ? (input.stuck ?? null) : null;
      const last = input.lastHandoff ?? null;
      let mapped: Handoff | null = null;
      let triage: Record<string, unknown> | null = null;
      if (stuck !== null && last !== null) {
        const { kind, cls } = stuckBlocker({ ...out, now: 0 }, last, stuck.condition, o.blockerClasses);
        mapped = {
          ...last,
          target: stuck.target,
          scope: 'sorry',
          status: 'stuck',
          stop_reason: null,
          stop_detail: null,
          blocker_kind: kind,
          blocker_class: cls,
          blocker_signature: stuck.signature,
          next_action: out.nextAction,
          new_evidence_required_for_rerun:
            last.new_evidence_required_for_rerun ?? `new evidence for ${stuck.target}`,
        };
        triage = {
          blocker_class: cls,
          blocker_kind: kind,
          blocker_signature: stuck.signature,
          next_action: out.nextAction,
          statement_may_be_false: out.falsification,
          evidence: [...out.evidence],
        };
      }
      const target =
        stuck?.target ?? (input.file ? `${input.file}${input.line ? `:${input.line}` : ''}` : '.');
      const completedStuck = mapped !== null;
      const payload = {
        schema: 'review-record/v1',
        cycle: input.cycle,
        mode: out.mode === 'stuck' ? 'stuck' : 'batch',
        target,
        scope: out.mode === 'stuck' ? 'sorry' : (input.scope ?? 'file'),
        line: input.line ?? null,
        source: 'internal',
        status: out.mode === 'stuck' && !completedStuck ? 'skipped' : 'completed',
        output: out.mode === 'stuck' ? null : { error: null, suggestions: [...out.suggestions] },
        triage,
        mapped_handoff: mapped,
        detail:
          out.mode === 'stuck' && !completedStuck
            ? `stuck review without a worker handoff to map (${out.primaryBlocker ? phraseOf(stuckClass({ ...out, now: 0 }, null, o.blockerClasses).cls) : 'none'})`
            : null,
      };
      lastReviewCite = nextCite() ?? lastReviewCite;
      pending.push({ verb: 'review', payload });
    },
    async replan(p: Omit<PlannerOutput, 'now'>, cycle: number) {
      const blocked = p.steps.filter((s) => s.note.startsWith('blocked'));
      pending.push({
        verb: 'replan',
        payload: {
          schema: 'replan-summary/v1',
          cycle: Math.max(1, cycle),
          plan: p.summary,
          failed_approaches: [],
          blockers: blocked.map((s) => {
            const m = /^(.*):(\d+)$/.exec(s.target);
            return {
              file: m ? (m[1] as string) : s.target,
              line: m ? Number(m[2]) : null,
              blocker_class: null,
              blocker_signature: null,
            };
          }),
          next_steps: p.steps.map((s) => `${s.target}: ${s.note}`),
          cites: [sourceNoteCite, lastReviewCite].filter(
            (c): c is string => c !== null && runId !== null && c.startsWith(`${runId}#`),
          ),
        },
      });
    },
    async finish(final: Handoff) {
      if (runId === null) return { cite: null };
      try {
        await flush();
      } catch (e) {
        // the waiting review/replan could not be stored: persistence stopped (stopHandoff says
        // why); the final handoff is not written after a gap
        if (e instanceof HandoffError && e.code === 'persist_stop') return { cite: null };
        throw e;
      }
      const r = await controller.finish(final);
      if (typeof r.cite === 'string') cites.push(r.cite);
      return { cite: typeof r.cite === 'string' ? r.cite : null };
    },
  };
}
