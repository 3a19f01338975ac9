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
import { evaluatorVerdict } from './evaluator-reply.js';

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

/** Reads a finished evaluator process through the one mapping ({@link evaluatorVerdict}). */
function verdictOf(r: Awaited<ReturnType<typeof runContained>>, limit: number): unknown {
  const stderr = r.stderr.trim();
  return evaluatorVerdict({
    unreachable: r.spawnError === null ? null : `cannot start evaluator: ${r.spawnError}`,
    truncated: r.truncated,
    limit,
    source: 'stdout',
    body: r.stdout,
    failed:
      r.code === 0
        ? null
        : `evaluator exited with ${r.signal ?? r.code}${stderr ? `: ${stderr.slice(0, 500)}` : ''}`,
  });
}
