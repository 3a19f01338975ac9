/**
 * The shape every CLI verb-group module exports.
 */
import type { OptionSpec } from './args.js';
import type { CliIo } from './io.js';

/** A verb group of the `handoff` CLI (`handoff <name> …`). */
export interface CliCommand {
  /** Full help text shown by `handoff <name> --help`. */
  readonly help: string;
  /**
   * The sub-verbs this group dispatches (`handoff <name> <verb> …`), taken from the module's own
   * dispatch table; empty for a group without verbs. Each answers `--help` with exit 0.
   */
  readonly verbs: readonly string[];
  /**
   * The option table of each verb that has its own (store, baseline, persist): `handoff <name>
   * <verb> --help` lists them. The rest of a verb's help comes from {@link help} (verb-help.ts).
   */
  readonly verbOptions?: Readonly<Record<string, OptionSpec>>;
  /** Runs the verb with the arguments after its name; resolves to the exit code. */
  readonly run: (argv: readonly string[], io: CliIo) => Promise<number>;
}

/** Exit code for usage errors, shared by every verb. */
export const EXIT_USAGE = 2;
