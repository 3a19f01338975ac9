/**
 * Resuming a killed persisted run (pure): whether a loaded run may be continued, and the
 * controller state that continues it — the same run id, the committed history and parent
 * knowledge rebuilt from the journal in seq order (the manifest's dispatch, then every dispatch,
 * handoff and note), nothing in flight. A run is resumable only when its journal is whole (no
 * damage after the valid prefix: `handoff store recover` first), it never finished (its recorded
 * trace never reached a final state of the cycle machine: the final handoff is written with the
 * transition into `solved`, `stuck` or `stopped` — a run recorded without a trace cannot be told
 * finished this way) and it is a cycle run (not a chain run).
 */
import type { Dispatch, Handoff } from '../contract/index.js';
import { formatCite } from '../store/cite.js';
import type { RunLoad, TraceStep } from '../store/store-types.js';
import {
  absorbDispatch,
  absorbHandoff,
  absorbNote,
  type Knowledge,
  knowledgeFromDispatch,
} from './knowledge.js';
import { type PersistState, STATE_SCHEMA } from './state-schema.js';

/** Why a run cannot be resumed. */
export type ResumeRefusalCode = 'run_finished' | 'journal_damaged' | 'not_resumable';

/** The verdict of {@link resumeVerdict}. */
export type ResumeVerdict =
  | {
      readonly ok: true;
      /** The controller state that continues the run (bound to its root and id). */
      readonly state: PersistState;
      /** Every worker `handoff` event of the journal with its cite, in seq order. */
      readonly handoffs: readonly { readonly cite: string; readonly handoff: Handoff }[];
      /** The last dispatch the run recorded (the manifest's when the journal has none). */
      readonly lastDispatch: Dispatch;
      /**
       * What the run last knew of each file (newest dispatch or handoff baseline entry per path,
       * in seq order) with the cite of the record it comes from: the custody a resume checks.
       */
      readonly custody: readonly JournalCustody[];
    }
  | { readonly ok: false; readonly code: ResumeRefusalCode; readonly message: string };

/** One file as the journal last knew it. */
export interface JournalCustody {
  readonly path: string;
  readonly exists: boolean;
  readonly sha256: string | null;
  /** `<run_id>#<seq>` of the record, or `<run_id>#manifest`. */
  readonly origin: string;
}

/** The cycle machine's final states (a run whose trace reached one has its final handoff). */
const CYCLE_FINAL = new Set(['cycle.solved', 'cycle.stuck', 'cycle.stopped']);

/**
 * True when a recorded trace reached a final state of the cycle machine (pure).
 *
 * @example
 * ```ts
 * cycleEnded([{ machine: 'cycle', from: 'cycle.review', event: 'xstate.done', to: 'cycle.solved' }]); // true
 * ```
 */
export function cycleEnded(traces: readonly TraceStep[]): boolean {
  return traces.some((t) => t.machine === 'cycle' && CYCLE_FINAL.has(t.to));
}

/** Where the resumed state binds. */
export interface ResumeBinding {
  readonly storageRoot: string;
  readonly projectRoot: string;
  /** The run's directory in the fs store, or null for other stores. */
  readonly runDirectory: string | null;
}

/**
 * Decides whether `run` can be resumed and, if so, the state that continues it (pure).
 *
 * @example
 * ```ts
 * const v = resumeVerdict(load.value, { storageRoot, projectRoot, runDirectory });
 * if (v.ok) await stateStore.create(v.state); // then the controller appends at last_seq + 1
 * else v.code; // 'run_finished' | 'journal_damaged' | 'not_resumable'
 * ```
 */
export function resumeVerdict(
  run: RunLoad,
  at: ResumeBinding,
  traces: readonly TraceStep[] = [],
): ResumeVerdict {
  if (run.damaged || run.damage !== null)
    return {
      ok: false,
      code: 'journal_damaged',
      message: `run ${run.run_id}: the journal is damaged after seq ${run.events.at(-1)?.seq ?? 0} (handoff store recover ${run.run_id} first)`,
    };
  if (cycleEnded(traces))
    return {
      ok: false,
      code: 'run_finished',
      message: `run ${run.run_id} finished (its final handoff is stored): nothing to resume (--prior-run ${run.run_id} starts a new run from it)`,
    };
  const first = (run.manifest as { dispatch?: unknown }).dispatch as Dispatch | undefined;
  if (first === undefined || first === null || typeof first !== 'object')
    return { ok: false, code: 'not_resumable', message: `run ${run.run_id} is not a cycle run` };
  let k: Knowledge = knowledgeFromDispatch(first);
  let lastDispatch = first;
  let sourceNote: string | null = null;
  const handoffs: { cite: string; handoff: Handoff }[] = [];
  const custody = new Map<string, JournalCustody>();
  const know = (b: Dispatch['file_baseline'] | Handoff['file_baseline'], origin: string) => {
    for (const f of b?.files ?? [])
      custody.set(f.path, { path: f.path, exists: f.exists, sha256: f.sha256, origin });
  };
  know(first.file_baseline, formatCite(run.run_id, 'manifest'));
  for (const e of run.events) {
    const cite = formatCite(run.run_id, e.seq);
    if (e.kind === 'dispatch') {
      lastDispatch = e.payload as Dispatch;
      k = absorbDispatch(k, lastDispatch);
      know(lastDispatch.file_baseline, cite);
    } else if (e.kind === 'handoff') {
      k = absorbHandoff(k, e.payload as Handoff);
      handoffs.push({ cite, handoff: e.payload as Handoff });
      know((e.payload as Handoff).file_baseline, cite);
    } else if (e.kind === 'note') {
      const note = e.payload as { kind: string; text: string; lean: string | null };
      k = absorbNote(k, note, cite);
      if (e.seq === 1 && note.kind === 'source-note') sourceNote = cite;
    }
  }
  const manifest = run.manifest as { prior_run?: string | null };
  return {
    ok: true,
    handoffs,
    lastDispatch,
    custody: [...custody.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    state: {
      schema: STATE_SCHEMA,
      storage_root: at.storageRoot,
      project_root: at.projectRoot,
      run_id: run.run_id,
      run_directory: at.runDirectory,
      prior_run: manifest.prior_run ?? null,
      knowledge: k,
      last_seq: run.events.at(-1)?.seq ?? 0,
      history: run.events.map((e) => ({ seq: e.seq, kind: e.kind, cite: formatCite(run.run_id, e.seq) })),
      inflight: null,
      unpersisted: [],
      stopped: null,
      finished: null,
      final_handoff: null,
      source_note_cite: sourceNote,
    },
  };
}

/**
 * The files whose bytes now differ from what the journal last knew (pure): each as
 * `<path> (<what changed>; last known at <cite>)`. A resumed run takes custody only of a project
 * the journal vouches for; anything else is reconciled by the user first.
 *
 * @example
 * ```ts
 * custodyDrift(v.custody, [{ path: '/p/A.lean', exists: true, sha256: 'ab…' }]);
 * // ['/p/A.lean (modified; last known at 20261206T…#4)']
 * ```
 */
export function custodyDrift(
  known: readonly JournalCustody[],
  now: readonly { readonly path: string; readonly exists: boolean; readonly sha256: string | null }[],
): string[] {
  const seen = new Map(now.map((f) => [f.path, f]));
  const out: string[] = [];
  for (const k of known) {
    const n = seen.get(k.path);
    if (n === undefined) continue;
    if (n.exists === k.exists && n.sha256 === k.sha256) continue;
    const what = !n.exists ? 'deleted' : !k.exists ? 'created' : 'modified';
    out.push(`${k.path} (${what}; last known at ${k.origin})`);
  }
  return out;
}
