/**
 * Where the transfer journal keeps a session (pure): one JSON-lines file per session, named by a
 * fingerprint of the session id so any id is a safe file name; its append lock is the chain's
 * (`<file>.lock`).
 */
import { join } from 'node:path';
import { fingerprintOf } from '../canonical/index.js';

/**
 * The journal file of `session` inside `dir`.
 *
 * @example
 * ```ts
 * transferJournalFile('/var/handoff/transfers', 'conv-42'); // '/var/handoff/transfers/session-1a2b….jsonl'
 * ```
 */
export function transferJournalFile(dir: string, session: string): string {
  return join(dir, `session-${fingerprintOf(session)}.jsonl`);
}
