/**
 * Prior-run selection (layer 1, pure): from the validated prefix of a prior run, the last
 * dispatch (else the manifest's, cited `#manifest`), the latest handoff (finality unknown), the
 * per-path merged baseline in journal order with origin cites, the carried blocker/stop fields,
 * and the historical evidence (plan, next steps, failed approaches, unverified candidates,
 * reviews with disposition unknown, notes, Lean snippets) — each item with its original cite.
 * A prior source-note written by this helper is recognized and flattened, never nested as text.
 */
import type { BaselineEntry } from '../baseline/schema.js';
import { canonicalJson, canonicalJsonUtf8, sha256Hex } from '../canonical/index.js';
import type { Dispatch } from '../contract/dispatch-schema.js';
import type { Handoff } from '../contract/handoff-schema.js';
import { validateDispatch, validateHandoff } from '../contract/validate.js';
import { formatCite } from '../store/cite.js';
import { NotePayloadSchema, ReplanSummarySchema, ReviewRecordSchema } from '../store/schema.js';
import type { RunLoad } from '../store/store.js';
import { safeValidate } from '../validation/index.js';
import {
  type Carry,
  type Historical,
  type InheritedLink,
  parseSourceNote,
  type SourceItem,
} from './source-note.js';

/** The selected records of a prior run. */
export interface PriorSelection {
  readonly prior_run: string;
  readonly observed_seq: number;
  readonly prefix_digest: string;
  readonly dispatch: Dispatch;
  readonly dispatch_cite: string;
  readonly handoff: Handoff | null;
  readonly handoff_cite: string | null;
  /** Merged baseline: per path the newest entry and its origin cite, in first-seen path order. */
  readonly merged: ReadonlyMap<string, { readonly entry: BaselineEntry; readonly origin: string }>;
  readonly carry: Carry;
  readonly historical: Historical;
}

/**
 * Digest of the observed prefix: sha256 of `{ run_id, manifest, events }` serialized as the
 * reference's `run_reuse` does (sorted keys, compact, non-ASCII raw: {@link canonicalJsonUtf8}), so
 * both implementations compute the same digest for a run with non-ASCII text.
 *
 * @example
 * ```ts
 * prefixDigest(load) === report.prefix_digest; // else prior_run_changed
 * ```
 */
export function prefixDigest(load: Pick<RunLoad, 'run_id' | 'manifest' | 'events'>): string {
  return sha256Hex(canonicalJsonUtf8({ run_id: load.run_id, manifest: load.manifest, events: load.events }));
}

function dedupe<T>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((x) => {
    const k = canonicalJson(x);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * Selects the records and evidence of a loaded prior run (its validated prefix only).
 *
 * @example
 * ```ts
 * const sel = selectPrior(load);
 * sel.carry.prior_blocker; // the selected handoff's blocker_signature, or null
 * ```
 */
export function selectPrior(load: RunLoad): PriorSelection {
  const id = load.run_id;
  const cite = (seq: number | 'manifest') => formatCite(id, seq);
  let dispatch: Dispatch = load.manifest.dispatch;
  let dispatchCite = cite('manifest');
  let handoff: Handoff | null = null;
  let handoffCite: string | null = null;
  const merged = new Map<string, { entry: BaselineEntry; origin: string }>();
  const mergeFrom = (files: readonly BaselineEntry[], origin: string) => {
    for (const f of files) merged.set(f.path, { entry: f, origin });
  };
  mergeFrom(load.manifest.dispatch.file_baseline.files, dispatchCite);

  const failed: SourceItem[] = [];
  const candidates: SourceItem[] = [];
  const reviews: SourceItem[] = [];
  const notes: SourceItem[] = [];
  const snippets: SourceItem[] = [];
  const inherited: InheritedLink[] = [];
  let plan: { text: string; cite: string } | null = null;
  let nextSteps: { steps: string[]; cite: string } | null = null;
  let replanBlockers: { blockers: unknown[]; cite: string } | null = null;

  for (const ev of load.events) {
    const c = cite(ev.seq);
    if (ev.kind === 'dispatch') {
      const d = validateDispatch(ev.payload);
      if (d.ok) {
        dispatch = d.value;
        dispatchCite = c;
        mergeFrom(d.value.file_baseline.files, c);
      }
    } else if (ev.kind === 'handoff') {
      const h = validateHandoff(ev.payload);
      if (h.ok) {
        handoff = h.value;
        handoffCite = c;
        if (h.value.file_baseline !== null) mergeFrom(h.value.file_baseline.files, c);
        for (const a of h.value.failed_avenues) failed.push({ text: a, cite: c, source: 'handoff' });
        for (const b of h.value.best_candidates) {
          candidates.push({ candidate: b.candidate, outcome: b.outcome, cite: c, verified: false });
        }
      }
    } else if (ev.kind === 'note') {
      const n = safeValidate(NotePayloadSchema, ev.payload);
      if (!n.ok) continue;
      const sn = n.value.kind === 'source-note' ? parseSourceNote(n.value.text) : null;
      if (sn !== null) {
        // helper-generated source-note: inherit structured evidence, flat
        inherited.push({
          prior_run: sn.prior_run,
          via: c,
          dispatch_cite: sn.dispatch_cite,
          handoff_cite: sn.handoff_cite,
          plan: sn.historical.plan,
          next_steps: sn.historical.next_steps,
          carry: sn.carry,
        });
        inherited.push(...sn.historical.inherited);
        const mark = (x: SourceItem): SourceItem => ({ ...x, inherited_via: x.inherited_via ?? c });
        failed.push(...sn.historical.failed_avenues.map(mark));
        candidates.push(...sn.historical.candidates.map(mark));
        reviews.push(...sn.historical.reviews.map(mark));
        notes.push(...sn.historical.notes.map(mark));
        snippets.push(...sn.historical.snippets.map(mark));
        continue;
      }
      notes.push({ kind: n.value.kind, text: n.value.text, cite: c });
      if (n.value.kind === 'failed-avenue') failed.push({ text: n.value.text, cite: c, source: 'note' });
      if (n.value.lean !== null) snippets.push({ lean: n.value.lean, cite: c, verified: false });
    } else if (ev.kind === 'replan') {
      const r = safeValidate(ReplanSummarySchema, ev.payload);
      if (!r.ok) continue;
      plan = { text: r.value.plan, cite: c };
      nextSteps = { steps: r.value.next_steps, cite: c };
      replanBlockers = { blockers: r.value.blockers, cite: c };
      for (const a of r.value.failed_approaches) failed.push({ text: a, cite: c, source: 'replan' });
    } else if (ev.kind === 'review') {
      const r = safeValidate(ReviewRecordSchema, ev.payload);
      if (!r.ok || r.value.status !== 'completed') continue;
      reviews.push({
        cite: c,
        mode: r.value.mode,
        target: r.value.target,
        output: r.value.output,
        triage: r.value.triage,
        mapped_handoff: r.value.mapped_handoff ?? null,
        disposition: 'unknown',
      });
    }
  }
  const hd: Handoff | null = handoff;
  const carry: Carry = {
    prior_blocker: hd?.blocker_signature ?? null,
    blocker_kind: hd?.blocker_kind ?? null,
    blocker_class: hd?.blocker_class ?? null,
    status: hd?.status ?? null,
    stop_reason: hd?.stop_reason ?? null,
    stop_detail: hd?.stop_detail ?? null,
    new_evidence_required_for_rerun: hd?.new_evidence_required_for_rerun ?? null,
    replan_blockers: replanBlockers,
  };
  return {
    prior_run: id,
    observed_seq: load.events.length,
    prefix_digest: prefixDigest(load),
    dispatch,
    dispatch_cite: dispatchCite,
    handoff: hd,
    handoff_cite: handoffCite,
    merged,
    carry,
    historical: {
      plan,
      next_steps: nextSteps,
      failed_avenues: dedupe(failed),
      candidates: dedupe(candidates),
      reviews: dedupe(reviews),
      notes: dedupe(notes),
      snippets: dedupe(snippets),
      inherited: dedupe(inherited),
    },
  };
}

/**
 * The merged baseline's origins: per path, the cite of the record its entry came from.
 *
 * @example
 * ```ts
 * baselineOrigins(sel); // [{ path: '/p/A.lean', origin: 'R#3' }]
 * ```
 */
export function baselineOrigins(sel: Pick<PriorSelection, 'merged'>): { path: string; origin: string }[] {
  return [...sel.merged].map(([path, v]) => ({ path, origin: v.origin }));
}
