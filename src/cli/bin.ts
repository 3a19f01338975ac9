#!/usr/bin/env node
/**
 * Executable entry point of the `handoff` binary. A reader that closes standard output early
 * (`handoff store load … | head`) ends nothing badly: the verb finishes and exits with its own
 * code. Any other failure writing standard output exits 74 (EX_IOERR) with one line on stderr;
 * an internal error exits 70. The first SIGINT or SIGTERM ends the process through `exit` (status
 * 128 + the signal's number, as a shell reports a death by that signal), so its exit hooks run: a
 * persisted run's held store lock (`handoff run --persist`) and a chain's held lock body are
 * released instead of being left for `handoff store recover`.
 */
import { constants } from 'node:os';
import { processIo } from './io.js';
import { main } from './main.js';
import { escapeControls } from './terminal-text.js';

const io = processIo();
// a write error is emitted after the write (next tick), possibly after main resolved: decide at exit
process.on('exit', () => {
  const failure = io.outputFailure();
  if (failure === null) return;
  io.err(`handoff: cannot write to standard output: ${escapeControls(failure.code ?? failure.message)}\n`);
  process.exitCode = 74;
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => process.exit(128 + constants.signals[signal]));
}
main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    io.err(`handoff: fatal: ${escapeControls((e as Error)?.stack ?? String(e))}\n`);
    process.exitCode = 70;
  },
);
