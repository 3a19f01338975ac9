/**
 * Runs a worker in the sandbox (layer 3, effects): a fresh temp directory holds the overlay's
 * upper, work and mount directories and the private `$HOME`; the worker runs through
 * `runContained` (src/process, the one home of spawning) under {@link sandboxArgv}; after it
 * exits the layer is read ({@link readLayer}) and planned ({@link planLayer}); then the temp
 * directory is removed — on every path, errors included. Nothing is applied to the host here:
 * {@link applyLayerFiles} does that with the owned files' bytes this returns.
 */
import { chmod, lstat, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { type ContainedOptions, type ContainedResult, runContained } from '../process/index.js';
import { discardedViolation, type LayerPlan, planLayer } from './apply-rule.js';
import { overlayPathDefect, type SandboxLayout, sandboxArgv } from './argv.js';
import { type LayerChanges, NO_LAYER_CHANGES } from './layer-entry.js';
import { readLayer } from './layer-reader.js';
import type { SandboxNetwork } from './mode.js';
import { opaqueDirectories } from './opaque-check.js';

/**
 * Options of {@link runSandboxed}.
 *
 * @example
 * ```ts
 * const o: SandboxRunOptions = { projectRoot: '/repo', owned: ['/repo/A.lean'], timeoutMs: 60_000, network: 'deny' };
 * ```
 */
export interface SandboxRunOptions extends Omit<ContainedOptions, 'cwd'> {
  /** The project root, a realpath (the worker's working directory). */
  readonly projectRoot: string;
  /** The owned files (absolute paths under the project). */
  readonly owned: readonly string[];
  readonly network?: SandboxNetwork;
  /**
   * Project-relative paths (`/`-separated) also owned when the worker wrote them, beside
   * {@link owned} — e.g. the gate's `allowed_writes` globs, whose files need not exist yet.
   */
  readonly ownedMatch?: (rel: string) => boolean;
  /** Whether an owned file deleted in the layer is deleted on the host (default false: a violation). */
  readonly allowDelete?: boolean;
  /** Host directories the worker sees as private empty directories (the dispatch's scratch). */
  readonly privateDirs?: readonly string[];
  /** Build-output folder names whose writes are discarded without a violation ({@link planLayer}). */
  readonly buildDirs?: readonly string[];
  /**
   * Bytes the worker sees instead of the host's (absolute paths under the project → bytes): placed
   * in the writable layer before it starts, so it reads exactly them whatever the host's tree holds
   * meanwhile (a check command judging the snapshot the runtime will commit). A seeded path is
   * read back from the layer like an owned file (list it in {@link owned} to get its bytes back).
   */
  readonly seed?: ReadonlyMap<string, Buffer>;
}

/**
 * An owned file's outcome in the layer: new bytes, or null when the worker deleted it.
 *
 * @example
 * ```ts
 * const f: LayerOwnedFile = { bytes: Buffer.from('theorem …'), mode: 0o644 }; // null: deleted
 * ```
 */
export type LayerOwnedFile = { readonly bytes: Buffer; readonly mode: number } | null;

/**
 * What a sandboxed run did.
 *
 * @example
 * ```ts
 * const r: SandboxRunResult = await runSandboxed(argv, stdin, o); r.plan.take; // ['A.lean']
 * ```
 */
export interface SandboxRunResult extends ContainedResult {
  /** What the worker changed in the project's layer. */
  readonly changes: LayerChanges;
  /** What it left in its private `$HOME`. */
  readonly home: LayerChanges;
  readonly plan: LayerPlan;
  /** `files outside the owned set were written and discarded: …`, or null. */
  readonly violation: string | null;
  /** The owned files the plan takes or removes, by absolute path. */
  readonly files: ReadonlyMap<string, LayerOwnedFile>;
  /** Why the layer could not be read (then nothing may be applied), else null. */
  readonly layerError: string | null;
}

const toRel = (root: string, p: string) => relative(root, p).split(sep).join('/');

/**
 * Runs `argv` in the sandbox over `projectRoot`.
 *
 * @example
 * ```ts
 * const r = await runSandboxed(['python3', 'w.py'], JSON.stringify(dispatch), {
 *   projectRoot: '/repo', owned: ['/repo/A.lean'], timeoutMs: 60_000,
 * });
 * r.violation; // 'files outside the owned set were written and discarded: B.lean'
 * ```
 */
export async function runSandboxed(
  argv: readonly string[],
  stdin: string,
  o: SandboxRunOptions,
): Promise<SandboxRunResult> {
  const root = o.projectRoot;
  const defect = overlayPathDefect(root);
  if (defect !== null) {
    return {
      code: null,
      signal: null,
      timedOut: false,
      spawnError: `cannot sandbox: ${defect}`,
      stdout: '',
      stderr: '',
      truncated: false,
      pipesHeld: false,
      swept: 0,
      elapsedMs: 0,
      changes: NO_LAYER_CHANGES,
      home: NO_LAYER_CHANGES,
      plan: { take: [], remove: [], discarded: [], quiet: [] },
      violation: null,
      files: new Map(),
      layerError: null,
    };
  }
  // every run's layers live below one per-user folder that each sandbox hides whole (an empty
  // tmpfs): a worker sees neither its own layer nor a concurrent run's through /tmp
  const base = sandboxesDir();
  await mkdir(base, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(join(base, 'run-'));
  const layout: SandboxLayout = {
    project: root,
    upper: join(dir, 'upper'),
    work: join(dir, 'work'),
    merged: join(dir, 'merged'),
    home: join(dir, 'home'),
    root: base,
    tmpUpper: join(dir, 'tmp-upper'),
    tmpWork: join(dir, 'tmp-work'),
    tmpMerged: join(dir, 'tmp-merged'),
  };
  try {
    for (const d of [
      layout.upper,
      layout.work,
      layout.merged,
      layout.home,
      layout.tmpUpper,
      layout.tmpWork,
      layout.tmpMerged,
    ])
      await mkdir(d, { mode: 0o700 });
    await seedLayer(layout.upper, root, o.seed);
    const {
      projectRoot: _r,
      owned: _o,
      ownedMatch: _m,
      network,
      allowDelete: _a,
      privateDirs,
      buildDirs,
      seed: _s,
      ...contained
    } = o;
    const r = await runContained(
      sandboxArgv(layout, argv, {
        network: network ?? 'deny',
        ...(privateDirs === undefined ? {} : { privateDirs }),
      }),
      stdin,
      { ...contained, cwd: root },
    );
    const ownedRel = new Map(o.owned.map((p) => [toRel(root, p), p]));
    const match = o.ownedMatch;
    const ownedSet: ReadonlySet<string> =
      match === undefined ? new Set(ownedRel.keys()) : new MatchingSet(ownedRel.keys(), match);
    const absOf = (rel: string) => ownedRel.get(rel) ?? (match?.(rel) ? join(root, rel) : undefined);
    let changes = NO_LAYER_CHANGES;
    let home = NO_LAYER_CHANGES;
    let layerFiles: Awaited<ReturnType<typeof readLayer>>['files'] = new Map();
    let layerError: string | null = null;
    try {
      const read = await readLayer(layout.upper, {
        owned: ownedSet,
        lower: root,
        opaque: (c) =>
          opaqueDirectories({ upper: layout.upper, project: root, mountPoint: layout.merged }, c),
      });
      changes = read.changes;
      layerFiles = read.files;
      home = (await readLayer(layout.home)).changes;
    } catch (e) {
      layerError = `cannot read the sandbox's layer: ${(e as Error).message}`;
    }
    const plan = planLayer(changes, ownedSet, {
      allowDelete: o.allowDelete ?? false,
      home,
      ...(buildDirs === undefined ? {} : { buildDirs }),
    });
    const files = new Map<string, LayerOwnedFile>();
    for (const rel of plan.take) {
      const f = layerFiles.get(rel);
      const abs = absOf(rel);
      if (f !== undefined && abs !== undefined) files.set(abs, f);
    }
    for (const rel of plan.remove) {
      const abs = absOf(rel);
      if (abs !== undefined) files.set(abs, null);
    }
    return { ...r, changes, home, plan, violation: discardedViolation(plan.discarded), files, layerError };
  } finally {
    await removeLayerDir(dir);
  }
}

/**
 * The per-user folder below the host's temp directory that holds every sandboxed run's layers.
 *
 * @example
 * ```ts
 * sandboxesDir(); // '/tmp/handoff-sandboxes-1000'
 * ```
 */
export function sandboxesDir(): string {
  return join(tmpdir(), `handoff-sandboxes-${process.getuid?.() ?? 'user'}`);
}

/** The owned set: the listed paths, and any path the predicate accepts. */
class MatchingSet extends Set<string> {
  readonly #match: (rel: string) => boolean;
  constructor(paths: Iterable<string>, match: (rel: string) => boolean) {
    super(paths);
    this.#match = match;
  }
  override has(rel: string): boolean {
    return super.has(rel) || this.#match(rel);
  }
}

/**
 * Writes the seeded files into the overlay's upper directory (before the mount: the kernel then
 * shows them above the project's bytes). A path outside the project is ignored.
 */
async function seedLayer(upper: string, root: string, seed: ReadonlyMap<string, Buffer> | undefined) {
  for (const [abs, bytes] of seed ?? []) {
    const rel = relative(root, abs);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) continue;
    const to = join(upper, rel);
    await mkdir(dirname(to), { recursive: true });
    const mode = ((await lstat(abs).catch(() => null))?.mode ?? 0o644) & 0o777;
    await writeFile(to, bytes, { mode });
  }
}

/** Removes a sandbox temp dir; the overlay leaves a mode-0 `work/work` directory behind. */
async function removeLayerDir(dir: string): Promise<void> {
  await chmod(join(dir, 'work', 'work'), 0o700).catch(() => {});
  await rm(dir, { recursive: true, force: true }).catch(() => {});
}
