/**
 * Restoring a failed edit (layer 1, pure; issue 27 §1): a dispatch whose `solved` claim did not
 * hold leaves nothing in the user's tree. Which edits are put back (each handoff of the last work
 * outcome — the primary's and each batch sibling's — whose claim verification refuted, with the
 * files it returned still as it returned them; and each `solved` sibling of a batch whose primary
 * was refused, which no verification follows), when (before the checkpoint, or on the way to
 * `stopped` when the run stops before it: a refuted edit waits in `refutedEdits` until one of the
 * two), the custody baseline that results (the restored files' entries go back to the
 * pre-dispatch ones the dispatch carried, so the next dispatch sees no drift), and the record's
 * words for it. The effect lives in src/runtime/edit-restorer.ts.
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
  RefutedEdit,
  WorkOutcome,
} from './types.js';

type Returned = WorkOutcome & { kind: 'handoff' };

/** The context a restore decision reads. */
export type RestoreView = Pick<
  CycleContext,
  'lastWork' | 'current' | 'attempts' | 'tracker' | 'baseline' | 'log' | 'targets' | 'refutedEdits'
>;

/** The handoffs of the last work outcome with the target each one worked (the primary first). */
function returnedHandoffs(c: Pick<CycleContext, 'lastWork' | 'current'>): [string, Returned][] {
  const w = c.lastWork;
  if (w === null) return [];
  const out: [string, Returned][] = [];
  if (w.kind === 'handoff' && c.current !== null) out.push([c.current.id, w]);
  // a refused primary brings no verification: its siblings' claims are recorded as refuted when
  // the refusal is absorbed (refusedBatchEdits; the primary is restored by its own refusal)
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

const sameEntry = (a: BaselineEntry | undefined, b: BaselineEntry | undefined) =>
  a !== undefined && b !== undefined && a.sha256 === b.sha256 && a.exists === b.exists;

/**
 * The refuted edits of the last work outcome (pure): for each handoff that claimed `solved` (a
 * falsify pass's `solved` claims no target) and whose target's latest attempt of this cycle
 * verification downgraded, the files it returned that still hold what it returned (the custody
 * baseline's entry is its returned one: no later repair or deep pass changed them) and that its
 * dispatch's pre-dispatch baseline covers.
 */
function lastWorkRefuted(c: RestoreView): RefutedEdit[] {
  const cycle = currentCycle(c);
  const edits: RefutedEdit[] = [];
  for (const [id, o] of returnedHandoffs(c)) {
    if (o.handoff.status !== 'solved' || isFalsifyPass(o)) continue;
    const last = (c.attempts[id] ?? []).filter((a) => a.cycle === cycle).at(-1);
    if (last === undefined || last.solved) continue;
    const edit = refutedEdit(c, id, o, `the claim 'solved' did not hold — ${refutedWhy(c.log, id)}`);
    if (edit !== null) edits.push(edit);
  }
  return edits;
}

/** The refuted edit of handoff `o` for target `id`: its returned files still held and covered. */
function refutedEdit(
  c: Pick<CycleContext, 'baseline'>,
  id: string,
  o: Returned,
  reason: string,
): RefutedEdit | null {
  const pre = preDispatch(o);
  const files = [...new Set(o.accepted.map((f) => baselinePathOf(f, c.baseline)))].filter((p) => {
    const returned = entryOf(o.baseline.files, p);
    return entryOf(pre, p) !== undefined && sameEntry(entryOf(c.baseline.files, p), returned);
  });
  if (files.length === 0) return null;
  const pick = (es: readonly BaselineEntry[]) => files.flatMap((f) => entryOf(es, f) ?? []);
  return { target: id, files, reason, before: pick(pre), returned: pick(o.baseline.files) };
}

/** `edits` with each file kept in its first edit only (the earliest pre-dispatch bytes win). */
function firstPerFile(edits: readonly RefutedEdit[]): RefutedEdit[] {
  const seen = new Set<string>();
  const out: RefutedEdit[] = [];
  for (const e of edits) {
    const files = e.files.filter((f) => !seen.has(f));
    for (const f of files) seen.add(f);
    if (files.length === 0) continue;
    const keep = (es: readonly BaselineEntry[]) => es.filter((x) => files.includes(x.path));
    out.push({ ...e, files, before: keep(e.before), returned: keep(e.returned) });
  }
  return out;
}

/** A refuted edit as the restorer's input: each file with the pre-dispatch state it goes back to. */
function asEditToRestore(e: RefutedEdit): EditToRestore {
  const to: Record<string, string | null> = {};
  for (const f of e.files) {
    const b = entryOf(e.before, f);
    if (b !== undefined) to[f] = b.exists ? (b.sha256 ?? null) : null;
  }
  return { target: e.target, files: e.files, reason: e.reason, to };
}

/**
 * Records the refuted edits of the last work outcome once its verification is absorbed (pure): they
 * wait in `refutedEdits` until the checkpoint puts them back, or until the run stops before it
 * (then they are put back on the way to `stopped`).
 *
 * @example
 * ```ts
 * noteRefutedEdits(ctx).refutedEdits?.[0]?.files; // ['/p/A.lean'] after a refuted claim
 * ```
 */
export function noteRefutedEdits(c: RestoreView): CycleUpdate {
  const fresh = lastWorkRefuted(c);
  if (fresh.length === 0) return {};
  return { refutedEdits: firstPerFile([...(c.refutedEdits ?? []), ...fresh]) };
}

/**
 * The refuted edits of a batch whose primary was refused (pure; `fence-violation`,
 * `permission-denied`): no verification follows a refusal, so each sibling's `solved` claim is
 * unverified — counted as refuted, its returned files go back like any refuted edit's.
 *
 * @example
 * ```ts
 * refusedBatchEdits(ctx, fenceRefusalWithSiblings)[0]?.reason;
 * // "the claim 'solved' was not verified — the batch's primary A.lean:2 was refused (fence-violation)"
 * ```
 */
export function refusedBatchEdits(
  c: Pick<CycleContext, 'baseline' | 'current'>,
  out: WorkOutcome,
): RefutedEdit[] {
  if (out.kind === 'handoff') return [];
  const primary = c.current === null ? 'primary' : `primary ${c.current.id}`;
  const why = `the claim 'solved' was not verified — the batch's ${primary} was refused (${out.kind})`;
  const edits: RefutedEdit[] = [];
  for (const sib of out.batch ?? []) {
    if (sib.kind !== 'handoff' || sib.dispatch === null) continue;
    if (sib.handoff.status !== 'solved' || isFalsifyPass(sib)) continue;
    const e = refutedEdit(c, sib.dispatch.target, sib, why);
    if (e !== null) edits.push(e);
  }
  return edits;
}

/** The refuted edits the checkpoint puts back: the waiting ones whose files still hold what was returned, then the last outcome's. */
function checkpointRefuted(c: RestoreView): RefutedEdit[] {
  const waiting = (c.refutedEdits ?? []).flatMap((e) => {
    const files = e.files.filter((f) => sameEntry(entryOf(c.baseline.files, f), entryOf(e.returned, f)));
    return files.length === 0 ? [] : [{ ...e, files }];
  });
  return firstPerFile([...waiting, ...lastWorkRefuted(c)]);
}

/**
 * The edits to put back before this cycle's checkpoint (pure): the refuted edits recorded this
 * cycle ({@link noteRefutedEdits}, {@link refusedBatchEdits}) and those of the last work outcome —
 * each handoff that claimed `solved` and whose latest attempt verification downgraded — with the
 * files that still hold what the worker returned (no later verified deep or repair pass changed
 * them) and that the dispatch's pre-dispatch baseline covers; a file in two edits goes back once,
 * to the earlier dispatch's bytes. Empty when nothing failed.
 *
 * @example
 * ```ts
 * editsToRestore(ctx); // [{ target: 'A.lean:2', files: ['/p/A.lean'], reason: "the claim 'solved' did not hold — A.lean:2 still open", to: { '/p/A.lean': 'b…' } }]
 * ```
 */
export function editsToRestore(c: RestoreView): readonly EditToRestore[] {
  return checkpointRefuted(c).map(asEditToRestore);
}

/** The refuted edits a stop puts back: every waiting one whose files are not back already. */
function stopRefuted(c: RestoreView): RefutedEdit[] {
  return firstPerFile(c.refutedEdits ?? []).flatMap((e) => {
    const files = e.files.filter((f) => !sameEntry(entryOf(c.baseline.files, f), entryOf(e.before, f)));
    return files.length === 0 ? [] : [{ ...e, files }];
  });
}

/**
 * The edits a run that stops before this cycle's checkpoint puts back (pure): every refuted edit
 * still waiting, whatever a later pass of the cycle (a repair patch, a deep pass) wrote over it —
 * none of it was verified — to its dispatch's pre-dispatch bytes.
 *
 * @example
 * ```ts
 * stopEditsToRestore(ctx)[0]?.files; // ['/p/A.lean'] after a refuted claim and a repair worker's protocol error
 * ```
 */
export function stopEditsToRestore(c: RestoreView): readonly EditToRestore[] {
  return stopRefuted(c).map(asEditToRestore);
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
 * Whether a run heading for `stopped` first puts back a refuted edit of this cycle: the host
 * provides the edit restorer and {@link stopEditsToRestore} names at least one edit.
 *
 * @example
 * ```ts
 * stopRestoreDue(ctx); // true after a refuted claim and a stop before the checkpoint
 * ```
 */
export function stopRestoreDue(c: RestoreView & Pick<CycleContext, 'available'>): boolean {
  return c.available.restore === true && stopEditsToRestore(c).length > 0;
}

/**
 * The edit restorer's input before the checkpoint: this cycle's number and the edits to put back.
 *
 * @example
 * ```ts
 * editRestoreInput(ctx).edits[0]?.files; // ['/p/A.lean']
 * ```
 */
export function editRestoreInput(c: RestoreView): EditRestoreInput {
  return { cycle: currentCycle(c), edits: editsToRestore(c) };
}

/**
 * The edit restorer's input on the way to `stopped`: this cycle's number and the edits to put back.
 *
 * @example
 * ```ts
 * stopRestoreInput(ctx).edits[0]?.to; // { '/p/A.lean': '<pre-dispatch sha256>' }
 * ```
 */
export function stopRestoreInput(c: RestoreView): EditRestoreInput {
  return { cycle: currentCycle(c), edits: stopEditsToRestore(c) };
}

/** `file` as the target names it (`A.lean` for `/p/A.lean` of target `A.lean:2`), else as given. */
function shown(file: string, target: string): string {
  const rel = target.replace(/:\d+$/, '');
  return file === rel || file.endsWith(`/${rel}`) ? rel : file;
}

type AbsorbView = RestoreView & Pick<CycleContext, 'now' | 'accepted' | 'restoredEdits'>;

/** Absorbs a restorer's answer for `edits`; `phase` leads the log lines (`checkpoint`, `stop`). */
function absorbRestore(
  c: AbsorbView,
  edits: readonly RefutedEdit[],
  out: EditRestoreOutput,
  phase: string,
): CycleUpdate {
  const back: BaselineEntry[] = [];
  const lines: string[] = [];
  for (const e of edits) {
    const done = e.files.filter((f) => out.restored.includes(f));
    for (const f of done) {
      const entry = entryOf(e.before, f);
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
    refutedEdits: [],
    log: [...c.log, ...lines.map((l) => `${phase}: ${l}`)],
  };
}

/**
 * Absorbs the edit restorer's answer before the checkpoint (pure): each restored file's custody
 * baseline entry goes back to its dispatch's pre-dispatch one (the disk holds those bytes again, so
 * the next dispatch sees no drift) and leaves this cycle's accepted files (a batch's siblings that
 * held keep theirs); each edit is said in words in the log and in `restoredEdits` (the final
 * record's failed avenues): `restored A.lean: the claim 'solved' did not hold — …`, or `could not
 * restore …` with the reason (that edit keeps its returned baseline and is not committed: its
 * claim was refuted). No refuted edit waits after it.
 *
 * @example
 * ```ts
 * absorbEditRestore(ctx, { now: 1, restored: ['/p/A.lean'], failed: [], detail: null }).restoredEdits;
 * // ["restored A.lean: the claim 'solved' did not hold — A.lean:2 still open"]
 * ```
 */
export function absorbEditRestore(c: AbsorbView, out: EditRestoreOutput): CycleUpdate {
  return absorbRestore(c, checkpointRefuted(c), out, 'checkpoint');
}

/**
 * Absorbs the edit restorer's answer on the way to `stopped` (pure): as {@link absorbEditRestore}
 * for the edits of {@link stopEditsToRestore}; the final record names each edit restored or not.
 *
 * @example
 * ```ts
 * absorbStopRestore(ctx, { now: 1, restored: ['/p/A.lean'], failed: [], detail: null }).log?.at(-1);
 * // "stop: restored A.lean: the claim 'solved' did not hold — …"
 * ```
 */
export function absorbStopRestore(c: AbsorbView, out: EditRestoreOutput): CycleUpdate {
  return absorbRestore(c, stopRefuted(c), out, 'stop');
}

/**
 * The edit restorer failed on the way to `stopped` (pure): every waiting edit is named as not
 * restored, with the error, in the final record.
 *
 * @example
 * ```ts
 * stopRestoreFailed(ctx, new Error('EIO')).restoredEdits?.at(-1);
 * // "could not restore A.lean (the claim 'solved' did not hold — …): the edit restorer failed: Error: EIO"
 * ```
 */
export function stopRestoreFailed(c: AbsorbView, error: unknown): CycleUpdate {
  const detail = `the edit restorer failed: ${String(error ?? 'unknown error')}`;
  return absorbRestore(c, stopRefuted(c), { now: c.now, restored: [], failed: [], detail }, 'stop');
}

/**
 * Forgets the refuted edits of this cycle (pure): the checkpoint found none of their files still
 * holding what was returned (a later verified pass owns those bytes now), or no restorer exists.
 *
 * @example
 * ```ts
 * dropRefutedEdits(); // { refutedEdits: [] }
 * ```
 */
export function dropRefutedEdits(): CycleUpdate {
  return { refutedEdits: [] };
}
