/**
 * The CLI's input/output seam: every verb writes through a {@link CliIo}, so the CLI can be run
 * in-process in tests and as the `handoff` binary alike. `main` hands every verb an
 * {@link escapingIo}, so no control character of a worker string reaches a terminal (see
 * `terminal-text.ts`), and {@link processIo} treats a closed standard output as a normal end.
 */
import { readFile } from 'node:fs/promises';
import { HandoffError } from '../errors/index.js';
import { escapeControls, toTerminalJson } from './terminal-text.js';

/** Streams and environment a verb may use. */
export interface CliIo {
  /** Writes to standard output. */
  readonly out: (text: string) => void;
  /** Writes to standard error. */
  readonly err: (text: string) => void;
  /** Reads all of standard input as bytes. */
  readonly readStdin: () => Promise<Buffer>;
  /** Environment variables. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Working directory against which relative paths resolve. */
  readonly cwd: string;
  /** True when stdout is an interactive terminal. */
  readonly isTTY: boolean;
  /**
   * Unescaped writers for the CLI's own terminal control sequences (the status line `handoff run`
   * rewrites in place on a TTY). Any text mixed in must already be escaped (`escapeLine`).
   * Absent: `out` and `err` are the raw writers. {@link escapingIo} sets it.
   */
  readonly raw?: { readonly out: (text: string) => void; readonly err: (text: string) => void };
}

/**
 * The {@link CliIo} every verb receives from `main`: `out` and `err` show control
 * characters as `\uXXXX` escapes (`escapeControls`: `\n` and `\t` kept), `raw` keeps the
 * unescaped writers for the CLI's own control sequences. JSON that {@link printJson} (or plain
 * `JSON.stringify`) produced passes unchanged or stays valid JSON of the same value: its only
 * controls are inside strings, where `\uXXXX` is a JSON escape. Wrapping twice is harmless.
 *
 * @example
 * ```ts
 * const safe = escapingIo(processIo());
 * safe.out('title\x1b]0;pwned\x07\n'); // writes 'title\\u001b]0;pwned\\u0007\n'
 * ```
 */
export function escapingIo(io: CliIo): CliIo {
  return {
    ...io,
    out: (text) => io.out(escapeControls(text)),
    err: (text) => io.err(escapeControls(text)),
    raw: io.raw ?? { out: io.out, err: io.err },
  };
}

/** The process-backed {@link CliIo}, plus what went wrong writing standard output. */
export interface ProcessIo extends CliIo {
  /**
   * The first error writing standard output other than a closed reader (EPIPE), or null. The
   * binary exits 74 with one line on stderr when it is set.
   */
  readonly outputFailure: () => NodeJS.ErrnoException | null;
}

/**
 * A writer for `stream` that survives the reader going away: after an error (EPIPE when the
 * reading end of a pipe closed, ENOSPC on a full disk, …) further writes are dropped instead of
 * raising, and the error is handed to `onError` once.
 */
function guardedWriter(
  stream: NodeJS.WriteStream,
  onError: (e: NodeJS.ErrnoException) => void,
): (text: string) => void {
  let failed = false;
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (failed) return;
    failed = true;
    onError(e);
  });
  return (text) => {
    if (!failed && !stream.destroyed) stream.write(text);
  };
}

/**
 * The process-backed {@link CliIo}. A closed standard output (the reader of a pipe went away,
 * `handoff store load … | head -c 400`) is a normal end: later output is dropped and the verb
 * finishes with its own exit code, no stack trace. Any other standard-output error is kept for
 * {@link ProcessIo.outputFailure}; standard-error errors are dropped (there is nowhere to report).
 *
 * @example
 * ```ts
 * const code = await main(process.argv.slice(2), processIo());
 * ```
 */
export function processIo(): ProcessIo {
  let failure: NodeJS.ErrnoException | null = null;
  return {
    out: guardedWriter(process.stdout, (e) => {
      if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') failure = e;
    }),
    err: guardedWriter(process.stderr, () => {}),
    outputFailure: () => failure,
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    },
    env: process.env,
    cwd: process.cwd(),
    isTTY: Boolean(process.stdout.isTTY),
  };
}

/**
 * Reads a `FILE|-` argument as bytes (`-` is standard input, byte-exact).
 *
 * @example
 * ```ts
 * const bytes = await readInput(io, '-');
 * ```
 * @throws HandoffError `usage` when the file cannot be read.
 */
export async function readInput(io: CliIo, source: string): Promise<Buffer> {
  if (source === '-') return io.readStdin();
  try {
    return await readFile(source.startsWith('/') ? source : `${io.cwd}/${source}`);
  } catch (e) {
    throw new HandoffError(
      'usage',
      `cannot read ${source}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
      {
        details: { file: source },
      },
    );
  }
}

/**
 * Reads and parses a `FILE|-` argument as JSON.
 *
 * @example
 * ```ts
 * const parsed = await readJsonInput(io, 'dispatch.json');
 * if (!parsed.ok) … // parsed.error names the file and the JSON defect
 * ```
 * @throws HandoffError `usage` when the file cannot be read.
 */
export async function readJsonInput(
  io: CliIo,
  source: string,
): Promise<{ ok: true; value: unknown; text: string } | { ok: false; error: string; text: string }> {
  const text = (await readInput(io, source)).toString('utf8');
  try {
    return { ok: true, value: JSON.parse(text) as unknown, text };
  } catch (e) {
    return {
      ok: false,
      error: `${source === '-' ? 'stdin' : source}: not JSON (${(e as Error).message})`,
      text,
    };
  }
}

/**
 * Writes `value` as pretty JSON plus a newline to stdout, with every control character inside
 * its strings escaped (`toTerminalJson`): the text parses back to exactly `value`.
 *
 * @example
 * ```ts
 * printJson(io, { ok: true });
 * ```
 */
export function printJson(io: CliIo, value: unknown): void {
  io.out(`${toTerminalJson(value)}\n`);
}
