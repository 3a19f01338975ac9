/**
 * The checkpoint's read-back (layer 3, effects): before a commit is published (`update-ref`), the
 * runtime reads back every object the commit's verified files depend on — the commit, the trees
 * on each file's path, each file's blob — with `git cat-file --batch`, and checks that each one's
 * bytes hash to its id, that each blob holds exactly the verified bytes and that the trees and the
 * commit name what the runtime wrote. `hash-object -w` does not rewrite an object whose id is
 * already present, so an object a worker planted at the id of its honest bytes would otherwise be
 * what the commit holds.
 */
import { type GitObjectType, gitObjectId, parseCommitHeader, parseTree } from './object-format.js';
import { type GitLocation, runGit } from './run-git.js';

/** One object as read back: its type and content; null when git reports it missing. */
export type ReadObject = { readonly type: string; readonly content: Buffer } | null;

/**
 * Reads `ids` with one `git cat-file --batch` in the pinned repository.
 *
 * @example
 * ```ts
 * const objs = await readObjects(repo, ['3f9c…']); // Map { '3f9c…' => { type: 'blob', content } }
 * ```
 * @throws HandoffError `io_error` when git fails or its output cannot be parsed.
 */
export async function readObjects(
  repo: GitLocation,
  ids: readonly string[],
): Promise<Map<string, ReadObject>> {
  const out = new Map<string, ReadObject>();
  const unique = [...new Set(ids)];
  if (unique.length === 0) return out;
  const buf = await runGit(repo.workTree, ['cat-file', '--batch'], {
    repo,
    input: `${unique.join('\n')}\n`,
  });
  let at = 0;
  for (const id of unique) {
    const nl = buf.indexOf(0x0a, at);
    if (nl < 0) break;
    const head = buf.subarray(at, nl).toString('utf8').split(' ');
    at = nl + 1;
    if (head[1] === 'missing' || head.length !== 3) {
      out.set(id, null);
      continue;
    }
    const size = Number(head[2]);
    out.set(id, { type: head[1] as string, content: buf.subarray(at, at + size) });
    at += size + 1;
  }
  return out;
}

/** A file of the commit to check: its path from the work tree's top, blob id and mode (null blob: deleted). */
export interface CommittedFile {
  readonly rel: string;
  /** The blob id `hash-object` returned for the verified bytes; null for a deleted file. */
  readonly blob: string | null;
  /** The verified bytes (null for a deleted file). */
  readonly bytes: Buffer | null;
  /** `100644` or `100755` (ignored for a deleted file). */
  readonly mode: string;
}

/** What the read-back found wrong: the path it concerns (or `(commit)`), the object id, what. */
export interface ReadbackProblem {
  readonly path: string;
  readonly object: string;
  readonly detail: string;
}

function authentic(id: string, obj: ReadObject | undefined, type: GitObjectType): string | null {
  if (obj === undefined || obj === null) return 'is missing';
  if (obj.type !== type) return `is a ${obj.type}, not a ${type}`;
  if (gitObjectId(type, obj.content, id.length) !== id)
    return 'holds bytes that do not hash to its id (a planted object)';
  return null;
}

/**
 * Reads back and checks commit `commit` before it is published: it hashes to its id, names
 * `tree` and exactly `parent`'s line; every tree on each file's path hashes to its id; each file's
 * entry has the verified mode and blob (or is absent when deleted); each blob hashes to its id and
 * holds the verified bytes. Resolves to null when all hold, else the first problem.
 *
 * @example
 * ```ts
 * await verifyCommitted(repo, commit, tree, head, [{ rel: 'A.lean', blob, bytes, mode: '100644' }]); // null
 * ```
 * @throws HandoffError `io_error` when git fails.
 */
export async function verifyCommitted(
  repo: GitLocation,
  commit: string,
  tree: string,
  parent: string | null,
  files: readonly CommittedFile[],
): Promise<ReadbackProblem | null> {
  const blobs = files.flatMap((f) => (f.blob === null ? [] : [f.blob]));
  const first = await readObjects(repo, [commit, tree, ...blobs]);
  const c = first.get(commit);
  const bad = authentic(commit, c, 'commit');
  if (bad !== null) return { path: '(commit)', object: commit, detail: `the commit ${bad}` };
  const header = parseCommitHeader((c as { content: Buffer }).content);
  const wantParents = parent === null ? [] : [parent];
  if (header === null || header.tree !== tree || header.parents.join(' ') !== wantParents.join(' '))
    return {
      path: '(commit)',
      object: commit,
      detail: 'the commit does not name the tree and parent written',
    };
  for (const f of files) {
    if (f.blob === null || f.bytes === null) continue;
    const b = first.get(f.blob);
    const wrong = authentic(f.blob, b, 'blob');
    if (wrong !== null) return { path: f.rel, object: f.blob, detail: `the blob ${wrong}` };
    if (!(b as { content: Buffer }).content.equals(f.bytes))
      return { path: f.rel, object: f.blob, detail: 'the blob does not hold the verified bytes' };
  }
  // walk each file's path down the trees, one cat-file per depth
  const trees = new Map<string, ReadObject>([[tree, first.get(tree) ?? null]]);
  type Walk = { file: CommittedFile; parts: string[]; at: string; dir: string };
  let level: Walk[] = files.map((f) => ({ file: f, parts: f.rel.split('/'), at: tree, dir: '' }));
  while (level.length > 0) {
    const missing = level.map((w) => w.at).filter((id) => !trees.has(id));
    if (missing.length > 0) for (const [k, v] of await readObjects(repo, missing)) trees.set(k, v);
    const next: Walk[] = [];
    for (const w of level) {
      const t = trees.get(w.at);
      const where = w.dir === '' ? '(root tree)' : w.dir;
      const wrong = authentic(w.at, t, 'tree');
      if (wrong !== null) return { path: where, object: w.at, detail: `the tree ${wrong}` };
      const entries = parseTree((t as { content: Buffer }).content, w.at.length);
      if (entries === null) return { path: where, object: w.at, detail: 'the tree cannot be parsed' };
      const [name, ...rest] = w.parts;
      const e = entries.find((x) => x.name === name);
      if (rest.length === 0) {
        if (w.file.blob === null) {
          if (e !== undefined)
            return { path: w.file.rel, object: w.at, detail: 'the deleted file is still in the tree' };
          continue;
        }
        if (e === undefined || e.id !== w.file.blob || e.mode !== w.file.mode)
          return {
            path: w.file.rel,
            object: w.at,
            detail: `the tree does not hold the verified blob ${w.file.blob} (${w.file.mode})`,
          };
        continue;
      }
      if (e === undefined) {
        if (w.file.blob === null) continue;
        return { path: w.file.rel, object: w.at, detail: `the tree has no folder ${name}` };
      }
      if (e.mode !== '40000')
        return { path: w.file.rel, object: w.at, detail: `${name} is not a folder in the tree` };
      next.push({ file: w.file, parts: rest, at: e.id, dir: w.dir === '' ? `${name}` : `${w.dir}/${name}` });
    }
    level = next;
  }
  return null;
}
