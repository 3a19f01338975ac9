/**
 * The collector (effects): builds the evidence packet from the real git repository, independent
 * of the worker's narrative — the changeset relative to the contract's base candidate (committed,
 * staged, unstaged and untracked; renames with and without `git mv`), a candidate binding that
 * identifies the dirty working tree, artifacts resolved to permitted content or listed under
 * `omitted` with the reason, executions counted only when bound to this candidate, and the
 * worker's claims kept as claims.
 */
import { lstat, readFile, readlink, realpath } from 'node:fs/promises';
import { isAbsolute, join, normalize, relative, sep } from 'node:path';
import { sha256Hex } from '../canonical/index.js';
import {
  isInternalPath,
  mergeChangeset,
  pairRenames,
  parseNameStatusZ,
  splitZ,
  treeDigest,
} from './changeset.js';
import type { CandidateBinding, TaskContract } from './contract-schema.js';
import type { Artifact, ChangeEntry, EvidencePacket, ExecutionInput, Omitted } from './evidence-schema.js';
import { EMPTY_TREE, git } from './git.js';
import { matchesAny } from './globs.js';
import { asClaims, assemblePacket, bindExecutions } from './packet.js';

/** Options of {@link collectEvidence}. */
export interface CollectOptions {
  /** Any directory inside the repository. */
  readonly repo: string;
  readonly contract: TaskContract;
  /** Additional artifact references (repository-relative). */
  readonly artifacts?: readonly string[];
  /** Globs of readable paths (default: everything except internal paths). */
  readonly permittedReads?: readonly string[];
  /** Per-artifact size limit (default 1 MiB): larger is `too-large`. */
  readonly maxArtifactBytes?: number;
  /** Total inline content budget (default 4 MiB): beyond it artifacts are `truncated`. */
  readonly maxPacketBytes?: number;
  readonly executions?: readonly ExecutionInput[];
  readonly claims?: readonly { criterion_id?: string | null; text: string }[];
  /** Operations the runner observed the worker performing (e.g. `network`). */
  readonly operations?: readonly string[];
  /** ISO clock (injected). */
  readonly now: () => string;
}

/**
 * The repository's top-level directory.
 *
 * @example
 * ```ts
 * const root = await repoRoot('/repo/src');
 * ```
 */
export async function repoRoot(dir: string): Promise<string> {
  return (await git(dir, ['rev-parse', '--show-toplevel'])).toString('utf8').trim();
}

async function headCommit(root: string): Promise<string | null> {
  const out = (await git(root, ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { allowFail: true }))
    .toString('utf8')
    .trim();
  return out === '' ? null : out;
}

async function contentDigest(abs: string): Promise<string | null> {
  try {
    const st = await lstat(abs);
    if (st.isSymbolicLink()) return sha256Hex(`symlink:${await readlink(abs)}`);
    if (!st.isFile()) return null;
    return sha256Hex(await readFile(abs));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') {
      return null;
    }
    throw e;
  }
}

interface TreeState {
  readonly root: string;
  readonly head: string | null;
  readonly unstaged: ReturnType<typeof parseNameStatusZ>;
  readonly untracked: string[];
  readonly binding: CandidateBinding;
}

async function readTree(dir: string): Promise<TreeState> {
  const root = await repoRoot(dir);
  const head = await headCommit(root);
  const [indexOut, unstagedOut, untrackedOut] = await Promise.all([
    git(root, ['ls-files', '-s', '-z']),
    git(root, ['diff', '--name-status', '-z', '--no-renames', '--no-ext-diff', '--no-textconv']),
    git(root, ['ls-files', '-z', '--others', '--exclude-standard']),
  ]);
  const manifest = new Map<string, string>();
  for (const rec of splitZ(indexOut.toString('utf8'))) {
    const tab = rec.indexOf('\t');
    const [mode, blob] = rec.slice(0, tab).split(' ');
    manifest.set(rec.slice(tab + 1), `git:${mode}:${blob}`);
  }
  const unstaged = parseNameStatusZ(unstagedOut.toString('utf8'));
  const untracked = splitZ(untrackedOut.toString('utf8')).filter((p) => !isInternalPath(p));
  for (const p of [...unstaged.map((u) => u.path), ...untracked]) {
    const d = await contentDigest(join(root, p));
    if (d === null) manifest.delete(p);
    else manifest.set(p, `sha256:${d}`);
  }
  return { root, head, unstaged, untracked, binding: { commit: head, tree_digest: treeDigest(manifest) } };
}

/**
 * The candidate binding of the working tree right now: HEAD (or null) and the tree digest over
 * every tracked and untracked (not ignored) file's content. Two different dirty trees on the same
 * commit get different digests.
 *
 * @example
 * ```ts
 * const { commit, tree_digest } = await currentCandidate('/repo');
 * ```
 */
export async function currentCandidate(dir: string): Promise<CandidateBinding> {
  return (await readTree(dir)).binding;
}

function repoRelative(root: string, ref: string): string | null {
  if (ref === '' || isAbsolute(ref) || ref.includes('\0')) return null;
  const n = normalize(ref).split(sep).join('/');
  if (n === '..' || n.startsWith('../') || n === '.') return null;
  return relative(root, join(root, n)).split(sep).join('/') === n ? n : null;
}

async function resolveArtifact(
  root: string,
  ref: string,
  role: Artifact['role'],
  opts: { permitted: readonly string[]; maxBytes: number; budget: { left: number } },
): Promise<{ artifact: Artifact } | { omitted: Omitted }> {
  const rel = repoRelative(root, ref);
  if (rel === null || isInternalPath(rel)) {
    return { omitted: { ref, reason: 'not-permitted', detail: 'outside the repository or internal' } };
  }
  if (!matchesAny(opts.permitted, rel)) {
    return { omitted: { ref, reason: 'not-permitted', detail: 'not matched by the permitted reads' } };
  }
  const abs = join(root, rel);
  let st: Awaited<ReturnType<typeof lstat>>;
  try {
    st = await lstat(abs);
  } catch {
    return { omitted: { ref, reason: 'unresolved', detail: 'no such file' } };
  }
  if (st.isSymbolicLink()) {
    const real = await realpath(abs).catch(() => null);
    const realRoot = await realpath(root);
    if (real === null) return { omitted: { ref, reason: 'unresolved', detail: 'dangling symbolic link' } };
    if (real !== realRoot && !real.startsWith(`${realRoot}${sep}`)) {
      return { omitted: { ref, reason: 'not-permitted', detail: 'symbolic link leaves the repository' } };
    }
    st = await lstat(real);
  }
  if (!st.isFile()) return { omitted: { ref, reason: 'unresolved', detail: 'not a regular file' } };
  if (st.size > opts.maxBytes) {
    return { omitted: { ref, reason: 'too-large', detail: `${st.size} bytes > limit ${opts.maxBytes}` } };
  }
  if (st.size > opts.budget.left) {
    return { omitted: { ref, reason: 'truncated', detail: 'packet content budget exhausted' } };
  }
  const bytes = await readFile(abs);
  opts.budget.left -= bytes.length;
  let content: string | null = null;
  if (!bytes.includes(0)) {
    try {
      content = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      content = null;
    }
  }
  return {
    artifact: { ref: rel, role, resolved: true, sha256: sha256Hex(bytes), bytes: bytes.length, content },
  };
}

/**
 * Collects and freezes the evidence packet.
 *
 * @example
 * ```ts
 * const packet = await collectEvidence({ repo: '/repo', contract, now: () => new Date().toISOString() });
 * packet.changeset.map((c) => `${c.change} ${c.path}`);
 * ```
 * @throws HandoffError `git_failed` when git cannot read the repository.
 */
export async function collectEvidence(options: CollectOptions): Promise<EvidencePacket> {
  const { contract } = options;
  const tree = await readTree(options.repo);
  const { root } = tree;
  const base = contract.candidate.commit ?? tree.head ?? EMPTY_TREE;
  const stagedOut = await git(root, [
    'diff',
    '--cached',
    '--name-status',
    '-z',
    '-M',
    '--no-ext-diff',
    '--no-textconv',
    base,
  ]);
  let changes: ChangeEntry[] = mergeChangeset({
    staged: parseNameStatusZ(stagedOut.toString('utf8')),
    unstaged: tree.unstaged,
    untracked: tree.untracked,
  });
  changes = await Promise.all(
    changes.map(async (c) =>
      c.change === 'removed' ? c : { ...c, sha256: await contentDigest(join(root, c.path)) },
    ),
  );
  const baseDigests = new Map<string, string>();
  for (const c of changes) {
    if (c.change === 'removed' && !c.staged) {
      const blob = await git(root, ['cat-file', 'blob', `${base}:${c.path}`], { allowFail: true });
      baseDigests.set(c.path, sha256Hex(blob));
    }
  }
  changes = pairRenames(changes, baseDigests);

  const permitted = options.permittedReads ?? ['**'];
  const budget = { left: options.maxPacketBytes ?? 4 * 1024 * 1024 };
  const maxBytes = options.maxArtifactBytes ?? 1024 * 1024;
  const refs: [string, Artifact['role']][] = [];
  const seen = new Set<string>();
  const push = (ref: string, role: Artifact['role']) => {
    if (!seen.has(ref)) {
      seen.add(ref);
      refs.push([ref, role]);
    }
  };
  for (const r of contract.required_artifacts) push(r, 'required');
  for (const c of changes) if (c.change !== 'removed') push(c.path, 'changed');
  for (const r of options.artifacts ?? []) push(r, 'extra');
  const artifacts: Artifact[] = [];
  const omitted: Omitted[] = [];
  for (const [ref, role] of refs) {
    const r = await resolveArtifact(root, ref, role, { permitted, maxBytes, budget });
    if ('artifact' in r) artifacts.push(r.artifact);
    else omitted.push(r.omitted);
  }
  return assemblePacket({
    contract,
    candidate: tree.binding,
    changeset: changes,
    artifacts,
    omitted,
    executions: bindExecutions(options.executions ?? [], tree.binding),
    operations: options.operations ?? [],
    claims: asClaims(options.claims ?? []),
    collectedAt: options.now(),
  });
}
