/**
 * `handoff dispatch check <FILE|->`: the worker-side entry check. Exit 0 and the normalized
 * dispatch when valid; exit 3 and a valid protocol-error handoff when not.
 */
import { protocolErrorHandoff, validateDispatch } from '../contract/index.js';
import { HandoffError } from '../errors/index.js';
import { parseVerbArgs } from './args.js';
import type { CliCommand } from './command.js';
import { printJson, readInput } from './io.js';

/** The `dispatch` verb group. */
export const command: CliCommand = {
  verbs: ['check'],
  help: [
    'usage: handoff dispatch check <FILE|->',
    '',
    'Checks a dispatch record the way a worker must before doing anything.',
    'Valid: prints the normalized dispatch, exit 0.',
    'Invalid or not JSON: prints a run-contract/v1 protocol-error handoff naming the defect, exit 3.',
    'Exit 2: usage or unreadable file.',
  ].join('\n'),
  async run(argv, io) {
    const { positionals, rest } = parseVerbArgs(argv, {});
    const [sub, ...args] = [...positionals, ...rest];
    if (sub !== 'check') throw new HandoffError('usage', 'usage: handoff dispatch check <FILE|->');
    if (args.length !== 1) throw new HandoffError('usage', 'dispatch check takes exactly one FILE or -');
    const text = (await readInput(io, args[0] as string)).toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      printJson(io, protocolErrorHandoff(text, `malformed dispatch: not JSON (${(e as Error).message})`));
      return 3;
    }
    const r = validateDispatch(value);
    if (r.ok) {
      printJson(io, r.value);
      return 0;
    }
    const detail = r.issues
      .slice(0, 5)
      .map((i) => `${i.path || '(root)'}: ${i.message}`)
      .join('; ');
    printJson(
      io,
      protocolErrorHandoff(
        value,
        `malformed dispatch: ${detail}${r.issues.length > 5 ? `; +${r.issues.length - 5} more` : ''}`,
      ),
    );
    return 3;
  },
};
