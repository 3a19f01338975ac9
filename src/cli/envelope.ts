/**
 * `handoff envelope build|validate|prefix`: builds a dev-loop handoff envelope from a resolver
 * output, validates one, or prints the digest of its byte-stable prefix.
 *
 * Exit codes: 0 ok; 2 usage (unknown verb/option, unreadable file, malformed option JSON);
 * 3 refused or invalid (build: a fail-closed input or settings error; validate/prefix: an
 * invalid envelope or text that is not JSON).
 */
import { isAbsolute, join } from 'node:path';
import {
  buildHandoffEnvelope,
  envelopePrefix,
  loadDevLoopsSettings,
  validateHandoffEnvelope,
} from '../envelope/index.js';
import { DEFAULT_SANCTIONED_COMMANDS } from '../envelope/sanctioned-default.js';
import { HandoffError, isHandoffError } from '../errors/index.js';
import { optionalString, parseVerbArgs, requireString } from './args.js';
import type { CliCommand } from './command.js';
import { errorExitCode } from './exit-codes.js';
import { type CliIo, printJson, readInput, readJsonInput } from './io.js';
import { toTerminalJson } from './terminal-text.js';

/**
 * Exit code of a refused build or an invalid envelope.
 *
 * @example
 * ```ts
 * process.exitCode = validateHandoffEnvelope(x).ok ? 0 : EXIT_ENVELOPE_INVALID;
 * ```
 */
export const EXIT_ENVELOPE_INVALID = 3;

const HELP = [
  'usage: handoff envelope build --input <resolver.json|-> [options]',
  '       handoff envelope validate <FILE|->',
  '       handoff envelope prefix <FILE|-> [--text]',
  '',
  'build     derive the handoff envelope and print it (gateState is the last key)',
  '  --input FILE|-            resolver output (wrapped startup result or bare bundle)',
  '  --settings FILE           settings file used as the .devloops layer (else discovered in --repo-root)',
  '  --repo-root DIR           repository root: settings discovery and cwd derivation (settings default: cwd)',
  '  --worktree-cwd DIR        explicit worktree directory (wins over --repo-root for cwd)',
  '  --no-extension-defaults   leave the shipped extension defaults out of the settings layers',
  '  --gate-state JSON|FILE    detector state {currentSubGate, currentHeadSha, ciStatus, …}',
  '  --overrides JSON|FILE     {mergeAuthorized, preferLocal, scopeConstraint, customStopAt}',
  '  --sanctioned FILE         the sanctioned-command map (JSON), carried verbatim (same keys, same',
  '                            order); without it the default map (the dev-loops wrappers) is injected',
  '  --no-sanctioned           build without a sanctioned-command map',
  '  --repo owner/name         repo slug (wins over the resolver output)',
  '  --now ISO                 build timestamp for gateState.derivedAt (default: now)',
  'validate  print {ok, errors:[{field, reason, got}], warnings?}',
  'prefix    print {digest, bytes} of the canonical envelope minus gateState (--text adds the prefix text)',
  '',
  'Exit: 0 ok, 2 usage, 3 refused input (build) or invalid envelope (validate, prefix).',
].join('\n');

function resolvePath(io: CliIo, p: string): string {
  return isAbsolute(p) ? p : join(io.cwd, p);
}

async function jsonOption(io: CliIo, name: string, value: string | undefined): Promise<unknown> {
  if (value === undefined) return undefined;
  const text = value.trim().startsWith('{') ? value : (await readInput(io, value)).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new HandoffError('usage', `--${name}: not JSON (${(e as Error).message})`, {
      details: { option: name },
    });
  }
}

function single(positionals: readonly string[], rest: readonly string[], verb: string): string {
  const sources = [...positionals, ...rest];
  if (sources.length !== 1) throw new HandoffError('usage', `envelope ${verb} takes exactly one FILE or -`);
  return sources[0] as string;
}

function refuse(io: CliIo, e: unknown): number {
  if (!isHandoffError(e) || e.code === 'usage') throw e;
  io.err(`${toTerminalJson({ error: e.code, message: e.message, details: e.details }, 0)}\n`);
  return errorExitCode(e.code, 'envelope');
}

async function build(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseVerbArgs(
    argv,
    {
      input: { type: 'string' },
      settings: { type: 'string' },
      'repo-root': { type: 'string' },
      'worktree-cwd': { type: 'string' },
      'no-extension-defaults': { type: 'boolean' },
      'gate-state': { type: 'string' },
      overrides: { type: 'string' },
      sanctioned: { type: 'string' },
      'no-sanctioned': { type: 'boolean' },
      repo: { type: 'string' },
      now: { type: 'string' },
    },
    false,
  );
  if (positionals.length > 0) throw new HandoffError('usage', 'envelope build takes no positional arguments');
  const input = await readJsonInput(io, requireString(values, 'input'));
  const gateState = await jsonOption(io, 'gate-state', optionalString(values, 'gate-state'));
  const overrides = await jsonOption(io, 'overrides', optionalString(values, 'overrides'));
  const sanctionedFile = optionalString(values, 'sanctioned');
  if (sanctionedFile !== undefined && values['no-sanctioned'] === true) {
    throw new HandoffError('usage', 'give --sanctioned FILE or --no-sanctioned, not both');
  }
  // the sanctioned-command map is a mandatory default of every envelope (seed 003): injected
  // unless the caller passes its own map or opts out explicitly
  const sanctioned =
    values['no-sanctioned'] === true
      ? undefined
      : sanctionedFile === undefined
        ? DEFAULT_SANCTIONED_COMMANDS
        : await jsonOption(io, 'sanctioned', resolvePath(io, sanctionedFile));
  if (!input.ok) return refuse(io, new HandoffError('envelope_invalid_input', input.error));
  const repoRoot = optionalString(values, 'repo-root');
  const settingsFile = optionalString(values, 'settings');
  try {
    const loaded = await loadDevLoopsSettings({
      repoRoot: repoRoot === undefined ? io.cwd : resolvePath(io, repoRoot),
      extensionDefaults: values['no-extension-defaults'] !== true,
      ...(settingsFile === undefined ? {} : { settingsFile: resolvePath(io, settingsFile) }),
    });
    const repo = optionalString(values, 'repo');
    const worktreeCwd = optionalString(values, 'worktree-cwd');
    const now = optionalString(values, 'now');
    const envelope = buildHandoffEnvelope(input.value, loaded.settings, gateState as never, {
      env: io.env,
      ...(repo === undefined ? {} : { repoSlug: repo }),
      ...(repoRoot === undefined ? {} : { repoRoot: resolvePath(io, repoRoot) }),
      ...(worktreeCwd === undefined ? {} : { worktreeCwd }),
      ...(overrides === undefined ? {} : { overrides: overrides as never }),
      ...(sanctioned === undefined ? {} : { sanctionedCommands: sanctioned as never }),
      ...(now === undefined ? {} : { now }),
    });
    printJson(io, envelope);
    return 0;
  } catch (e) {
    return refuse(io, e);
  }
}

async function validate(argv: readonly string[], io: CliIo): Promise<number> {
  const { positionals, rest } = parseVerbArgs(argv, {});
  const parsed = await readJsonInput(io, single(positionals, rest, 'validate'));
  const result = parsed.ok
    ? validateHandoffEnvelope(parsed.value)
    : { ok: false, errors: [{ field: '_root', reason: parsed.error, got: null }] };
  printJson(io, result);
  return result.ok ? 0 : EXIT_ENVELOPE_INVALID;
}

async function prefix(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals, rest } = parseVerbArgs(argv, { text: { type: 'boolean' } });
  const parsed = await readJsonInput(io, single(positionals, rest, 'prefix'));
  if (!parsed.ok) {
    printJson(io, { ok: false, errors: [{ field: '_root', reason: parsed.error, got: null }] });
    return EXIT_ENVELOPE_INVALID;
  }
  const check = validateHandoffEnvelope(parsed.value);
  if (!check.ok) {
    printJson(io, check);
    return EXIT_ENVELOPE_INVALID;
  }
  const p = envelopePrefix(parsed.value);
  printJson(io, { digest: p.digest, bytes: p.bytes, ...(values.text === true ? { text: p.text } : {}) });
  return 0;
}

const VERBS: Readonly<Record<string, (argv: readonly string[], io: CliIo) => Promise<number>>> = {
  build,
  validate,
  prefix,
};

/**
 * The `envelope` verb group.
 *
 * @example
 * ```ts
 * await command.run(['validate', 'envelope.json'], io); // 0 ok, 3 invalid, 2 usage
 * ```
 */
export const command: CliCommand = {
  verbs: Object.keys(VERBS),
  help: HELP,
  async run(argv, io) {
    const [verb, ...rest] = argv;
    if (verb === undefined || !Object.hasOwn(VERBS, verb)) {
      throw new HandoffError('usage', `envelope: unknown verb '${verb ?? ''}' (build, validate or prefix)`);
    }
    if (rest[0] === '--help' || rest[0] === '-h') {
      io.out(`${HELP}\n`);
      return 0;
    }
    return (VERBS[verb] as (a: readonly string[], i: CliIo) => Promise<number>)(rest, io);
  },
};
