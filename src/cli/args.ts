/**
 * Argument parsing for the CLI verbs, on `node:util` parseArgs, with usage errors as
 * {@link HandoffError} code `usage` (exit 2).
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { HandoffError } from '../errors/index.js';

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
 * (they are data: file names with leading dashes, spaces, quotes…).
 *
 * @example
 * ```ts
 * const { values, rest } = parseVerbArgs(argv, { baseline: { type: 'string' } });
 * ```
 * @throws HandoffError `usage` for unknown options or missing option values.
 */
export function parseVerbArgs(
  argv: readonly string[],
  options: OptionSpec,
  allowPositionals = true,
): ParsedArgs {
  const dd = argv.indexOf('--');
  const head = dd === -1 ? argv : argv.slice(0, dd);
  const rest = dd === -1 ? [] : argv.slice(dd + 1);
  try {
    const parsed = parseArgs({ args: [...head], options, allowPositionals, strict: true });
    return {
      values: parsed.values as ParsedArgs['values'],
      positionals: parsed.positionals,
      rest: [...rest],
    };
  } catch (e) {
    throw new HandoffError('usage', (e as Error).message, { cause: e });
  }
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
