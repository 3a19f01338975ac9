/**
 * Case projects (layer 3, file system): lays out a planned case's owned files and bystander files
 * in a fresh directory, and snapshots a directory tree by sha256 so the harness can tell exactly
 * which paths a worker touched. The case's git repository and run store are added by
 * case-repository.ts and case-store.ts.
 */
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { sha256Hex } from '../canonical/index.js';
import type { PlannedFile } from './case-plan.js';

/** A directory for one case and how to remove it. */
export interface CaseDirectory {
  readonly dir: string;
  readonly cleanup: () => Promise<void>;
}

/**
 * Files outside the owned set that every case project holds (project-relative).
 *
 * @example
 * ```ts
 * Object.keys(BYSTANDER_FILES); // ['README.md', 'notes/other.lean']
 * ```
 */
export const BYSTANDER_FILES: Readonly<Record<string, string>> = {
  'README.md': '# conformance project\n\nFiles outside the owned set; a worker must not touch them.\n',
  'notes/other.lean': 'theorem other : True := by\n  sorry -- hint: trivial\n',
};

/**
 * The default case directory: a fresh `mkdtemp` under the OS temp directory, removed afterwards.
 *
 * @example
 * ```ts
 * const { dir, cleanup } = await tempCaseDirectory('case-01');
 * ```
 */
export async function tempCaseDirectory(caseId: string): Promise<CaseDirectory> {
  const dir = await mkdtemp(join(tmpdir(), `handoff-conformance-${caseId}-`));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Writes the owned files that exist before dispatch and the bystander files under `root`; returns
 * the absolute owned paths in plan order.
 *
 * @example
 * ```ts
 * const owned = await layOutProject('/tmp/p', plan.files); // ['/tmp/p/f0/a', …]
 * ```
 */
export async function layOutProject(root: string, files: readonly PlannedFile[]): Promise<string[]> {
  const owned: string[] = [];
  for (const f of files) {
    const abs = join(root, f.rel);
    owned.push(abs);
    await mkdir(dirname(abs), { recursive: true });
    if (f.exists) await writeFile(abs, f.content);
  }
  for (const [rel, text] of Object.entries(BYSTANDER_FILES)) {
    const abs = join(root, rel);
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, text);
  }
  return owned;
}

/**
 * Top-level folders of a case project that the tree snapshot leaves out: the git directory and
 * the run store. They have checks of their own (`git-unchanged`, `store-untouched`), so a planted
 * hook is one finding, not also an `unowned-unchanged` one.
 *
 * @example
 * ```ts
 * await snapshotTree(dir, { skip: CASE_CONTROL_DIRS });
 * ```
 */
export const CASE_CONTROL_DIRS: readonly string[] = ['.git', '.handoff'];

/** A tree snapshot: absolute path → `file:<sha256>`, `dir`, `link:<target>` or `other`. */
export type TreeSnapshot = ReadonlyMap<string, string>;

/** Options of {@link snapshotTree}. */
export interface SnapshotTreeOptions {
  /** Names of entries directly under `root` to leave out (with everything below them). */
  readonly skip?: readonly string[];
}

/**
 * Snapshots every entry under `root` (recursively, symlinks not followed), except the top-level
 * entries named in `skip`.
 *
 * @example
 * ```ts
 * const before = await snapshotTree(dir, { skip: CASE_CONTROL_DIRS });
 * ```
 */
export async function snapshotTree(root: string, o: SnapshotTreeOptions = {}): Promise<TreeSnapshot> {
  const out = new Map<string, string>();
  const skip = new Set(o.skip ?? []);
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (dir === root && skip.has(e.name)) continue;
      const abs = join(dir, e.name);
      if (e.isDirectory()) {
        out.set(abs, 'dir');
        await walk(abs);
      } else if (e.isFile()) {
        const bytes = await readFile(abs).catch(() => null);
        out.set(abs, bytes === null ? 'unreadable' : `file:${sha256Hex(bytes)}`);
      } else if (e.isSymbolicLink()) {
        out.set(abs, `link:${await readlink(abs).catch(() => '?')}`);
      } else {
        out.set(abs, 'other');
      }
    }
  };
  await walk(root);
  return out;
}

/**
 * Paths created, removed or changed between two snapshots, sorted. Directories count only when
 * created or removed.
 *
 * @example
 * ```ts
 * changedPaths(before, await snapshotTree(dir)); // ['/tmp/p/stray.txt']
 * ```
 */
export function changedPaths(before: TreeSnapshot, after: TreeSnapshot): string[] {
  const out = new Set<string>();
  for (const [p, v] of before) if (after.get(p) !== v) out.add(p);
  for (const p of after.keys()) if (!before.has(p)) out.add(p);
  return [...out].sort();
}
