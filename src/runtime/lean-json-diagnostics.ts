/**
 * A diagnostics port over a real Lean (layer 3): runs `lake env lean --json FILE` (any argv; the
 * file is appended) once per file of the question and reads Lean's JSON messages
 * (src/profile/lean-json.ts): `declaration uses sorry` warnings are the targets, errors the errors.
 * The command runs like `commandDiagnostics`' checker — in the run's sandbox when it has one (the
 * project read-only, the runtime's snapshot of the accepted bytes placed in its layer), else
 * contained with the snapshot's files compared with the live tree around it — and argument arrays
 * only, never a shell. docs/cycle.md § A real Lean.
 */
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { TargetInfo } from '../cycle/types.js';
import { HandoffError } from '../errors/index.js';
import { MAX_CHECKED_BYTES } from '../profile/checked-text.js';
import { parseLeanJson } from '../profile/lean-json.js';
import { type CommandDiagnosticsOptions, checkSnapshot } from './command-ports.js';
import type { DiagnosticsPort } from './ports.js';
import { checkSandboxNow, runOnSnapshot } from './snapshot-check.js';

/**
 * Options of {@link leanJsonDiagnostics}: the snapshot and sandbox plumbing of
 * `commandDiagnostics`, plus the files a question that names none covers.
 *
 * @example
 * ```ts
 * const o: LeanJsonDiagnosticsOptions = {
 *   sandbox: { network: 'deny' },
 *   allFiles: () => ['Demo/Basic.lean', 'Demo/Extra.lean'],
 * };
 * ```
 */
export interface LeanJsonDiagnosticsOptions extends CommandDiagnosticsOptions {
  /**
   * The project-relative `.lean` files checked when a question names no file (`discover`,
   * `checkpoint` over the whole scope). Default: none — the command runs once with no file
   * argument (a wrapper that checks the whole project itself).
   */
  readonly allFiles?: () => readonly string[] | Promise<readonly string[]>;
}

/** The file's text the runtime accepted (its snapshot), else the live file; null when unreadable. */
async function sourceOf(abs: string, options: LeanJsonDiagnosticsOptions): Promise<string | null> {
  const held = options.bytesOf?.(abs);
  if (held !== undefined) return held.bytes === null ? null : held.bytes.toString('utf8');
  const st = await stat(abs).catch(() => null);
  if (st === null || !st.isFile() || st.size > MAX_CHECKED_BYTES) return null;
  return readFile(abs, 'utf8').catch(() => null);
}

/**
 * A diagnostics port that runs `argv FILE` per file of the question (e.g.
 * `['lake', 'env', 'lean', '--json']`) in the project `root` and reads Lean's JSON messages:
 * every `declaration uses sorry` is a target (`file:line`, its goal the declaration's name), every
 * error an error (`file:line:text`); `ok` when no error was reported and the check judged the
 * accepted bytes. A command that cannot start or times out is an `io_error`; one that exits
 * non-zero without a Lean error message is an error on that file (`file:0:…`), never a pass.
 *
 * @example
 * ```ts
 * const root = '/repo';
 * const result = await runProject({
 *   projectRoot: root,
 *   diagnostics: leanJsonDiagnostics(['lake', 'env', 'lean', '--json'], root, 600_000, {
 *     allFiles: () => ['Demo/Basic.lean'],
 *   }),
 *   // … worker and the other ports
 * });
 * ```
 */
export function leanJsonDiagnostics(
  argv: readonly string[],
  root: string,
  timeoutMs: number,
  options: LeanJsonDiagnosticsOptions = {},
): DiagnosticsPort {
  if (argv.length === 0) throw new HandoffError('usage', 'leanJsonDiagnostics needs a command');
  return {
    async diagnose(input) {
      const files = input.files.length > 0 ? input.files : [...((await options.allFiles?.()) ?? [])];
      const runs: (string | null)[] = files.length > 0 ? [...new Set(files)] : [null];
      const targets: TargetInfo[] = [];
      const errors: string[] = [];
      const drifted = new Set<string>();
      for (const file of runs) {
        const snapshot = checkSnapshot(file === null ? [] : [file], root, options);
        const { result, drift } = await runOnSnapshot(file === null ? argv : [...argv, file], '', {
          cwd: root,
          timeoutMs,
          sandbox: checkSandboxNow(options.sandbox),
          snapshot,
        });
        if (result.spawnError !== null)
          throw new HandoffError('io_error', `cannot start ${argv[0]}: ${result.spawnError}`);
        if (result.timedOut) throw new HandoffError('io_error', `${argv[0]} timed out`);
        for (const f of drift) drifted.add(f);
        const text = file === null ? null : await sourceOf(resolve(root, file), options);
        const read = parseLeanJson(result.stdout, {
          root,
          ...(file === null ? {} : { defaultFile: file }),
          source: (f) => (f === file ? text : null),
        });
        for (const t of read.targets) targets.push({ id: t.id, file: t.file, line: t.line, goal: t.goal });
        errors.push(...read.errors);
        if (result.code !== 0 && read.errors.length === 0) {
          const tail = (result.stderr.trim() || read.unparsed.slice(-3).join(' | ')).slice(-300);
          errors.push(
            `${file ?? '.'}:0:${argv[0]} exited with ${result.code}${tail === '' ? '' : `: ${tail}`}`,
          );
        }
      }
      // a check that may have read other bytes than the accepted ones judged nothing
      for (const f of [...drifted].sort())
        errors.push(`${f}:0:the check did not judge the accepted bytes: changed on disk around it`);
      return { tier: input.tier, targets, errors, ok: errors.length === 0 };
    },
  };
}
