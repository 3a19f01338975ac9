export type { OptionSpec, ParsedArgs } from './args.js';
export { optionalString, parseVerbArgs, requireString } from './args.js';
export type { CliCommand } from './command.js';
export { EXIT_USAGE } from './command.js';
export { HelpRequest } from './help-request.js';
export type { CliIo, ProcessIo } from './io.js';
export { escapingIo, printJson, processIo, readInput, readJsonInput } from './io.js';
export { GROUPS, main } from './main.js';
export { escapeControls, escapeLine, toTerminalJson } from './terminal-text.js';
