/**
 * The fs ledger log refuses an event its reader would refuse, before writing a byte: an invalid
 * line would fail the problem's ledger closed for good.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fsLedgerLog } from '../../src/gate/index.js';
import { LEDGER_LOG_FILE } from '../../src/gate/ledger-line.js';
import type { LedgerEvent } from '../../src/gate/ledger-state.js';
import { PROFILE, rm, tempDir } from './fixtures.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rm(d);
});

describe('fsLedgerLog.append', () => {
  it('refuses an invalid event with invalid_input and writes nothing; the log stays usable', async () => {
    const root = tempDir();
    dirs.push(root);
    const log = fsLedgerLog(root);
    const at = '2026-11-30T12:00:00.000Z';
    const bad = { type: 'registered', seq: 1, at, problem_id: 'p', profile: 'no', contract_revision: 1 };
    await expect(log.append('p', bad as unknown as LedgerEvent)).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/^ledger of p: not a valid ledger event \(.+\); nothing was written$/),
    });
    const file = join(root, 'p', LEDGER_LOG_FILE);
    expect(existsSync(file) ? readFileSync(file, 'utf8') : '').toBe('');
    const good = { ...bad, profile: PROFILE } as LedgerEvent;
    expect(await log.append('p', good)).toBe(true);
    expect(await log.read('p')).toEqual([good]);
    // the same file holds exactly the one valid line: the refused event left nothing before it
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(2);
  });
});
