/**
 * Parent knowledge (layer 1, pure): the current task identity, custody and accumulated evidence
 * the controller knows of — from persisted dispatches, worker handoffs, notes and progress
 * reports, and from validated submissions whose journal write failed (folded once). It is what
 * the operational-error handoff on a stop describes, so a stop never reports "no changes" for a
 * run that made some. Every list has set semantics (strings by value; candidates, attempts and
 * artifacts by exact typed-item equality), so repeated reports are never double-counted.
 */
import { z } from 'zod';
import { type FileBaseline, FileBaselineSchema } from '../baseline/schema.js';
import { canonicalJson } from '../canonical/index.js';
import type { Dispatch } from '../contract/dispatch-schema.js';
import { ModeSchema, RUN_CONTRACT_SCHEMA, ScopeSchema } from '../contract/enums.js';
import {
  ArtifactSchema,
  CandidateSchema,
  type Handoff,
  HandoffEvidenceSchema,
} from '../contract/handoff-schema.js';
import { protocolErrorHandoff } from '../contract/protocol-error.js';
import { validateHandoff } from '../contract/validate.js';

/** The task identity and custody the controller currently holds. */
export const CurrentTaskSchema = z.strictObject({
  target: z.string(),
  scope: ScopeSchema,
  mode: ModeSchema,
  files_owned: z.array(z.string()),
  file_baseline: FileBaselineSchema,
});
/** Current task identity and custody. */
export type CurrentTask = z.infer<typeof CurrentTaskSchema>;

/** Accumulated evidence and effects (set semantics per list). */
export const AccumulatedSchema = z.strictObject({
  files_changed: z.array(z.string()),
  attempted_tools: z.array(z.string()),
  best_candidates: z.array(CandidateSchema),
  failed_avenues: z.array(z.string()),
  evidence: HandoffEvidenceSchema,
  artifacts: z.array(ArtifactSchema),
});
/** Accumulated knowledge. */
export type Accumulated = z.infer<typeof AccumulatedSchema>;

/** Parent knowledge: current task plus accumulated evidence. */
export const KnowledgeSchema = z.strictObject({
  current: CurrentTaskSchema,
  accumulated: AccumulatedSchema,
});
/** Parent knowledge. */
export type Knowledge = z.infer<typeof KnowledgeSchema>;

/** A partial evidence block as absorbed from handoffs and progress reports. */
export interface EvidencePart {
  readonly queries?: readonly string[] | undefined;
  readonly top_candidates?: readonly string[] | undefined;
  readonly attempts?: readonly { snippet: string; result: string }[] | undefined;
  readonly goal_delta?: string | null | undefined;
  readonly diagnostic_delta?: string | null | undefined;
}

/** Fields a handoff or a progress report contributes to knowledge. */
export interface KnowledgePart {
  readonly files_changed?: readonly string[];
  readonly file_baseline?: FileBaseline | null;
  readonly attempted_tools?: readonly string[];
  readonly best_candidates?: readonly { candidate: string; outcome: string }[];
  readonly failed_avenues?: readonly string[];
  readonly artifacts?: readonly { kind: string; content: string }[];
  readonly evidence?: EvidencePart;
}

/**
 * Union of two lists by exact (canonical JSON) equality, keeping first-seen order.
 *
 * @example
 * ```ts
 * unionBy([{ a: 1 }], [{ a: 1 }, { a: 2 }]); // [{ a: 1 }, { a: 2 }]
 * ```
 */
export function unionBy<T>(a: readonly T[], b: readonly T[]): T[] {
  // A list this function made carries its key set; the set moves to the new list (the old list
  // is a superseded value), so a long run pays for the new items only, not for the whole list.
  const carried = UNION_KEYS.get(a);
  if (carried !== undefined) UNION_KEYS.delete(a);
  const seen = carried ?? new Set<string>();
  const out: T[] = carried === undefined ? [] : [...a];
  for (const x of carried === undefined ? [...a, ...b] : b) {
    const k = canonicalJson(x);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(x);
    }
  }
  UNION_KEYS.set(out, seen);
  return out;
}

/** The canonical keys of each list {@link unionBy} returned (held weakly, moved on each union). */
const UNION_KEYS = new WeakMap<readonly unknown[], Set<string>>();

/**
 * Nothing accumulated yet: every list empty, both deltas null.
 *
 * @example
 * ```ts
 * emptyAccumulated().files_changed; // []
 * ```
 */
export function emptyAccumulated(): Accumulated {
  return {
    files_changed: [],
    attempted_tools: [],
    best_candidates: [],
    failed_avenues: [],
    evidence: { queries: [], top_candidates: [], attempts: [], goal_delta: null, diagnostic_delta: null },
    artifacts: [],
  };
}

/**
 * Knowledge at the start of a run: the first dispatch's identity and baseline, nothing accumulated.
 *
 * @example
 * ```ts
 * const k = knowledgeFromDispatch(dispatch);
 * ```
 */
export function knowledgeFromDispatch(d: Dispatch): Knowledge {
  return {
    current: {
      target: d.target,
      scope: d.scope,
      mode: d.mode,
      files_owned: [...d.owned_files],
      file_baseline: d.file_baseline,
    },
    accumulated: emptyAccumulated(),
  };
}

/**
 * Absorbs a (re)dispatch: it becomes the current task and custody; accumulated evidence stays.
 *
 * @example
 * ```ts
 * k = absorbDispatch(k, redispatch);
 * ```
 */
export function absorbDispatch(k: Knowledge, d: Dispatch): Knowledge {
  return { current: knowledgeFromDispatch(d).current, accumulated: k.accumulated };
}

/**
 * Absorbs a worker handoff, a progress report or a final handoff with set semantics; a non-null
 * baseline replaces the current one (custody advances), non-null deltas replace older ones.
 *
 * @example
 * ```ts
 * k = absorbPart(k, { files_changed: ['/p/A.lean'], file_baseline: advanced });
 * ```
 */
export function absorbPart(k: Knowledge, p: KnowledgePart): Knowledge {
  const a = k.accumulated;
  const e = p.evidence ?? {};
  return {
    current:
      p.file_baseline !== undefined && p.file_baseline !== null
        ? { ...k.current, file_baseline: p.file_baseline }
        : k.current,
    accumulated: {
      files_changed: unionBy(a.files_changed, p.files_changed ?? []),
      attempted_tools: unionBy(a.attempted_tools, p.attempted_tools ?? []),
      best_candidates: unionBy(
        a.best_candidates,
        (p.best_candidates ?? []).map((c) => ({ ...c })),
      ),
      failed_avenues: unionBy(a.failed_avenues, p.failed_avenues ?? []),
      evidence: {
        queries: unionBy(a.evidence.queries, e.queries ?? []),
        top_candidates: unionBy(a.evidence.top_candidates, e.top_candidates ?? []),
        attempts: unionBy(
          a.evidence.attempts,
          (e.attempts ?? []).map((x) => ({ ...x })),
        ),
        goal_delta: e.goal_delta ?? a.evidence.goal_delta,
        diagnostic_delta: e.diagnostic_delta ?? a.evidence.diagnostic_delta,
      },
      artifacts: unionBy(
        a.artifacts,
        (p.artifacts ?? []).map((x) => ({ ...x })),
      ),
    },
  };
}

/**
 * Absorbs a handoff record (worker or final).
 *
 * @example
 * ```ts
 * k = absorbHandoff(k, workerHandoff);
 * ```
 */
export function absorbHandoff(k: Knowledge, h: Handoff): Knowledge {
  return absorbPart(k, h);
}

/**
 * Absorbs a note: a failed-avenue note adds to failed_avenues and a candidate note to
 * evidence.top_candidates — by its citation when the note is committed, by its text otherwise.
 * Other note kinds are journal history only.
 *
 * @example
 * ```ts
 * k = absorbNote(k, { kind: 'failed-avenue', text: 'exact foo: type mismatch', lean: null }, 'R#2');
 * ```
 */
export function absorbNote(
  k: Knowledge,
  note: { kind: string; text: string },
  cite: string | null,
): Knowledge {
  const item = cite ?? note.text;
  if (note.kind === 'failed-avenue') return absorbPart(k, { failed_avenues: [item] });
  if (note.kind === 'candidate') return absorbPart(k, { evidence: { top_candidates: [item] } });
  return k;
}

/**
 * The operational-error handoff describing the work as it stands (next_action stop, null blocker
 * fields). Always a valid run-contract/v1 handoff; if the knowledge cannot make one, a
 * protocol-error handoff with the same detail is returned instead.
 *
 * @example
 * ```ts
 * const h = operationalErrorHandoff(k, 'run-store busy: locked by another mutation');
 * h.stop_reason; // 'operational-error'
 * ```
 */
export function operationalErrorHandoff(k: Knowledge | null, detail: string): Handoff {
  const text = detail.trim() === '' ? 'run persistence stopped' : detail;
  if (k === null) return protocolErrorHandoff(undefined, text);
  const a = k.accumulated;
  const candidate: Handoff = {
    schema: RUN_CONTRACT_SCHEMA,
    record: 'handoff',
    target: k.current.target,
    scope: k.current.scope,
    mode: k.current.mode,
    status: 'stopped',
    stop_reason: 'operational-error',
    stop_detail: text,
    blocker_kind: null,
    blocker_class: null,
    blocker_signature: null,
    attempted_tools: [...a.attempted_tools],
    best_candidates: a.best_candidates.map((c) => ({ ...c })),
    failed_avenues: [...a.failed_avenues],
    evidence: {
      queries: [...a.evidence.queries],
      top_candidates: [...a.evidence.top_candidates],
      attempts: a.evidence.attempts.map((x) => ({ ...x })),
      goal_delta: a.evidence.goal_delta,
      diagnostic_delta: a.evidence.diagnostic_delta,
    },
    files_owned: [...k.current.files_owned],
    files_changed: [...a.files_changed],
    file_baseline: k.current.file_baseline,
    artifacts: a.artifacts.map((x) => ({ ...x })),
    next_action: 'stop',
    new_evidence_required_for_rerun: null,
  };
  const r = validateHandoff(candidate);
  if (r.ok) return r.value;
  return protocolErrorHandoff(
    { target: k.current.target, scope: k.current.scope, mode: k.current.mode },
    `${text} (knowledge could not form a valid operational-error handoff)`,
  );
}
