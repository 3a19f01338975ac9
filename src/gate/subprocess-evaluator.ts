/**
 * An {@link EvaluatorPort} backed by a subprocess speaking JSON: the request on stdin, the
 * response (`{"claims": [...]}`) on stdout. A process that cannot start is `unavailable`; one
 * that prints `{"error": {"kind": "no-key"|"unavailable", "detail"}}` reports that failure; a
 * non-zero exit without such an error is `unavailable`; unparsable stdout is `invalid-data`.
 * The process runs contained ({@link runContained}: argument array, own process group, session
 * sweep, bounded output); the deadline's abort signal fails the evaluation at once as `timeout`
 * while the containment stops the whole group. With `sandbox` it runs in the sandbox
 * (src/sandbox): its working directory read-only under a private layer that is thrown away — an
 * evaluator reads evidence and answers on stdout; nothing it writes reaches the host.
 */
import { realpath } from 'node:fs/promises';
import { runContained } from '../process/index.js';
import { runSandboxed, type SandboxNetwork } from '../sandbox/index.js';
import { EvaluatorFailure, type EvaluatorPort } from './evaluator.js';

/** Options of {@link subprocessEvaluator}. */
export interface SubprocessEvaluatorOptions {
  readonly cwd?: string;
  /** The evaluator's whole environment (default: `process.env`); it replaces, it does not merge. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Maximum characters read from stdout (default 8 MiB); more is invalid data. */
  readonly maxOutputBytes?: number;
  /**
   * Run in the sandbox (decide with `probeSandbox` first): `cwd` read-only, every write discarded,
   * private `$HOME` and `/tmp`; `network: 'allow'` keeps the host network (a model call). Omitted
   * or null: contained only.
   */
  readonly sandbox?: { readonly network: SandboxNetwork } | null;
}

/** No budget of its own: the gate's deadline (the abort signal) bounds an evaluation. */
const NO_BUDGET_MS = 2 ** 31 - 1;

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
  if (argv[0] === undefined) throw new TypeError('subprocessEvaluator needs a non-empty argument vector');
  const limit = options.maxOutputBytes ?? 8 * 1024 * 1024;
  return {
    id: `subprocess:${argv.join(' ')}`,
    evaluate: (request, { signal }) =>
      new Promise((resolve, reject) => {
        const onAbort = () => reject(new EvaluatorFailure('timeout', 'evaluator killed at the deadline'));
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        const contained = {
          env: options.env ?? process.env,
          inheritEnv: false,
          timeoutMs: NO_BUDGET_MS,
          signal,
          maxOutputBytes: limit,
        };
        const cwd = options.cwd ?? process.cwd();
        const sandbox = options.sandbox ?? null;
        const run =
          sandbox === null
            ? runContained(argv, JSON.stringify(request), { ...contained, cwd })
            : realpath(cwd).then((projectRoot) =>
                runSandboxed(argv, JSON.stringify(request), {
                  ...contained,
                  projectRoot,
                  owned: [],
                  network: sandbox.network,
                }),
              );
        run.then((r) => {
          signal.removeEventListener('abort', onAbort);
          if (signal.aborted) return; // already rejected as a timeout
          try {
            resolve(verdictOf(r, limit));
          } catch (e) {
            reject(e);
          }
        }, reject);
      }),
  };
}

/** Reads a finished evaluator process: the parsed response, or the {@link EvaluatorFailure}. */
function verdictOf(r: Awaited<ReturnType<typeof runContained>>, limit: number): unknown {
  if (r.spawnError !== null)
    throw new EvaluatorFailure('unavailable', `cannot start evaluator: ${r.spawnError}`);
  if (r.truncated) throw new EvaluatorFailure('invalid-data', `evaluator output exceeds ${limit} bytes`);
  let parsed: unknown;
  let parseError: string | null = null;
  try {
    parsed = JSON.parse(r.stdout.trim());
  } catch (e) {
    parseError = (e as Error).message;
  }
  const err = (parsed as { error?: { kind?: unknown; detail?: unknown } } | undefined)?.error;
  if (err !== undefined && typeof err === 'object' && err !== null) {
    const kind = err.kind === 'no-key' ? 'no-key' : 'unavailable';
    throw new EvaluatorFailure(kind, String(err.detail ?? 'evaluator reported an error'));
  }
  if (r.code !== 0) {
    const stderr = r.stderr.trim();
    throw new EvaluatorFailure(
      'unavailable',
      `evaluator exited with ${r.signal ?? r.code}${stderr ? `: ${stderr.slice(0, 500)}` : ''}`,
    );
  }
  if (parseError !== null)
    throw new EvaluatorFailure('invalid-data', `evaluator stdout is not JSON: ${parseError}`);
  return parsed;
}
