/**
 * An {@link EvaluatorPort} backed by a subprocess speaking JSON: the request on stdin, the
 * response (`{"claims": [...]}`) on stdout. A process that cannot start is `unavailable`; one
 * that prints `{"error": {"kind": "no-key"|"unavailable", "detail"}}` reports that failure; a
 * non-zero exit without such an error is `unavailable`; unparsable stdout is `invalid-data`.
 * The process is killed when the deadline's abort signal fires. Argument arrays only.
 */
import { spawn } from 'node:child_process';
import { EvaluatorFailure, type EvaluatorPort } from './evaluator.js';

/** Options of {@link subprocessEvaluator}. */
export interface SubprocessEvaluatorOptions {
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Maximum bytes read from stdout (default 8 MiB); more is invalid data. */
  readonly maxOutputBytes?: number;
}

/**
 * Creates a subprocess evaluator from an argument vector.
 *
 * @example
 * ```ts
 * const port = subprocessEvaluator(['node', 'examples/gate/evaluator.mjs']);
 * const a = await runEvaluator({ port, request, deadlineMs: 10_000, now });
 * ```
 */
export function subprocessEvaluator(
  argv: readonly string[],
  options: SubprocessEvaluatorOptions = {},
): EvaluatorPort {
  const [file, ...args] = argv;
  if (file === undefined) throw new TypeError('subprocessEvaluator needs a non-empty argument vector');
  const limit = options.maxOutputBytes ?? 8 * 1024 * 1024;
  return {
    id: `subprocess:${argv.join(' ')}`,
    evaluate: (request, { signal }) =>
      new Promise((resolve, reject) => {
        let child: ReturnType<typeof spawn>;
        try {
          child = spawn(file, args, {
            cwd: options.cwd,
            env: (options.env ?? process.env) as NodeJS.ProcessEnv,
            stdio: ['pipe', 'pipe', 'pipe'],
          });
        } catch (e) {
          reject(new EvaluatorFailure('unavailable', `cannot start evaluator: ${(e as Error).message}`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        let stderr = '';
        let settled = false;
        const settle = (f: () => void) => {
          if (!settled) {
            settled = true;
            signal.removeEventListener('abort', onAbort);
            f();
          }
        };
        const onAbort = () => {
          child.kill('SIGKILL');
          settle(() => reject(new EvaluatorFailure('timeout', 'evaluator killed at the deadline')));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        child.on('error', (e: NodeJS.ErrnoException) =>
          settle(() =>
            reject(new EvaluatorFailure('unavailable', `cannot start evaluator: ${e.code ?? e.message}`)),
          ),
        );
        child.stdout?.on('data', (d: Buffer) => {
          size += d.length;
          if (size > limit) {
            child.kill('SIGKILL');
            settle(() =>
              reject(new EvaluatorFailure('invalid-data', `evaluator output exceeds ${limit} bytes`)),
            );
            return;
          }
          chunks.push(d);
        });
        child.stderr?.setEncoding('utf8').on('data', (d: string) => {
          if (stderr.length < 4096) stderr += d;
        });
        child.on('close', (code, sig) => {
          const text = Buffer.concat(chunks).toString('utf8').trim();
          let parsed: unknown;
          let parseError: string | null = null;
          try {
            parsed = JSON.parse(text);
          } catch (e) {
            parseError = (e as Error).message;
          }
          const err = (parsed as { error?: { kind?: unknown; detail?: unknown } } | undefined)?.error;
          if (err !== undefined && typeof err === 'object' && err !== null) {
            const kind = err.kind === 'no-key' ? 'no-key' : 'unavailable';
            settle(() =>
              reject(new EvaluatorFailure(kind, String(err.detail ?? 'evaluator reported an error'))),
            );
            return;
          }
          if (code !== 0) {
            settle(() =>
              reject(
                new EvaluatorFailure(
                  'unavailable',
                  `evaluator exited with ${sig ?? code}${stderr ? `: ${stderr.trim().slice(0, 500)}` : ''}`,
                ),
              ),
            );
            return;
          }
          if (parseError !== null) {
            settle(() =>
              reject(new EvaluatorFailure('invalid-data', `evaluator stdout is not JSON: ${parseError}`)),
            );
            return;
          }
          settle(() => resolve(parsed));
        });
        child.stdin?.on('error', () => {});
        child.stdin?.end(JSON.stringify(request));
      }),
  };
}
