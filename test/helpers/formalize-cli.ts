/**
 * The CLI setup of a `handoff formalize` test (test/e2e/formalize-guided,
 * test/synthesis/formalize-commit-ask-cli): the example paper, drafter and worker as real child
 * processes, the human's answers read from `answers.txt` in the project, and an in-memory `CliIo`
 * that captures what the verb prints.
 */
import { fileURLToPath } from 'node:url';
import type { CliIo } from '../../src/cli/io.js';
import { TS_WORKER } from '../e2e/helpers.js';

/**
 * The absolute path of a file of `examples/formalize/` (the example paper, drafter and project).
 *
 * @example
 * ```ts
 * const paper = formalizeExample('paper.md');
 * ```
 */
export const formalizeExample = (f: string): string =>
  fileURLToPath(new URL(`../../examples/formalize/${f}`, import.meta.url));

/**
 * What a captured CLI run printed so far (see {@link captureIo}).
 *
 * @example
 * ```ts
 * const { o } = captureIo(dir); o.err; // '' before the verb runs
 * ```
 */
export interface CapturedOutput {
  out: string;
  err: string;
}

/**
 * A non-interactive `CliIo` whose working directory is `cwd` (empty stdin, empty environment, no
 * TTY) and whose stdout and stderr are appended to `o`.
 *
 * @example
 * ```ts
 * const { o, io } = captureIo(dir);
 * await formalizeCommand('guided', formalizeArgs(), io);
 * o.err; // the questions put to the human
 * ```
 */
export function captureIo(cwd: string): { o: CapturedOutput; io: CliIo } {
  const o: CapturedOutput = { out: '', err: '' };
  const io = {
    out: (t: string) => {
      o.out += t;
    },
    err: (t: string) => {
      o.err += t;
    },
    readStdin: async () => Buffer.alloc(0),
    env: {},
    cwd,
    isTTY: false,
  } as unknown as CliIo;
  return { o, io };
}

/**
 * The argv of `handoff formalize` over the example paper into `Paper.lean`, with the example
 * drafter and worker run by this Node and the answers of `answers.txt`; `extra` is appended.
 *
 * @example
 * ```ts
 * formalizeArgs('--commit', 'ask').at(-1); // 'ask'
 * ```
 */
export const formalizeArgs = (...extra: string[]): string[] => [
  '--source',
  formalizeExample('paper.md'),
  '--target',
  'Paper.lean',
  '--drafter',
  `${process.execPath} ${formalizeExample('drafter.mjs')}`,
  '--worker',
  `${process.execPath} ${TS_WORKER}`,
  '--answers',
  'answers.txt',
  ...extra,
];
