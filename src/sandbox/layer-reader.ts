/**
 * Reads a writable layer after the worker exited (layer 3, effects): walks the overlay's upper
 * directory with `lstat` only (never following a link), classifies every entry
 * ({@link LayerChanges}), and reads the bytes of the owned files found there — O(what changed),
 * never the project. Raw names are kept as bytes while walking; a name that is not UTF-8 is
 * reported escaped, a subtree that cannot be read is reported as such, never dropped.
 */
import { lstat, readdir, readFile } from 'node:fs/promises';
import { entryKind, type LayerChanges, nameText } from './layer-entry.js';

/**
 * An owned file's new bytes as found in the layer.
 *
 * @example
 * ```ts
 * const f: LayerFile | undefined = (await readLayer(upper, { owned })).files.get('A.lean');
 * ```
 */
export interface LayerFile {
  readonly bytes: Buffer;
  readonly mode: number;
}

/**
 * A directory of the layer that also exists in the project, with one project entry the layer does not shadow.
 *
 * @example
 * ```ts
 * const c: OpaqueCandidate = { dir: 'src', witness: 'kept.ts' };
 * ```
 */
export interface OpaqueCandidate {
  /** The directory, relative to the project. */
  readonly dir: string;
  /** A name in the project's directory that the layer has no entry for. */
  readonly witness: string;
}

/**
 * Options of {@link readLayer}.
 *
 * @example
 * ```ts
 * const o: ReadLayerOptions = { owned: new Set(['A.lean']), lower: '/repo' };
 * ```
 */
export interface ReadLayerOptions {
  /** Project-relative paths whose regular-file bytes are read from the layer. */
  readonly owned?: ReadonlySet<string>;
  /**
   * The lower directory (the project), for finding directories that may be opaque; omit for a
   * layer without one (the private home).
   */
  readonly lower?: string;
  /** Decides which candidates are opaque (default: none is). */
  readonly opaque?: (candidates: readonly OpaqueCandidate[]) => Promise<ReadonlySet<string>>;
}

/**
 * What {@link readLayer} found.
 *
 * @example
 * ```ts
 * const { changes, files }: LayerRead = await readLayer('/tmp/s/upper');
 * ```
 */
export interface LayerRead {
  readonly changes: LayerChanges;
  /** The owned files written in the layer (regular files only), by project-relative path. */
  readonly files: ReadonlyMap<string, LayerFile>;
}

const SLASH = Buffer.from('/');
const join = (a: Buffer, b: Buffer) => Buffer.concat([a, SLASH, b]);

async function names(dir: Buffer): Promise<Buffer[]> {
  return (await readdir(dir, { encoding: 'buffer' })) as Buffer[];
}

/**
 * Lists the layer at `upper`.
 *
 * @example
 * ```ts
 * const { changes, files } = await readLayer('/tmp/s/upper', { owned: new Set(['A.lean']), lower: '/repo' });
 * changes.written; // ['A.lean', 'B.lean']
 * files.get('A.lean')?.bytes;
 * ```
 */
export async function readLayer(upper: string, o: ReadLayerOptions = {}): Promise<LayerRead> {
  const written: string[] = [];
  const deleted: string[] = [];
  const specials: { path: string; kind: string }[] = [];
  const candidates: OpaqueCandidate[] = [];
  const files = new Map<string, LayerFile>();
  const lowerRoot = o.lower === undefined ? null : Buffer.from(o.lower);
  // an explicit stack: any depth, no recursion limit
  const stack: { abs: Buffer; raw: Buffer | null; rel: string }[] = [
    { abs: Buffer.from(upper), raw: null, rel: '' },
  ];
  while (stack.length > 0) {
    const d = stack.pop() as { abs: Buffer; raw: Buffer | null; rel: string };
    let entries: Buffer[];
    try {
      entries = await names(d.abs);
    } catch (e) {
      specials.push({
        path: `${d.rel}/`,
        kind: `unreadable: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
      });
      continue;
    }
    if (d.raw !== null && lowerRoot !== null) {
      // a directory the project also has: if one of the project's entries is not shadowed here,
      // whether it is still seen tells whether the directory is opaque
      const lowerNames = await names(join(lowerRoot, d.raw)).catch(() => null);
      if (lowerNames !== null) {
        const here = new Set(entries.map((n) => n.toString('latin1')));
        const witness = lowerNames.find(
          (n) => !here.has(n.toString('latin1')) && nameText(n) === n.toString('utf8'),
        );
        if (witness !== undefined && nameText(d.raw) === d.raw.toString('utf8'))
          candidates.push({ dir: d.rel, witness: witness.toString('utf8') });
      }
    }
    if (entries.length === 0 && d.raw !== null && lowerRoot !== null) {
      const inLower = await lstat(join(lowerRoot, d.raw)).catch(() => null);
      if (inLower === null) written.push(`${d.rel}/`);
    }
    for (const n of entries) {
      const abs = join(d.abs, n);
      const raw = d.raw === null ? n : join(d.raw, n);
      const rel = d.rel === '' ? nameText(n) : `${d.rel}/${nameText(n)}`;
      let st: Awaited<ReturnType<typeof lstat>>;
      try {
        st = await lstat(abs);
      } catch (e) {
        specials.push({ path: rel, kind: `unreadable: ${(e as NodeJS.ErrnoException).code ?? 'error'}` });
        continue;
      }
      const kind = entryKind(st);
      if (kind === 'dir') {
        stack.push({ abs, raw, rel });
      } else if (kind === 'file') {
        written.push(rel);
        if (o.owned?.has(rel)) files.set(rel, { bytes: await readFile(abs), mode: Number(st.mode) & 0o777 });
      } else if (kind === 'whiteout') {
        deleted.push(rel);
      } else {
        specials.push({ path: rel, kind });
      }
    }
  }
  const opaque = candidates.length > 0 && o.opaque ? await o.opaque(candidates) : new Set<string>();
  const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    changes: {
      written: written.sort(byPath),
      deleted: deleted.sort(byPath),
      opaqueDirs: [...opaque].sort(byPath),
      specials: specials.sort((a, b) => byPath(a.path, b.path)),
    },
    files,
  };
}
