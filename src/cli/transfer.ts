/**
 * `handoff transfer`: dynamic handoff from the command line — decide one transfer request against a
 * route policy and a session journal, show a session, revoke it. The same functions as
 * `handoff-runtime/transfer` (`submitTransfer`, `readTransferSession`, `revokeTransferSession`).
 */
import { resolve } from 'node:path';
import { HandoffError } from '../errors/index.js';
import { readTransferJournalLines } from '../transfer/file-journal.js';
import {
  readTransferSession,
  revokeTransferSession,
  submitTransfer,
  validateRoutePolicy,
  validateTransferRequest,
} from '../transfer/index.js';
import type { TransferJournalLine } from '../transfer/journal-line-schema.js';
import { leaseLive } from '../transfer/rules/lease.js';
import { foldSession } from '../transfer/rules/session-state.js';
import type { ValidationResult } from '../validation/index.js';
import { type OptionSpec, parseVerbArgs, requireString } from './args.js';
import type { CliCommand } from './command.js';
import { type CliIo, printJson, readJsonInput } from './io.js';
import { escapeLine } from './terminal-text.js';

const EXIT_REFUSED = 5;
const EXIT_INVALID = 3;
const EXIT_FAILED = 4;

const DECIDE: OptionSpec = {
  policy: { type: 'string' },
  journal: { type: 'string' },
  request: { type: 'string' },
  now: { type: 'string' },
};
const SESSION: OptionSpec = {
  journal: { type: 'string' },
  session: { type: 'string' },
  now: { type: 'string' },
};
const REVOKE: OptionSpec = { ...SESSION, by: { type: 'string' }, reason: { type: 'string' } };

/** The injected clock: `--now ISO` or the wall clock. */
function clockOf(values: Record<string, unknown>): () => number {
  const given = values.now;
  if (given === undefined) return Date.now;
  const ms = Date.parse(String(given));
  if (!Number.isFinite(ms)) throw new HandoffError('usage', `--now ${String(given)} is not an ISO-8601 time`);
  return () => ms;
}

/** Reads and validates a record; null (after printing the issues) when it is not valid. */
async function load<T>(
  io: CliIo,
  file: string,
  what: string,
  validate: (x: unknown) => ValidationResult<T>,
): Promise<T | null> {
  const parsed = await readJsonInput(io, file);
  const r = parsed.ok ? validate(parsed.value) : null;
  if (r?.ok) return r.value;
  const issues =
    r === null ? [{ path: '', code: 'invalid_json', message: parsed.ok ? '' : parsed.error }] : r.issues;
  io.err(
    `handoff transfer: ${what} ${file} is not a valid record: ${issues[0]?.path || '(root)'}: ${issues[0]?.message}\n`,
  );
  printJson(io, { outcome: 'refused', code: 'invalid_record', record: what, issues });
  return null;
}

async function decide(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseVerbArgs(argv, DECIDE, false);
  const policyFile = requireString(values, 'policy');
  const journal = resolve(io.cwd, requireString(values, 'journal'));
  const requestFile = requireString(values, 'request');
  if (policyFile === '-' && requestFile === '-') {
    throw new HandoffError('usage', 'only one of --policy and --request may read stdin');
  }
  const now = clockOf(values);
  const policy = await load(io, policyFile, 'policy', validateRoutePolicy);
  if (policy === null) return EXIT_INVALID;
  const request = await load(io, requestFile, 'request', validateTransferRequest);
  if (request === null) return EXIT_INVALID;
  const d = await submitTransfer(journal, policy, request, { now });
  printJson(io, d);
  if (d.outcome === 'granted') return 0;
  return d.code === 'journal_failed' ? EXIT_FAILED : EXIT_REFUSED;
}

async function status(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseVerbArgs(argv, SESSION, false);
  const journal = resolve(io.cwd, requireString(values, 'journal'));
  const session = requireString(values, 'session');
  const s = readTransferSession(journal, session);
  printJson(io, {
    session,
    status: s.status,
    active: s.active,
    lease: s.lease,
    lease_live: leaseLive(s.lease, clockOf(values)()),
    transfers: s.transfers,
    seq: s.seq,
    grants: s.grants,
  });
  return 0;
}

async function revoke(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseVerbArgs(argv, REVOKE, false);
  const journal = resolve(io.cwd, requireString(values, 'journal'));
  const session = requireString(values, 'session');
  const by = typeof values.by === 'string' ? values.by : 'cli';
  const reason = typeof values.reason === 'string' ? values.reason : 'revoked from the command line';
  const r = await revokeTransferSession(journal, session, { by, reason }, { now: clockOf(values) });
  printJson(io, { session, ...r });
  return r.revoked ? 0 : EXIT_REFUSED;
}

/**
 * The journal lines of `session` under `dir` for `handoff inspect`/`audit --transfer-journal`:
 * validated and folded in sequence; otherwise the exit status after saying why on stderr — 3 when
 * the session has no journal, 4 when the journal is damaged or unreadable.
 *
 * @example
 * ```ts
 * const r = transferSessionLines(io, 'audit', '/var/handoff/transfers', 'conv-9');
 * if (!r.ok) return r.exit;
 * ```
 */
export function transferSessionLines(
  io: CliIo,
  verb: string,
  dir: string,
  session: string,
):
  | { readonly ok: true; readonly lines: TransferJournalLine[] }
  | { readonly ok: false; readonly exit: number } {
  let lines: TransferJournalLine[];
  try {
    lines = readTransferJournalLines(dir, session);
  } catch (e) {
    if (e instanceof HandoffError && (e.code === 'journal_damaged' || e.code === 'io_error')) {
      io.err(`${verb}: ${escapeLine(`${e.code}: ${e.message}`)}\n`);
      return { ok: false, exit: EXIT_FAILED };
    }
    throw e;
  }
  if (lines.length === 0) {
    io.err(
      `${verb}: no transfer journal for session ${escapeLine(JSON.stringify(session))} in ${escapeLine(dir)}\n`,
    );
    return { ok: false, exit: EXIT_INVALID };
  }
  const folded = foldSession(session, lines);
  if (!folded.ok) {
    io.err(`${verb}: ${escapeLine(`journal_damaged: line ${folded.defect.line}: ${folded.defect.why}`)}\n`);
    return { ok: false, exit: EXIT_FAILED };
  }
  return { ok: true, lines };
}

const VERBS: Readonly<Record<string, (argv: readonly string[], io: CliIo) => Promise<number>>> = {
  status,
  revoke,
};

/**
 * The `transfer` verb group.
 *
 * @example
 * ```ts
 * await command.run(['status', '--journal', 'j', '--session', 'conv-9'], io); // 0
 * ```
 */
export const command: CliCommand = {
  verbs: Object.keys(VERBS),
  verbOptions: { status: SESSION, revoke: REVOKE },
  help: [
    'usage: handoff transfer --policy <FILE|-> --journal <DIR> --request <FILE|-> [--now ISO]',
    '       handoff transfer status --journal <DIR> --session <ID> [--now ISO]',
    '       handoff transfer revoke --journal <DIR> --session <ID> [--by WHO] [--reason TEXT]',
    '',
    'Dynamic handoff with checks (docs/transfer.md). Decides one handoff-transfer/v1 request against a',
    'handoff-routes/v1 policy and the session journal under DIR (serialized with every other writer):',
    'granted when the route is allowlisted, the sender is the active agent, its lease is live, the',
    'limits hold and the rerun guard allows it. Prints the handoff-transfer-decision/v1 record: only',
    'the route’s include keys travel, redact keys never (not even to the journal). A request id',
    'decided before is answered with the same decision. --now fixes the clock (tests, replays).',
    '',
    'status prints the session derived from its journal; revoke ends an active session for good.',
    'Each journal write records the transfer machine transitions: `handoff inspect --transfer-journal',
    'DIR --session S` shows the decisions and the path, `handoff audit` with the same flags replays it.',
    '',
    'Exit: 0 granted (status: shown; revoke: revoked), 5 refused (revoke: the session was not active),',
    '3 invalid record, 4 journal damaged or not writable, 2 usage.',
  ].join('\n'),
  async run(argv, io) {
    const [first, ...rest] = argv;
    const verb = first === undefined ? undefined : VERBS[first];
    return verb === undefined ? decide(argv, io) : verb(rest, io);
  },
};
