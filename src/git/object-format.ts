/**
 * Git's object format (layer 1, pure): the id an object's bytes hash to, and the parts of tree and
 * commit objects the checkpoint's read-back checks. Git does not check, when it reads an object,
 * that its bytes hash to its id — a planted loose object is served as is — so the runtime does.
 */
import { createHash } from 'node:crypto';

/** The kinds of git objects. */
export type GitObjectType = 'blob' | 'tree' | 'commit' | 'tag';

/**
 * The id of an object of `type` holding `content`: sha1 for a 40-hex repository, sha256 for a
 * 64-hex one (`idLength`, default 40).
 *
 * @example
 * ```ts
 * gitObjectId('blob', Buffer.from('')); // 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'
 * ```
 */
export function gitObjectId(type: GitObjectType, content: Uint8Array, idLength = 40): string {
  const h = createHash(idLength === 64 ? 'sha256' : 'sha1');
  h.update(`${type} ${content.length}\0`);
  h.update(content);
  return h.digest('hex');
}

/** One entry of a tree object. */
export interface TreeEntry {
  /** The mode as git stores it (`100644`, `100755`, `40000`, `120000`, `160000`). */
  readonly mode: string;
  /** The entry's name (one path component, as bytes decoded as UTF-8). */
  readonly name: string;
  readonly id: string;
}

/**
 * The entries of a tree object's content (`<mode> <name>\0<raw id>` repeated); null when the
 * content is not a well-formed tree for ids of `idLength` hex digits. Never throws.
 *
 * @example
 * ```ts
 * parseTree(content); // [{ mode: '100644', name: 'A.lean', id: '3f9c…' }]
 * ```
 */
export function parseTree(content: Buffer, idLength = 40): TreeEntry[] | null {
  const raw = idLength / 2;
  const out: TreeEntry[] = [];
  let at = 0;
  while (at < content.length) {
    const space = content.indexOf(0x20, at);
    if (space < 0) return null;
    const nul = content.indexOf(0, space + 1);
    if (nul < 0 || nul + 1 + raw > content.length) return null;
    const mode = content.subarray(at, space).toString('latin1');
    if (!/^[0-7]{5,6}$/.test(mode)) return null;
    out.push({
      mode,
      name: content.subarray(space + 1, nul).toString('utf8'),
      id: content.subarray(nul + 1, nul + 1 + raw).toString('hex'),
    });
    at = nul + 1 + raw;
  }
  return out;
}

/** The header of a commit object that the checkpoint checks. */
export interface CommitHeader {
  readonly tree: string;
  readonly parents: readonly string[];
}

/**
 * The `tree` and `parent` lines of a commit object's content; null when it has no tree line.
 * Never throws.
 *
 * @example
 * ```ts
 * parseCommitHeader(Buffer.from('tree 4b82…\nparent 9d1e…\nauthor …\n\nmsg\n')); // { tree: '4b82…', parents: ['9d1e…'] }
 * ```
 */
export function parseCommitHeader(content: Buffer): CommitHeader | null {
  const text = content.toString('utf8');
  const end = text.indexOf('\n\n');
  const lines = (end < 0 ? text : text.slice(0, end)).split('\n');
  const tree = /^tree ([0-9a-f]+)$/.exec(lines[0] ?? '')?.[1];
  if (tree === undefined) return null;
  const parents = lines.flatMap((l) => {
    const m = /^parent ([0-9a-f]+)$/.exec(l);
    return m?.[1] === undefined ? [] : [m[1]];
  });
  return { tree, parents };
}
