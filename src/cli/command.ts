/**
 * The shape every CLI verb-group module exports.
 */
import type { CliIo } from './io.js';

/** A verb group of the `handoff` CLI (`handoff <name> …`). */
export interface CliCommand {
  /** One-line summary shown by `handoff --help`. */
  readonly summary: string;
  /** Full help text shown by `handoff <name> --help`. */
  readonly help: string;
  /** Runs the verb with the arguments after its name; resolves to the exit code. */
  readonly run: (argv: readonly string[], io: CliIo) => Promise<number>;
}

/** Exit code for usage errors, shared by every verb. */
export const EXIT_USAGE = 2;
