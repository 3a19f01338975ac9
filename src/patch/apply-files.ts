/**
 * Applying an untrusted worker's unified diff under custody (layer 3, effects): the parent side of
 * seed 002's patch-only repair worker. Parse and scope check first; then the file baseline of
 * every touched file is checked immediately before anything is applied (drift: `stale`, nothing
 * written — the baseline is never re-recorded to make the patch fit); the patch is applied to
 * every file in memory, exactly (any failing hunk: `refused`, nothing written); the files are
 * published atomically (temp + fsync + rename, src/durable); and the baseline is advanced for
 * exactly the files whose bytes changed, every other entry carried forward.
 */
import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { advanceBaseline, checkBaseline, type FileBaseline, FileBaselineSchema } from '../baseline/index.js';
import { sha256Hex } from '../canonical/index.js';
import { type FsLayer, fsyncDir, nodeFsLayer, publishFile, readFileNoFollow } from '../durable/index.js';
import { HandoffError } from '../errors/index.js';
import { applyFilePatch } from './apply.js';
import { type ParsePatchOptions, parsePatch } from './parse.js';
import { describePatchError, escapeControls } from './patch-error.js';
import { patchTargets } from './targets.js';

/**
 * Input of {@link applyPatchUnderCustody}.
 *
 * @example
 * ```ts
 * const o: PatchUnderCustody = { projectRoot: '/repo', patch: diff, allowed: ['A.lean'], baseline };
 * ```
 */
export interface PatchUnderCustody {
  /** Absolute project root; patch paths are relative to it. */
  readonly projectRoot: string;
  /** The unified diff (the worker's `unified-diff` artifact). */
  readonly patch: string;
  /** Project-relative files the patch may touch (the repair dispatch's owned files). */
  readonly allowed: readonly string[];
  /** The custody baseline the parent holds; it must cover every touched file. */
  readonly baseline: FileBaseline;
  /** Parse options: creation/deletion (default refused) and size limits. */
  readonly parse?: ParsePatchOptions;
  /** File-system layer for the writes (fault injection in tests). Default the real one. */
  readonly fs?: FsLayer;
  /**
   * A last judgement of the patched texts before anything is written (e.g. the statement fence:
   * a changed declaration header): a string refuses the patch with that detail, null lets it
   * through. Called only when some bytes change.
   */
  readonly vet?: (files: readonly PatchedFile[]) => string | null | Promise<string | null>;
}

/**
 * One file as a patch would leave it, handed to {@link PatchUnderCustody.vet}: its
 * project-relative path, what it does, and the text before and after (`''` for an absent file).
 *
 * @example
 * ```ts
 * const f: PatchedFile = { path: 'A.lean', kind: 'modify', before: 'sorry\n', after: 'rfl\n' };
 * ```
 */
export interface PatchedFile {
  readonly path: string;
  readonly kind: 'modify' | 'create' | 'delete';
  readonly before: string;
  readonly after: string;
}

/**
 * What {@link applyPatchUnderCustody} resolves to: `applied` (the project-relative files whose
 * bytes changed, in patch order, and the advanced baseline); `stale` (a touched file drifted from
 * the baseline — nothing written); `refused` (the patch is malformed, out of scope, fuzzy, aimed
 * at a symbolic link or at a file outside custody, or the custody check could not run — nothing
 * written). Every `detail` is terminal-safe.
 *
 * @example
 * ```ts
 * const r: PatchUnderCustodyResult = { kind: 'stale', detail: 'A.lean modified' };
 * ```
 */
export type PatchUnderCustodyResult =
  | { readonly kind: 'applied'; readonly changed: string[]; readonly baseline: FileBaseline }
  | { readonly kind: 'stale' | 'refused'; readonly detail: string };

const refused = (detail: string): PatchUnderCustodyResult => ({
  kind: 'refused',
  detail: escapeControls(detail),
});
const stale = (detail: string): PatchUnderCustodyResult => ({
  kind: 'stale',
  detail: escapeControls(detail),
});
const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

interface Planned {
  readonly rel: string;
  readonly abs: string;
  readonly kind: 'modify' | 'create' | 'delete';
  readonly mode: number;
  readonly before: string;
  readonly after: string;
}

/** The folder chain of `rel` must be the project's own folders, not links out of it. */
async function locationIssue(realRoot: string, rel: string, abs: string): Promise<string | null> {
  const dir = await realpath(dirname(abs)).catch(() => null);
  if (dir === null) return `${rel}: its folder does not exist`;
  if (dir !== join(realRoot, dirname(rel))) return `${rel}: a folder on its path is a symbolic link`;
  const st = await lstat(abs).catch(() => null);
  if (st?.isSymbolicLink()) return `${rel}: the target is a symbolic link`;
  if (st !== null && !st.isFile()) return `${rel}: the target is not a regular file`;
  return null;
}

/** Null when custody matches for `abs`, else the result to return. */
async function custodyIssue(
  baseline: FileBaseline,
  abs: readonly string[],
  root: string,
): Promise<PatchUnderCustodyResult | null> {
  let check: Awaited<ReturnType<typeof checkBaseline>>;
  try {
    check = await checkBaseline(baseline, { only: [...abs], cwd: root });
  } catch (e) {
    return refused(`cannot check custody: ${messageOf(e)}`);
  }
  if (check.result === 'match') return null;
  const bad = check.entries.filter((e) => e.status !== 'unchanged');
  const list = bad
    .map((e) => `${relative(root, e.path)} ${e.status}${e.detail ? ` (${e.detail})` : ''}`)
    .join('; ');
  if (check.result === 'error') return refused(`cannot check custody: ${list}; nothing written`);
  return stale(
    `stale baseline: ${list}; nothing written — the baseline is not re-recorded (rerun, serialize, or isolate in a worktree)`,
  );
}

function relative(root: string, abs: string): string {
  return abs.startsWith(`${root}/`) ? abs.slice(root.length + 1) : abs;
}

/**
 * Applies `patch` to the project under custody, in this order: parse and scope check
 * ({@link parsePatch}, {@link patchTargets}; `refused`); every touched file must have a baseline
 * entry and must not be (or sit below) a symbolic link (`refused`); the baseline check of the
 * touched files (`stale` on drift, `refused` when it cannot run); each file read without following
 * links and its bytes compared with the baseline's hash (`stale`); every file patched in memory,
 * exactly (`refused` naming the file and hunk); the optional `vet` judgement of the patched
 * texts (`refused` with its detail); a second baseline check immediately before the
 * first write (`stale`); atomic publication of each changed file with its permission bits kept
 * (a deletion unlinks and fsyncs the folder); then the baseline advanced for exactly the changed
 * files. A patch that changes no bytes is `applied` with `changed: []` and the baseline unchanged.
 *
 * @example
 * ```ts
 * const r = await applyPatchUnderCustody({ projectRoot: '/repo', patch: diff, allowed: ['A.lean'], baseline });
 * if (r.kind === 'applied') baseline = r.baseline;
 * ```
 * @throws HandoffError `io_error` only when a write or the advance fails after the custody checks
 * passed (details: `written`, the files already replaced): the chain is no longer trustworthy and
 * the caller must stop before any further mutation.
 */
export async function applyPatchUnderCustody(o: PatchUnderCustody): Promise<PatchUnderCustodyResult> {
  if (typeof o.projectRoot !== 'string' || !isAbsolute(o.projectRoot) || o.projectRoot.includes('\0')) {
    return refused('the project root must be an absolute path');
  }
  const root = resolve(o.projectRoot);
  const parsed = parsePatch(o.patch, o.parse);
  if (!parsed.ok) return refused(`patch refused: ${describePatchError(parsed.error)}`);
  const scoped = patchTargets(parsed.files, o.allowed);
  if (!scoped.ok) return refused(`patch refused: ${describePatchError(scoped.error)}`);
  const valid = FileBaselineSchema.safeParse(o.baseline);
  if (!valid.success)
    return refused(`the custody baseline is malformed: ${valid.error.issues[0]?.message ?? ''}`);
  const entries = new Map(valid.data.files.map((f) => [f.path, f]));
  const realRoot = await realpath(root).catch(() => null);
  if (realRoot === null) return refused('the project root does not exist');
  const targets = scoped.files.map((t) => ({ ...t, abs: join(root, t.path) }));
  for (const t of targets) {
    if (!entries.has(t.abs)) return refused(`${t.path}: not under custody (no baseline entry)`);
    const where = await locationIssue(realRoot, t.path, t.abs);
    if (where !== null) return refused(where);
  }
  const abs = targets.map((t) => t.abs);
  const first = await custodyIssue(valid.data, abs, root);
  if (first !== null) return first;
  const fsl = o.fs ?? nodeFsLayer();
  const planned: Planned[] = [];
  for (const t of targets) {
    const entry = entries.get(t.abs);
    let bytes: Buffer | null;
    let mode = 0o644;
    try {
      bytes = readFileNoFollow(fsl, t.abs);
      if (bytes !== null) mode = fsl.lstat(t.abs).mode & 0o777;
    } catch (e) {
      return refused(`${t.path}: cannot read: ${messageOf(e)}`);
    }
    const sha = bytes === null ? null : sha256Hex(bytes);
    if (sha !== (entry?.sha256 ?? null))
      return stale(`stale baseline: ${t.path} changed during the custody check; nothing written`);
    if (t.patch.kind === 'create' && bytes !== null)
      return refused(`${t.path}: a creation patch for a file that exists`);
    if (t.patch.kind !== 'create' && bytes === null) return refused(`${t.path}: the file does not exist`);
    let before: string;
    try {
      before = bytes === null ? '' : new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return refused(`${t.path}: not UTF-8 text; a unified diff cannot be applied to it`);
    }
    const r = applyFilePatch(before, t.patch);
    if (!r.ok) return refused(`patch refused: ${describePatchError({ ...r.error, file: t.path })}`);
    planned.push({ rel: t.path, abs: t.abs, kind: t.patch.kind, mode, before, after: r.text });
  }
  const changes = planned.filter((p) => p.kind !== 'modify' || p.after !== p.before);
  if (changes.length === 0) return { kind: 'applied', changed: [], baseline: valid.data };
  if (o.vet !== undefined) {
    let verdict: string | null;
    try {
      verdict = await o.vet(
        changes.map((p) => ({ path: p.rel, kind: p.kind, before: p.before, after: p.after })),
      );
    } catch (e) {
      verdict = `the patch could not be vetted: ${messageOf(e)}`;
    }
    if (verdict !== null) return refused(verdict);
  }
  const second = await custodyIssue(
    valid.data,
    changes.map((p) => p.abs),
    root,
  );
  if (second !== null) return second;
  const written: string[] = [];
  for (const p of changes) {
    try {
      if (p.kind === 'delete') {
        fsl.unlink(p.abs);
        fsyncDir(fsl, dirname(p.abs), 'patch_dir_fsync');
      } else {
        publishFile(fsl, p.abs, Buffer.from(p.after, 'utf8'), {
          label: 'patch',
          mode: p.mode,
          exactMode: true,
        });
      }
    } catch (e) {
      throw new HandoffError('io_error', `applying the patch failed at ${p.rel}: ${messageOf(e)}`, {
        cause: e,
        details: { written, failed: p.rel },
      });
    }
    written.push(p.rel);
  }
  try {
    const baseline = await advanceBaseline(
      valid.data,
      changes.map((p) => p.abs),
      { cwd: root },
    );
    return { kind: 'applied', changed: written, baseline };
  } catch (e) {
    throw new HandoffError(
      'io_error',
      `the patch was written but the baseline could not be advanced: ${messageOf(e)}`,
      {
        cause: e,
        details: { written },
      },
    );
  }
}
