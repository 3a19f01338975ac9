/**
 * Built-in diagnostics for the "marker" domain (layer 3): walks the run's scope — only the
 * profile's source files (`.lean` for Lean), and in a git work tree only what git does not ignore
 * — and reports a domain profile's targets (`sorry` and its escape hatches in the Lean profile,
 * `TODO(agent)` in the code profile) as `file:line`. Every tier of the verification ladder is
 * answered by the same scan here (a marker count needs no build). A target stays open while the
 * declaration that held it still holds an escape hatch (wherever it moved), and a file the scan
 * cannot read as text is an `unverifiable` error, never skipped. The files the runtime accepted
 * are read from its snapshot (`bytesOf`: the verified bytes a checkpoint commits), never from a
 * working tree a leftover process may still write to. With a check command (the profile's
 * diagnostics command, e.g. a test command) its exit status judges the files too — run, like the
 * worker, in the sandbox when the run is sandboxed (the project read-only, the snapshot's bytes in
 * its layer: it judges exactly what gets committed, and nothing it writes reaches the host), else
 * contained with the snapshot's files compared with the live tree around it (`runOnSnapshot`); a
 * checker speaking the JSON protocol plugs in through `commandDiagnostics`.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join, relative, resolve, sep } from 'node:path';
import type { Scope } from '../contract/index.js';
import type { DiagnosticsOutput, TargetInfo } from '../cycle/types.js';
import { runGit } from '../git/index.js';
import { MAX_CHECKED_BYTES } from '../profile/checked-text.js';
import { openInDeclaration } from '../profile/target-solved.js';
import { type MarkerScan, scanSource } from './marker-scan.js';
import type { DiagnosticsPort, Unstamped } from './ports.js';
import { type CheckSandbox, checkSandboxNow, runOnSnapshot } from './snapshot-check.js';

/** Options of {@link createMarkerDiagnostics}. */
export interface MarkerDiagnosticsOptions {
  readonly projectRoot: string;
  readonly target: string;
  readonly scope: Scope;
  /** One marker word (default `sorry`); `markers` wins when both are given. */
  readonly marker?: string;
  /** The domain profile's target markers. */
  readonly markers?: readonly string[];
  /** The inline error-comment prefix (`--` for Lean, the default), or null for none. */
  readonly errorComment?: string | null;
  /**
   * A check command (argv, no shell; e.g. the code profile's test command) run in the project
   * root for every question: a non-zero exit reports one error per checked file, and a target
   * this port reported earlier whose marker is gone stays open until the command passes (the
   * work item is the marker *and* a passing check).
   */
  readonly check?: { readonly argv: readonly string[]; readonly timeoutMs: number };
  /**
   * The profile's escape hatches (Lean: a token scan, each target attributed to its
   * declaration), or null/absent for the line scan of the markers.
   */
  readonly hatches?: readonly string[] | null;
  /** The profile's source extensions (`['.lean']`); absent or null: every file. */
  readonly sourceExtensions?: readonly string[] | null;
  /**
   * The runtime's snapshot of a file (absolute path): the verified bytes it accepted (null: the
   * worker deleted it), or undefined to read the disk. Default: always the disk.
   */
  readonly bytesOf?: (abs: string) => { readonly bytes: Buffer | null } | undefined;
  /**
   * Where the {@link check} command runs: in the sandbox (the run's own decision and network
   * policy; a getter is read at each check), or contained only (null, the default). Either way the
   * files {@link bytesOf} holds are what it must judge: sandboxed they are placed in its layer;
   * contained, a live file that differs from them around the check fails the check, named.
   */
  readonly sandbox?: CheckSandbox;
}

function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  return (lines.filter((l) => l !== '').at(-1) ?? '').slice(0, 200);
}

const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', '.handoff']);

/** Which files {@link listProjectFiles} lists. */
export interface ListOptions {
  /** Only these extensions (lower case, with the dot); absent or null: every file. */
  readonly extensions?: readonly string[] | null;
}

const skipped = (rel: string): boolean =>
  rel.split('/').some((part, i, all) => i < all.length - 1 && (SKIP_DIRS.has(part) || part.startsWith('.')));

/**
 * The files git lists under `under` (tracked, and untracked but not ignored), relative to `root`,
 * or null when `root` is not in a git work tree. Through the hardened git runner.
 */
async function gitListed(root: string, under: string): Promise<string[] | null> {
  const inside = await runGit(root, ['rev-parse', '--is-inside-work-tree'], { allowFail: true });
  if (inside.toString('utf8').trim() !== 'true') return null;
  const out = await runGit(
    root,
    ['ls-files', '--cached', '--others', '--exclude-standard', '-z', '--', under],
    { allowFail: true, env: { GIT_LITERAL_PATHSPECS: '1' } },
  );
  return [...new Set(out.toString('utf8').split('\0'))].filter((p) => p !== '');
}

/**
 * Lists the project's regular files (relative, sorted) under `under`: in a git work tree what git
 * lists (tracked, or untracked and not ignored), else a walk; either way skipping dot-directories,
 * `node_modules` and `dist`, and keeping only `extensions` when given.
 *
 * @example
 * ```ts
 * await listProjectFiles('/repo');                             // ['Demo.lean', 'README.md', 'src/B.lean']
 * await listProjectFiles('/repo', '.', { extensions: ['.lean'] }); // ['Demo.lean', 'src/B.lean']
 * ```
 */
export async function listProjectFiles(root: string, under = '.', o: ListOptions = {}): Promise<string[]> {
  const exts = o.extensions ?? null;
  const wanted = (rel: string) => exts === null || exts.includes(extname(rel).toLowerCase());
  const start = resolve(root, under);
  const st = await stat(start).catch(() => null);
  if (st?.isFile()) {
    const rel = relative(root, start).split(sep).join('/');
    return wanted(rel) ? [rel] : [];
  }
  const listed = await gitListed(root, relative(root, start) || '.');
  if (listed !== null) {
    const files: string[] = [];
    for (const rel of listed) {
      if (skipped(rel) || !wanted(rel)) continue;
      const f = await stat(resolve(root, rel)).catch(() => null);
      if (f?.isFile()) files.push(rel);
    }
    return files.sort();
  }
  const out: string[] = [];
  async function walk(dir: string): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) await walk(p);
      } else if (e.isFile()) {
        const rel = relative(root, p).split(sep).join('/');
        if (wanted(rel)) out.push(rel);
      }
    }
  }
  await walk(start);
  return out.sort();
}

/**
 * Splits a `file:line` target (only a trailing `:<digits>` is a line).
 *
 * @example
 * ```ts
 * splitTarget('A.lean:4'); // { file: 'A.lean', line: 4 }
 * ```
 */
export function splitTarget(target: string): { file: string; line: number | null } {
  const m = /^(.*):(\d+)$/.exec(target);
  return m ? { file: m[1] as string, line: Number(m[2]) } : { file: target, line: null };
}

/** A target this port reported, with the declaration that held it (Lean scans). */
interface Seen {
  readonly target: TargetInfo;
  readonly declaration: string | null;
}

/**
 * The marker diagnostics port. An `edit` answer keeps every target reported by the last
 * `discover` open while its declaration still holds an escape hatch — at whatever line — or the
 * declaration is gone, or its file became unverifiable; a `solved` claim on it does not hold.
 *
 * @example
 * ```ts
 * const diag = createMarkerDiagnostics({ projectRoot, target: '.', scope: 'project', hatches: ['sorry', 'admit'],
 *   sourceExtensions: ['.lean'], bytesOf: (abs) => custody.verified(abs) });
 * (await diag.diagnose({ question: 'discover', tier: 'file-fast', files: [] })).targets;
 * ```
 */
export function createMarkerDiagnostics(o: MarkerDiagnosticsOptions): DiagnosticsPort & {
  scopeFiles(): Promise<string[]>;
} {
  const markers = o.markers ?? [o.marker ?? 'sorry'];
  const errorComment = o.errorComment === undefined ? '--' : o.errorComment;
  const hatches = o.hatches ?? null;
  const extensions = o.sourceExtensions ?? null;
  const known = new Map<string, TargetInfo>();
  // the targets of the last discovery, with their declarations; the axioms of each file's first view
  const seen = new Map<string, Seen>();
  const axiomsAtStart = new Map<string, ReadonlySet<string>>();
  const spec = o.scope === 'sorry' ? splitTarget(o.target) : { file: o.target, line: null };
  async function scopeFiles(): Promise<string[]> {
    return listProjectFiles(o.projectRoot, spec.file === '' ? '.' : spec.file, { extensions });
  }
  async function scan(f: string): Promise<MarkerScan | null> {
    const abs = resolve(o.projectRoot, f);
    const held = o.bytesOf?.(abs);
    let bytes: Buffer;
    if (held !== undefined) {
      if (held.bytes === null) return null;
      bytes = held.bytes;
    } else {
      const st = await stat(abs).catch(() => null);
      if (st === null || !st.isFile()) return null;
      if (st.size > MAX_CHECKED_BYTES) {
        const why = `unverifiable: ${st.size} bytes, over the ${MAX_CHECKED_BYTES} bytes the checks read`;
        return { targets: [], errors: [`${f}:0:${why}`], unverifiable: why };
      }
      bytes = await readFile(abs);
    }
    const knownAxioms = axiomsAtStart.get(f);
    const r = scanSource(f, bytes, {
      markers,
      errorComment,
      hatches,
      ...(knownAxioms === undefined ? {} : { knownAxioms }),
    });
    if (knownAxioms === undefined && r.axioms !== undefined) axiomsAtStart.set(f, new Set(r.axioms));
    return r;
  }
  return {
    scopeFiles,
    async diagnose(input): Promise<Unstamped<DiagnosticsOutput>> {
      const files = input.files.length > 0 ? [...input.files] : await scopeFiles();
      const targets: TargetInfo[] = [];
      const errors: string[] = [];
      const scans = new Map<string, MarkerScan | null>();
      for (const f of files) {
        const r = await scan(f);
        scans.set(f, r);
        if (r === null) continue;
        const inScope = r.targets.filter((t) => spec.line === null || t.line === spec.line);
        targets.push(...inScope);
        errors.push(...r.errors);
        if (input.question === 'discover' || input.question === undefined) {
          for (const t of inScope)
            seen.set(t.id, { target: t, declaration: r.declarations?.get(t.id) ?? null });
        }
      }
      if (input.question === 'discover' || input.question === undefined) {
        const reported = new Set(targets.map((t) => t.id));
        for (const id of [...seen.keys()]) if (!reported.has(id)) seen.delete(id);
      } else if (input.question === 'edit') {
        // a target whose line no longer holds a marker is solved only when its declaration holds
        // no escape hatch anywhere (a moved marker is the same open target)
        const open = new Set(targets.map((t) => t.id));
        for (const { target: t, declaration } of seen.values()) {
          if (open.has(t.id) || !scans.has(t.file)) continue;
          const r = scans.get(t.file) ?? null;
          const why = stillOpen(r, declaration);
          if (why !== null) {
            targets.push({ ...t, goal: `${t.goal} (${why})` });
            open.add(t.id);
          }
        }
      }
      if (o.check !== undefined) {
        for (const t of targets) known.set(t.id, t);
        const snapshot = new Map<string, Buffer | null>();
        for (const f of files) {
          const abs = resolve(o.projectRoot, f);
          const held = o.bytesOf?.(abs);
          if (held !== undefined) snapshot.set(abs, held.bytes);
        }
        const { result: r, drift } = await runOnSnapshot(o.check.argv, '', {
          cwd: o.projectRoot,
          timeoutMs: o.check.timeoutMs,
          sandbox: checkSandboxNow(o.sandbox),
          snapshot,
        });
        if (r.spawnError !== null || r.timedOut || r.code !== 0 || drift.length > 0) {
          const why =
            r.spawnError !== null
              ? `cannot start ${o.check.argv[0]}: ${r.spawnError}`
              : r.timedOut
                ? `${o.check.argv[0]} timed out`
                : r.code !== 0
                  ? `check failed (exit ${r.code}): ${lastLine(`${r.stdout}\n${r.stderr}`)}`
                  : `the check did not judge the accepted bytes: ${drift.join(', ')} changed on disk around it`;
          const open = new Set(targets.map((t) => t.id));
          const checked = new Set(files);
          for (const t of known.values()) {
            if (!open.has(t.id) && checked.has(t.file)) targets.push({ ...t, goal: `${t.goal} (${why})` });
          }
          for (const f of files) errors.push(`${f}:0:${why}`);
        } else {
          for (const t of [...known.keys()]) if (!targets.some((x) => x.id === t)) known.delete(t);
        }
      }
      return { tier: input.tier, targets, errors, ok: errors.length === 0 };
    },
  };
}

/** Why a reported target is still open in a file's new scan (null: it is not). */
function stillOpen(r: MarkerScan | null, declaration: string | null): string | null {
  if (r === null) return declaration === null ? null : `${declaration} is gone`;
  if (r.unverifiable !== undefined) return r.unverifiable;
  if (declaration === null || r.declarations === undefined) return null;
  return openInDeclaration(
    {
      ok: true,
      hatches: r.hatches ?? [],
      declarations: (r.declared ?? []).map((key) => ({ key, line: 0 })),
      axioms: r.axioms ?? [],
    },
    declaration,
  );
}
