/**
 * Built-in diagnostics for the "marker" domain (layer 3): walks the run's scope, counts a domain
 * profile's target markers (`sorry` in the Lean profile, `TODO(agent)` in the code profile) per
 * file and reports `file:line` targets. Every tier of the verification ladder is answered by the
 * same scan here (a marker count needs no build). With a check command (the profile's
 * diagnostics command, e.g. a test command) its exit status judges the files too; a checker
 * speaking the JSON protocol plugs in through `commandDiagnostics`.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { Scope } from '../contract/index.js';
import type { DiagnosticsOutput, TargetInfo } from '../cycle/types.js';
import { runContained } from '../process/index.js';
import { scanMarkers } from './marker-scan.js';
import type { DiagnosticsPort, Unstamped } from './ports.js';

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
}

function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  return (lines.filter((l) => l !== '').at(-1) ?? '').slice(0, 200);
}

const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', '.handoff']);
const MAX_FILE = 1 << 20;

/**
 * Lists the project's regular files (relative, sorted), skipping dot-directories,
 * `node_modules` and `dist`.
 *
 * @example
 * ```ts
 * await listProjectFiles('/repo'); // ['Demo.lean', 'src/B.lean']
 * ```
 */
export async function listProjectFiles(root: string, under = '.'): Promise<string[]> {
  const out: string[] = [];
  async function walk(dir: string): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) await walk(p);
      } else if (e.isFile()) out.push(relative(root, p).split(sep).join('/'));
    }
  }
  const start = resolve(root, under);
  const st = await stat(start).catch(() => null);
  if (st?.isFile()) return [relative(root, start).split(sep).join('/')];
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

/**
 * The marker diagnostics port.
 *
 * @example
 * ```ts
 * const diag = createMarkerDiagnostics({ projectRoot, target: '.', scope: 'project' });
 * (await diag.diagnose({ tier: 'file-fast', files: [] })).targets;
 * ```
 */
export function createMarkerDiagnostics(o: MarkerDiagnosticsOptions): DiagnosticsPort & {
  scopeFiles(): Promise<string[]>;
} {
  const markers = o.markers ?? [o.marker ?? 'sorry'];
  const errorComment = o.errorComment === undefined ? '--' : o.errorComment;
  const known = new Map<string, TargetInfo>();
  const spec = o.scope === 'sorry' ? splitTarget(o.target) : { file: o.target, line: null };
  async function scopeFiles(): Promise<string[]> {
    return listProjectFiles(o.projectRoot, spec.file === '' ? '.' : spec.file);
  }
  return {
    scopeFiles,
    async diagnose(input): Promise<Unstamped<DiagnosticsOutput>> {
      const files = input.files.length > 0 ? [...input.files] : await scopeFiles();
      const targets: TargetInfo[] = [];
      const errors: string[] = [];
      for (const f of files) {
        const abs = resolve(o.projectRoot, f);
        const st = await stat(abs).catch(() => null);
        if (st === null || !st.isFile() || st.size > MAX_FILE) continue;
        const buf = await readFile(abs);
        if (buf.includes(0)) continue;
        const scan = scanMarkers(f, buf.toString('utf8'), markers, errorComment);
        targets.push(...scan.targets.filter((t) => spec.line === null || t.line === spec.line));
        errors.push(...scan.errors);
      }
      if (o.check !== undefined) {
        for (const t of targets) known.set(t.id, t);
        const r = await runContained(o.check.argv, '', { cwd: o.projectRoot, timeoutMs: o.check.timeoutMs });
        if (r.spawnError !== null || r.timedOut || r.code !== 0) {
          const why =
            r.spawnError !== null
              ? `cannot start ${o.check.argv[0]}: ${r.spawnError}`
              : r.timedOut
                ? `${o.check.argv[0]} timed out`
                : `check failed (exit ${r.code}): ${lastLine(`${r.stdout}\n${r.stderr}`)}`;
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
