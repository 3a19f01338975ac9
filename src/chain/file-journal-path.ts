/**
 * Where the file journal keeps a baton (pure): its JSON-lines file and that file's append lock,
 * named by a fingerprint of the baton id so any id is a safe file name.
 */
import { join } from 'node:path';
import { fingerprintOf } from '../canonical/index.js';
import { appendLockFile } from './append-lock.js';

/**
 * The journal file of `batonId` inside `dir` (named by a fingerprint of the id, so any id is a
 * safe file name).
 *
 * @example
 * ```ts
 * chainJournalFile('/var/chain', 'payroll-2026-06'); // '/var/chain/baton-1a2b….jsonl'
 * ```
 */
export function chainJournalFile(dir: string, batonId: string): string {
  return join(dir, `baton-${fingerprintOf(batonId)}.jsonl`);
}

/**
 * The lock file a commit of `batonId` holds (see `createFileChainJournal`). It only outlives a
 * commit when its writer died inside one (or, with `holdLocks`, while its holder ran); remove it by
 * hand once no writer runs.
 *
 * @example
 * ```ts
 * chainJournalLockFile('/var/chain', 'payroll-2026-06'); // '/var/chain/baton-1a2b….jsonl.lock'
 * ```
 */
export function chainJournalLockFile(dir: string, batonId: string): string {
  return appendLockFile(chainJournalFile(dir, batonId));
}
