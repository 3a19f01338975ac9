export { main, GROUPS } from './main.js';
export { processIo, readInput, readJsonInput, printJson } from './io.js';
export type { CliIo } from './io.js';
export type { CliCommand } from './command.js';
export { EXIT_USAGE } from './command.js';
export { parseVerbArgs, requireString, optionalString } from './args.js';
export type { OptionSpec, ParsedArgs } from './args.js';
