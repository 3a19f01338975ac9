/**
 * `HelpRequest`: the signal a verb's argument parser raises when `--help`/`-h` is given as an
 * option. Not a failure and never a {@link HandoffError}: it does not leave the CLI — `main`
 * answers it with the command's help text on stdout and exit 0. Because help is parsed like any
 * other option, a dash-leading option value (`--only -h`) stays a usage error, never help.
 */

/**
 * Raised by `parseVerbArgs` when the arguments ask for help.
 *
 * @example
 * ```ts
 * try { await command.run(argv, io); } catch (e) { if (e instanceof HelpRequest) io.out(command.help); }
 * ```
 */
export class HelpRequest extends Error {
  constructor() {
    super('help requested');
    this.name = 'HelpRequest';
  }
}
