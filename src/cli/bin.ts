#!/usr/bin/env node
/**
 * Executable entry point of the `handoff` binary. A reader that closes standard output early
 * (`handoff store load … | head`) ends nothing badly: the verb finishes and exits with its own
 * code. Any other failure writing standard output exits 74 (EX_IOERR) with one line on stderr;
 * an internal error exits 70.
 */
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
main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    io.err(`handoff: fatal: ${escapeControls((e as Error)?.stack ?? String(e))}\n`);
    process.exitCode = 70;
  },
);
