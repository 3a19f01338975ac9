/**
 * Built-in diagnostics for the "marker" domain (layer 3): walks the run's scope, counts a marker
 * such as `sorry` per file and reports `file:line` targets. Every tier of the verification ladder
 * is answered by the same scan here (a marker count needs no build); a real checker plugs in
 * through {@link createCommandDiagnostics}.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { Scope } from '../contract/index.js';
import type { DiagnosticsOutput, TargetInfo } from '../cycle/types.js';
import { scanMarkers } from './marker-scan.js';
import type { DiagnosticsPort, Unstamped } from './ports.js';

/** Options of {@link createMarkerDiagnostics}. */
export interface MarkerDiagnosticsOptions {
  readonly projectRoot: string;
  readonly target: string;
  readonly scope: Scope;
  readonly marker?: string;
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
  const marker = o.marker ?? 'sorry';
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
        const scan = scanMarkers(f, buf.toString('utf8'), marker);
        targets.push(...scan.targets.filter((t) => spec.line === null || t.line === spec.line));
        errors.push(...scan.errors);
      }
      return { tier: input.tier, targets, errors, ok: errors.length === 0 };
    },
  };
}
