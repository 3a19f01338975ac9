#!/usr/bin/env node
/**
 * Executable entry point of the `handoff` binary.
 */
import { processIo } from './io.js';
import { main } from './main.js';
import { escapeControls } from './terminal-text.js';

main(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`handoff: fatal: ${escapeControls((e as Error)?.stack ?? String(e))}\n`);
    process.exitCode = 70;
  },
);
