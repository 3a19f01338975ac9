/**
 * Restoring a failed edit (layer 1, pure; issue 27 §1): a dispatch whose `solved` claim did not
 * hold leaves nothing in the user's tree. Which edits are put back (each handoff of the last work
 * outcome — the primary's and each batch sibling's — whose claim verification refuted, with the
 * files it returned still as it returned them), the custody baseline that results (the restored
 * files' entries go back to the pre-dispatch ones the dispatch carried, so the next dispatch sees
 * no drift), and the record's words for it. The effect lives in src/runtime/edit-restorer.ts.
 */
import type { BaselineEntry } from '../baseline/schema.js';
import { type CycleUpdate, currentCycle } from './context.js';
import { mergeBaseline } from './custody.js';
import { isFalsifyPass } from './falsification.js';
import { baselinePathOf } from './repair-reducers.js';
import type {
  CycleContext,
  EditRestoreInput,
  EditRestoreOutput,
  EditToRestore,
  WorkOutcome,
} from './types.js';

type Returned = WorkOutcome & { kind: 'handoff' };

/** The context a restore decision reads. */
export type RestoreView = Pick<
  CycleContext,
  'lastWork' | 'current' | 'attempts' | 'tracker' | 'baseline' | 'log' | 'targets'
>;

/** The handoffs of the last work outcome with the target each one worked (the primary first). */
function returnedHandoffs(c: Pick<CycleContext, 'lastWork' | 'current'>): [string, Returned][] {
  const w = c.lastWork;
  if (w === null) return [];
  const out: [string, Returned][] = [];
  if (w.kind === 'handoff' && c.current !== null) out.push([c.current.id, w]);
  // a refused primary brings no verification: its siblings' claims were never checked, only
  // downgraded — they are not refuted edits (the primary is restored by its own refusal)
  if (w.kind !== 'handoff') return out;
  for (const sib of w.batch ?? [])
    if (sib.kind === 'handoff' && sib.dispatch !== null) out.push([sib.dispatch.target, sib]);
  return out;
}

/**
 * Why the verification of `target` did not confirm it, read from its verify line
 * (`verify (tier): <target> not confirmed — <why>`); `not verified` when there is none.
 *
 * @example
 * ```ts
 * refutedWhy(['verify (project): T.lean:2 not confirmed — T.lean:2:type mismatch'], 'T.lean:2');
 * // 'T.lean:2:type mismatch'
 * ```
 */
export function refutedWhy(log: readonly string[], target: string): string {
  const head = `: ${target} not confirmed — `;
  for (let i = log.length - 1; i >= 0; i--) {
    const l = log[i] as string;
    const at = l.startsWith('verify ') ? l.indexOf(head) : -1;
    if (at >= 0) return l.slice(at + head.length);
  }
  return 'not verified';
}

const entryOf = (files: readonly BaselineEntry[], path: string) => files.find((e) => e.path === path);

/** The baseline a dispatch carried (the parent's before it ran); none when the record lacks one. */
const preDispatch = (o: Returned | undefined): readonly BaselineEntry[] =>
  (o?.dispatch as { file_baseline?: { files?: readonly BaselineEntry[] } } | null | undefined)?.file_baseline
    ?.files ?? [];

/**
 * The edits to put back before this cycle's checkpoint (pure): for each handoff of the last work
 * outcome that claimed `solved` (a falsify pass's `solved` claims no target) and whose target's
 * latest attempt of this cycle verification downgraded, the files it returned that still hold what
 * it returned (the custody baseline's entry is its returned one: no later repair or deep pass
 * changed them) and that its dispatch's pre-dispatch baseline covers. Empty when nothing failed.
 *
 * @example
 * ```ts
 * editsToRestore(ctx); // [{ target: 'A.lean:2', files: ['/p/A.lean'], reason: "the claim 'solved' did not hold — A.lean:2 still open" }]
 * ```
 */
export function editsToRestore(c: RestoreView): readonly EditToRestore[] {
  const cycle = currentCycle(c);
  const edits: EditToRestore[] = [];
  for (const [id, o] of returnedHandoffs(c)) {
    if (o.handoff.status !== 'solved' || isFalsifyPass(o)) continue;
    const last = (c.attempts[id] ?? []).filter((a) => a.cycle === cycle).at(-1);
    if (last === undefined || last.solved) continue;
    const before = preDispatch(o);
    const files = [...new Set(o.accepted.map((f) => baselinePathOf(f, c.baseline)))].filter((p) => {
      const now = entryOf(c.baseline.files, p);
      const returned = entryOf(o.baseline.files, p);
      return (
        entryOf(before, p) !== undefined &&
        now !== undefined &&
        returned !== undefined &&
        now.sha256 === returned.sha256 &&
        now.exists === returned.exists
      );
    });
    if (files.length === 0) continue;
    edits.push({ target: id, files, reason: `the claim 'solved' did not hold — ${refutedWhy(c.log, id)}` });
  }
  return edits;
}

/**
 * Whether the cycle puts a failed edit back before its checkpoint: the host provides the edit
 * restorer (`available.restore`) and {@link editsToRestore} names at least one edit.
 *
 * @example
 * ```ts
 * editRestoreDue({ ...ctx, available: { deep: false, repair: false, restore: true } }); // true after a refuted claim
 * ```
 */
export function editRestoreDue(c: RestoreView & Pick<CycleContext, 'available'>): boolean {
  return c.available.restore === true && editsToRestore(c).length > 0;
}

/**
 * The edit restorer's input: this cycle's number and the edits to put back.
 *
 * @example
 * ```ts
 * editRestoreInput(ctx).edits[0]?.files; // ['/p/A.lean']
 * ```
 */
export function editRestoreInput(c: RestoreView): EditRestoreInput {
  return { cycle: currentCycle(c), edits: editsToRestore(c) };
}

/** `file` as the target names it (`A.lean` for `/p/A.lean` of target `A.lean:2`), else as given. */
function shown(file: string, target: string): string {
  const rel = target.replace(/:\d+$/, '');
  return file === rel || file.endsWith(`/${rel}`) ? rel : file;
}

/**
 * Absorbs the edit restorer's answer (pure): each restored file's custody baseline entry goes back
 * to its dispatch's pre-dispatch one (the disk holds those bytes again, so the next dispatch sees
 * no drift) and leaves this cycle's accepted files (a batch's siblings that held keep theirs); each
 * edit is said in words in the log and in `restoredEdits` (the final record's failed avenues):
 * `restored A.lean: the claim 'solved' did not hold — …`, or `could not restore …` with the
 * reason (that edit keeps its returned baseline and is not committed: its claim was refuted).
 *
 * @example
 * ```ts
 * absorbEditRestore(ctx, { now: 1, restored: ['/p/A.lean'], failed: [], detail: null }).restoredEdits;
 * // ["restored A.lean: the claim 'solved' did not hold — A.lean:2 still open"]
 * ```
 */
export function absorbEditRestore(
  c: RestoreView & Pick<CycleContext, 'now' | 'accepted' | 'restoredEdits'>,
  out: EditRestoreOutput,
): CycleUpdate {
  const edits = editsToRestore(c);
  const back: BaselineEntry[] = [];
  const lines: string[] = [];
  const dispatchOf = new Map(returnedHandoffs(c));
  for (const e of edits) {
    const before = preDispatch(dispatchOf.get(e.target));
    const done = e.files.filter((f) => out.restored.includes(f));
    for (const f of done) {
      const entry = entryOf(before, f);
      if (entry !== undefined) back.push(entry);
    }
    if (done.length > 0)
      lines.push(`restored ${done.map((f) => shown(f, e.target)).join(', ')}: ${e.reason}`);
    const failed = e.files.filter((f) => !out.restored.includes(f));
    if (failed.length > 0)
      lines.push(
        `could not restore ${failed.map((f) => shown(f, e.target)).join(', ')} (${e.reason}): ${out.detail ?? 'not restored'}`,
      );
  }
  const restored = new Set(back.map((b) => b.path));
  return {
    now: Math.max(c.now, out.now),
    baseline: mergeBaseline(c.baseline, { schema: c.baseline.schema, files: back }),
    accepted: c.accepted.filter((f) => !restored.has(baselinePathOf(f, c.baseline))),
    restoredEdits: [...c.restoredEdits, ...lines],
    log: [...c.log, ...lines.map((l) => `checkpoint: ${l}`)],
  };
}
