/**
 * A `HeaderExtractor` backed by a command (layer 3) speaking the header-extract JSON protocol:
 * `header-extract-request/v1` on stdin then EOF, one `header-extract-response/v1` on stdout, exit
 * 0. Run as a contained process (src/process: argument array, no shell, its own process group and
 * session sweep, killed on timeout — SIGTERM, SIGKILL two seconds later); stdout is bounded. Every failure — cannot start,
 * non-zero exit, timeout, oversized or non-JSON output, schema mismatch, an error the extractor
 * reports — is `{ ok: false, error }`; it never throws.
 */
import { runContained } from '../process/index.js';
import { safeValidate } from '../validation/index.js';
import { HeaderExtractResponseSchema, headerExtractRequest } from './extract-protocol.js';
import type { HeaderExtractor } from './extractor.js';
import { validatedHeaders } from './extractor.js';
import type { HeaderExtraction } from './header.js';

/**
 * Options of {@link commandHeaderExtractor}.
 *
 * @example
 * ```ts
 * const o: CommandExtractorOptions = { cwd: '/project', timeoutMs: 10_000, maxOutputBytes: 1 << 20 };
 * ```
 */
export interface CommandExtractorOptions {
  /** Working directory of the command. */
  readonly cwd: string;
  /** Budget of one extraction in milliseconds; the process group is killed after it. */
  readonly timeoutMs: number;
  /** Extra environment variables (merged over the runtime's environment). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Largest stdout accepted, in characters (default 8 MiB); more is a failure. */
  readonly maxOutputBytes?: number;
}

/**
 * Default bound of an extractor's stdout, in characters.
 *
 * @example
 * ```ts
 * commandHeaderExtractor(argv, { cwd, timeoutMs, maxOutputBytes: DEFAULT_EXTRACTOR_OUTPUT_LIMIT / 8 });
 * ```
 */
export const DEFAULT_EXTRACTOR_OUTPUT_LIMIT = 8 * 1024 * 1024;

/** Longest piece of stderr quoted in an error. */
const STDERR_TAIL = 500;

/**
 * Creates an extractor that runs `argv` once per file.
 *
 * @example
 * ```ts
 * const py = commandHeaderExtractor(['python3', 'examples/extractors/python-signatures.py'], {
 *   cwd: process.cwd(),
 *   timeoutMs: 10_000,
 * });
 * const r = await py.extract('/p/m.py', 'def area(w: int, h: int) -> int:\n    return w * h\n');
 * // { ok: true, headers: [{ name: 'area', kind: 'def', signature: '(w: int, h: int) -> int', line: 1 }] }
 * ```
 */
export function commandHeaderExtractor(argv: readonly string[], o: CommandExtractorOptions): HeaderExtractor {
  const limit = o.maxOutputBytes ?? DEFAULT_EXTRACTOR_OUTPUT_LIMIT;
  return {
    extract: async (file, text) => {
      if (argv.length === 0 || argv[0] === '') return { ok: false, error: 'extractor command is empty' };
      try {
        const r = await runContained(argv, headerExtractRequest(file, text), {
          cwd: o.cwd,
          timeoutMs: o.timeoutMs,
          maxOutputBytes: limit,
          ...(o.env === undefined ? {} : { env: o.env }),
        });
        if (r.spawnError !== null) return { ok: false, error: `cannot start extractor: ${r.spawnError}` };
        if (r.timedOut) return { ok: false, error: `extractor timed out after ${o.timeoutMs} ms` };
        if (r.truncated) return { ok: false, error: `extractor output exceeds ${limit} bytes` };
        if (r.code !== 0) {
          const tail = r.stderr.trim().slice(-STDERR_TAIL);
          return {
            ok: false,
            error: `extractor exited with ${r.signal ?? r.code}${tail ? `: ${tail}` : ''}`,
          };
        }
        return parseResponse(r.stdout);
      } catch (e) {
        return { ok: false, error: `cannot run extractor: ${e instanceof Error ? e.message : String(e)}` };
      }
    },
  };
}

/**
 * Reads an extractor's stdout as one `header-extract-response/v1`.
 *
 * @example
 * ```ts
 * parseResponse('{"schema":"header-extract-response/v1","headers":[]}'); // { ok: true, headers: [] }
 * parseResponse('hello'); // { ok: false, error: 'extractor stdout is not JSON: …' }
 * ```
 */
export function parseResponse(stdout: string): HeaderExtraction {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch (e) {
    return {
      ok: false,
      error: `extractor stdout is not JSON: ${(e as Error).message.slice(0, STDERR_TAIL)}`,
    };
  }
  const r = safeValidate(HeaderExtractResponseSchema, parsed);
  if (!r.ok) {
    const issue = r.issues[0];
    return {
      ok: false,
      error: `extractor response is not header-extract-response/v1: ${issue?.path || '(root)'}: ${issue?.message ?? ''}`,
    };
  }
  if ('error' in r.value)
    return { ok: false, error: `extractor reported: ${r.value.error.slice(0, STDERR_TAIL)}` };
  return validatedHeaders(r.value.headers);
}
