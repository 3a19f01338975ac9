/**
 * Argument parsing for the CLI verbs, on `node:util` parseArgs, with usage errors as
 * {@link HandoffError} code `usage` (exit 2).
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { HandoffError } from '../errors/index.js';
import { suggestName } from './did-you-mean.js';
import { HelpRequest } from './help-request.js';

/** The help option every verb accepts (unless its own table defines `help`). */
const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

/** Option table accepted by {@link parseVerbArgs}. */
export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/** Parsed options and positionals; `rest` holds everything after a literal `--`. */
export interface ParsedArgs {
  readonly values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  readonly positionals: string[];
  readonly rest: string[];
}

/**
 * Parses `argv` strictly against `options`. Arguments after `--` are returned untouched in `rest`
 * (they are data: file names with leading dashes, spaces, quotes…). `--help`/`-h` is parsed like
 * any option and raises {@link HelpRequest} (answered by `main` with the help text, exit 0),
 * unless `options` defines `help` itself (then the caller reads `values.help`).
 *
 * @example
 * ```ts
 * const { values, rest } = parseVerbArgs(argv, { baseline: { type: 'string' } });
 * ```
 * @throws HandoffError `usage` for unknown options or missing option values.
 * @throws HelpRequest when `--help`/`-h` is given and `options` has no `help` of its own.
 */
export function parseVerbArgs(
  argv: readonly string[],
  options: OptionSpec,
  allowPositionals = true,
): ParsedArgs {
  const dd = argv.indexOf('--');
  const head = dd === -1 ? argv : argv.slice(0, dd);
  const rest = dd === -1 ? [] : argv.slice(dd + 1);
  const ownHelp = Object.hasOwn(options, 'help');
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...head],
      options: ownHelp ? options : { ...options, ...HELP_OPTION },
      allowPositionals,
      strict: true,
    });
  } catch (e) {
    throw new HandoffError('usage', usageMessage(e as NodeJS.ErrnoException, options), { cause: e });
  }
  if (!ownHelp && parsed.values.help === true) throw new HelpRequest();
  return {
    values: parsed.values as ParsedArgs['values'],
    positionals: parsed.positionals,
    rest: [...rest],
  };
}

/**
 * Returns a string option or throws a usage error naming it.
 *
 * @example
 * ```ts
 * const file = requireString(values, 'dispatch');
 * ```
 * @throws HandoffError `usage` when absent.
 */
export function requireString(values: ParsedArgs['values'], name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new HandoffError('usage', `missing required option --${name}`);
  return v;
}

/**
 * Returns an optional string option.
 *
 * @example
 * ```ts
 * const root = optionalString(values, 'root');
 * ```
 */
export function optionalString(values: ParsedArgs['values'], name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

/**
 * One line a person can act on for a `node:util` parseArgs refusal: an unknown option names the
 * closest known one (`unknown option --targt (did you mean --target?)`), a missing value and a
 * stray argument say what to do; anything else keeps parseArgs' own message.
 *
 * @example
 * ```ts
 * usageMessage(Object.assign(new Error("Unknown option '--targt'"), { code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' }),
 *   { target: { type: 'string' } }); // 'unknown option --targt (did you mean --target?)'
 * ```
 */
export function usageMessage(e: NodeJS.ErrnoException, options: OptionSpec): string {
  const quoted = /'([^']*)'/.exec(e.message)?.[1];
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted !== undefined) {
    const name = quoted.replace(/^-+/, '').split('=')[0] ?? '';
    const known = [...Object.keys(options), ...(Object.hasOwn(options, 'help') ? [] : ['help'])];
    const suggestion = quoted.startsWith('--') ? suggestName(name, known) : null;
    return suggestion === null
      ? `unknown option ${quoted} (--help lists the options)`
      : `unknown option ${quoted} (did you mean --${suggestion}?)`;
  }
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && quoted !== undefined) {
    const option = quoted.split(' ')[0] ?? quoted;
    if (/argument missing/.test(e.message)) return `option ${option} needs a value (${quoted})`;
    if (/does not take an argument/.test(e.message)) return `option ${option} takes no value`;
  }
  if (e.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && quoted !== undefined) {
    return `unexpected argument '${quoted}' (this command takes options only; --help lists them)`;
  }
  return e.message;
}
