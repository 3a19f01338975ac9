/**
 * `handoff guard --dispatch <FILE> --prior <FILE>`: evaluates the rerun guard. Exit 0 allowed,
 * 3 forbidden, 2 usage or an input that is not a valid record.
 */
import { rerunGuard, validateDispatch, validateHandoff } from '../contract/index.js';
import { HandoffError } from '../errors/index.js';
import type { ValidationResult } from '../validation/index.js';
import { parseVerbArgs, requireString } from './args.js';
import type { CliCommand } from './command.js';
import { type CliIo, printJson, readJsonInput } from './io.js';

async function load<T>(
  io: CliIo,
  file: string,
  what: string,
  validate: (x: unknown) => ValidationResult<T>,
): Promise<T> {
  const parsed = await readJsonInput(io, file);
  if (!parsed.ok) throw new HandoffError('usage', `${what} ${parsed.error}`, { details: { file } });
  const r = validate(parsed.value);
  if (!r.ok) {
    const first = r.issues[0];
    throw new HandoffError(
      'usage',
      `${what} ${file} is not a valid record: ${first?.path || '(root)'}: ${first?.message}`,
      {
        details: { file, issues: r.issues },
      },
    );
  }
  return r.value;
}

/** The `guard` verb. */
export const command: CliCommand = {
  verbs: [],
  help: [
    'usage: handoff guard --dispatch <FILE|-> --prior <FILE|->',
    '',
    'Evaluates the run-contract/v1 rerun guard for a new dispatch against the prior handoff.',
    'Prints {"forbidden", "branch", "reason", "required_evidence"}.',
    'Exit: 0 allowed, 3 forbidden, 2 usage or an input that is not a valid record.',
  ].join('\n'),
  async run(argv, io) {
    const { values } = parseVerbArgs(
      argv,
      { dispatch: { type: 'string' }, prior: { type: 'string' } },
      false,
    );
    const dFile = requireString(values, 'dispatch');
    const pFile = requireString(values, 'prior');
    if (dFile === '-' && pFile === '-')
      throw new HandoffError('usage', 'only one of --dispatch and --prior may read stdin');
    const dispatch = await load(io, dFile, 'dispatch', validateDispatch);
    const prior = await load(io, pFile, 'prior handoff', validateHandoff);
    const verdict = rerunGuard(dispatch, prior);
    printJson(io, verdict);
    return verdict.forbidden ? 3 : 0;
  },
};
