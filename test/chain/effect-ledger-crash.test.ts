/**
 * A writer SIGKILLed inside an effect-ledger `begin` (real process, test/chain/fixtures/
 * journal-writer.mjs `effects-begin`; `npm run build` first) leaves `<dir>/effects.jsonl.lock`.
 * Every resume is then told `busy` and the effect — appending a line to a payments file — is not
 * run; `handoff chain recover-lock --effects DIR` refuses while the holder lives and, once it is
 * gone, removes the lock and journals the removal; the next resume runs the effect, and every later
 * one replays it: the payment is made exactly once in total.
 */
import { appendFileSync, existsSync, readFileSync, readlinkSync } from 'node:fs';
import { symlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createFileChainJournal,
  createFileEffectLedger,
  idempotentEffect,
  readEffectLedgerLockRecoveries,
} from '../../src/chain/index.js';
import { tripEntries, useJournalDir } from '../helpers/chain-journal-lock.js';
import { cliMain } from '../helpers/cli-main.js';

const tmp = useJournalDir('chain-effects-crash-');

describe('effect ledger: a writer killed holding its lock (real process)', () => {
  it('resumes are busy and pay nothing; recover-lock clears the dead holder’s lock (journaled); then exactly one payment', async () => {
    const dir = tmp.dir;
    const lock = join(dir, 'effects.jsonl.lock');
    const payments = join(dir, 'payments.txt');
    const paid = () => (existsSync(payments) ? readFileSync(payments, 'utf8').split('\n').length - 1 : 0);
    /** One resume of the stage: its payment through the ledger (a new ledger object each time). */
    const resume = () =>
      idempotentEffect(createFileEffectLedger(dir), 'pay-run-1', () => {
        appendFileSync(payments, 'paid E0001 8000\n');
        return { paid: 1 };
      }).catch((e: unknown) => e);

    const writer = await tmp.holder('effects-begin', 'pay-run-1');
    const pid = writer.child.pid as number;
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toEqual({ host: hostname(), pid });
    // while the holder lives, the recovery verb refuses (exit 3) and leaves the lock
    const alive = await cliMain(['chain', 'recover-lock', '--effects', dir, '--json'], dir);
    expect(alive.code).toBe(3);
    expect(JSON.parse(alive.out)).toMatchObject({
      ledger: 'effects',
      outcome: 'refused',
      reason: 'owner_alive',
    });
    writer.child.kill('SIGKILL');
    expect((await writer.done).signal).toBe('SIGKILL');
    expect(existsSync(lock)).toBe(true);

    // two resumes: told busy, with the lock's path and its dead holder; nothing paid, nothing recorded
    for (let i = 0; i < 2; i++) {
      expect(await resume()).toMatchObject({ code: 'busy', details: { lock, holder: { pid } } });
    }
    expect(paid()).toBe(0);
    expect(
      existsSync(join(dir, 'effects.jsonl')) ? readFileSync(join(dir, 'effects.jsonl'), 'utf8') : '',
    ).toBe('');

    // the recovery verb: the holder is gone on this host → removed and journaled (cite printed)
    const r = await cliMain(['chain', 'recover-lock', '--effects', dir], dir);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`removed ${lock} (holder ${hostname()} pid ${pid} is gone)`);
    const { recoveries, unreadable } = readEffectLedgerLockRecoveries(dir);
    expect(unreadable).toEqual([]);
    expect(recoveries).toHaveLength(1);
    expect(recoveries[0]?.record).toMatchObject({
      ledger: 'effects',
      lock: 'effects.jsonl.lock',
      holder: { pid },
    });
    expect(r.out).toContain(`journaled: ${recoveries[0]?.cite}`);
    expect(existsSync(lock)).toBe(false);

    // resumed: the effect runs once; every later resume replays it
    expect(await resume()).toMatchObject({ via: 'ran', result: { paid: 1 } });
    expect(await resume()).toMatchObject({ via: 'replayed', result: { paid: 1 } });
    expect(paid()).toBe(1);

    // the chain journal audit of a baton kept in the same directory lists the recovery
    const [e0, e1] = await tripEntries();
    const journal = createFileChainJournal(dir);
    await journal.commit(e0);
    await journal.commit(e1);
    const audit = await cliMain(['audit', '--chain-journal', dir, '--baton', 'trip-1', '--json'], dir);
    expect(JSON.parse(audit.out).lock_recoveries).toEqual([
      expect.objectContaining({
        cite: recoveries[0]?.cite,
        ledger: 'effects',
        holder: { host: hostname(), pid },
      }),
    ]);
  }, 30_000);

  it('recover-lock --effects: usage errors exit 2, no lock is exit 0 and journals nothing, a planted symlink is refused', async () => {
    expect(
      (await cliMain(['chain', 'recover-lock', '--effects', tmp.dir, '--baton', 'b'], tmp.dir)).code,
    ).toBe(2);
    expect((await cliMain(['chain', 'recover-lock', '--effects', ''], tmp.dir)).code).toBe(2);
    const none = await cliMain(['chain', 'recover-lock', '--effects', tmp.dir], tmp.dir);
    expect([none.code, none.out]).toEqual([
      0,
      `no lock at ${join(tmp.dir, 'effects.jsonl.lock')}: nothing to do\n`,
    ]);
    expect(readEffectLedgerLockRecoveries(tmp.dir).recoveries).toEqual([]);
    // a symlink planted at the lock is refused, not followed, and left
    const lock = join(tmp.dir, 'effects.jsonl.lock');
    await symlink(join(tmp.dir, 'elsewhere'), lock);
    const planted = await cliMain(['chain', 'recover-lock', '--effects', tmp.dir, '--json'], tmp.dir);
    expect(planted.code).toBe(3);
    expect(JSON.parse(planted.out)).toMatchObject({ outcome: 'refused', reason: 'not_a_file' });
    expect(readlinkSync(lock)).toBe(join(tmp.dir, 'elsewhere'));
  });
});
