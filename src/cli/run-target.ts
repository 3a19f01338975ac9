/**
 * `handoff run`'s target check (the I/O half of src/cycle/target-exists.ts): before any worker
 * runs, the `--target` must name a file, a directory or a marked `file:line` of the project; a
 * typo is a usage error (exit 2) naming it, never a run that ends `solved` having done nothing.
 */
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { noTargetMessage, type PathKind, type TargetFacts, targetVerdict } from '../cycle/target-exists.js';
import { HandoffError } from '../errors/index.js';
import { MAX_CHECKED_BYTES } from '../profile/index.js';
import { splitTarget } from '../runtime/marker-diagnostics.js';
import { scanMarkers } from '../runtime/marker-scan.js';

/** What {@link checkRunTarget} needs to know about the run. */
export interface RunTargetCheck {
  readonly projectRoot: string;
  readonly target: string;
  /** The profile's markers (or `--marker`). */
  readonly markers: readonly string[];
  /** The profile's inline error-comment prefix (`--` for Lean), or null. */
  readonly errorComment: string | null;
  /** False when a `--diagnostics` command defines the targets: only existence is checked. */
  readonly checkMarkers: boolean;
  /**
   * The run's `--scope`: only `sorry` reads a `file:line` target as one line (the runtime's own
   * rule, `splitTarget` in src/runtime/marker-diagnostics.ts); any other scope takes it as a path.
   */
  readonly scope: string;
  /** The profile's name and the extensions its built-in scan reads (with `checkMarkers`). */
  readonly profile?: { readonly name: string; readonly sourceExtensions: readonly string[] };
}

async function kindOf(path: string): Promise<PathKind> {
  const st = await stat(path).catch(() => null);
  if (st === null) return 'missing';
  return st.isDirectory() ? 'directory' : 'file';
}

/**
 * Gathers the {@link TargetFacts} of a target: what it names, and for a `file:line` whose whole
 * text names nothing, the file's line count and marked lines.
 *
 * @example
 * ```ts
 * await runTargetFacts({ projectRoot: '/repo', target: 'A.lean:4', markers: ['sorry'],
 *   errorComment: '--', checkMarkers: true, scope: 'sorry' });
 * // { target: 'A.lean:4', whole: 'missing', split: { file: 'A.lean', line: 4, kind: 'file', … } }
 * ```
 */
export async function runTargetFacts(c: RunTargetCheck): Promise<TargetFacts> {
  const whole = await kindOf(resolve(c.projectRoot, c.target));
  const { file, line } = splitTarget(c.target);
  const scan =
    c.checkMarkers && c.profile !== undefined
      ? { scan: { profile: c.profile.name, sourceExtensions: c.profile.sourceExtensions } }
      : {};
  if (whole !== 'missing' || line === null) return { target: c.target, whole, markers: c.markers, ...scan };
  if (c.scope !== 'sorry')
    return { target: c.target, whole, markers: c.markers, ...scan, lineOutsideSorry: true };
  const abs = resolve(c.projectRoot, file);
  const kind = await kindOf(abs);
  let lineCount = 0;
  let markerLines: number[] | null = null;
  if (kind === 'file') {
    const st = await stat(abs);
    const text = st.size > MAX_CHECKED_BYTES ? null : await readFile(abs, 'utf8').catch(() => null);
    if (text !== null) {
      lineCount = text.split(/\r?\n/).length;
      markerLines = c.checkMarkers
        ? scanMarkers(file, text, c.markers, c.errorComment).targets.map((t) => t.line)
        : null;
    } else {
      // unreadable or too large to scan: the run's own scan decides
      lineCount = Number.MAX_SAFE_INTEGER;
    }
  }
  return {
    target: c.target,
    whole,
    markers: c.markers,
    ...scan,
    split: { file, line, kind, lineCount, markerLines },
  };
}

/**
 * Refuses a target that names nothing in the project, as a usage error:
 * `no target "nosuch" in /repo: no such file or directory`.
 *
 * @example
 * ```ts
 * await checkRunTarget({ projectRoot: '/repo', target: 'nosuch', markers: ['sorry'],
 *   errorComment: '--', checkMarkers: true, scope: 'file' }); // throws HandoffError usage
 * ```
 * @throws HandoffError `usage` when the target names no file, directory or marked line.
 */
export async function checkRunTarget(c: RunTargetCheck): Promise<void> {
  const verdict = targetVerdict(await runTargetFacts(c));
  if (!verdict.ok) {
    throw new HandoffError('usage', noTargetMessage(c.target, c.projectRoot, verdict.reason), {
      details: { target: c.target, project: c.projectRoot },
    });
  }
}
