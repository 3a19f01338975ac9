/**
 * `handoff chain recover-lock --journal DIR --baton ID`: a person's recovery of a chain file
 * journal's stale lock through the CLI. A lock whose holder is a pid of this host that is gone (a
 * real process, killed) is removed (exit 0) and the baton's journal takes commits again; a lock of
 * a live pid or of another host is refused and left byte for byte (exit 3); no lock is nothing to
 * do (exit 0); missing flags are usage errors (exit 2). A hostile lock body (escape sequences in
 * its host) stays escaped in the output.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  chainJournalLockFile,
  createFileChainJournal,
  parseChainLockRecovery,
} from '../../src/chain/index.js';
import { tripBaton, tripChain } from '../chain/trip-fixture.js';
import { cliMain } from '../helpers/cli-main.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chain-recover-cli-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The built CLI (npm test builds first). */
const BIN = fileURLToPath(new URL('../../dist/src/cli/bin.js', import.meta.url));

const recover = (...more: string[]) => cliMain(['chain', 'recover-lock', ...more], dir);

/** A pid that ran on this host and is gone (a child that exited and was reaped). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(r.stdout);
}

describe('handoff chain recover-lock', () => {
  it('removes the lock of a gone holder of this host; the baton then commits again', async () => {
    const lock = chainJournalLockFile(dir, 'trip-1');
    const pid = deadPid();
    await writeFile(lock, `${JSON.stringify({ host: hostname(), pid })}\n`);
    const chain = tripChain();
    await expect(chain.run(tripBaton(chain), { journal: createFileChainJournal(dir) })).rejects.toThrow(
      /busy|lock/,
    );
    const r = await recover('--journal', dir, '--baton', 'trip-1', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({
      schema: 'chain-lock-recover/v1',
      baton_id: 'trip-1',
      outcome: 'removed',
      holder: { host: hostname(), pid },
      journaled: { record: { schema: 'chain-lock-recovery/v1', baton_id: 'trip-1', holder: { pid } } },
    });
    expect(existsSync(lock)).toBe(false);
    // the removal is journaled: the cite names a record file that says what was done
    const cite = JSON.parse(r.out).journaled.cite as string;
    expect(cite).toMatch(/^lock-recoveries\/\d{8}T\d{9}Z-[0-9a-f]{8}\.json$/);
    const rec = parseChainLockRecovery(await readFile(join(dir, cite), 'utf8'));
    expect(rec).toMatchObject({
      ok: true,
      value: { baton_id: 'trip-1', holder: { pid }, recovered_by: { host: hostname() } },
    });
    const again = await chain.run(tripBaton(chain), { journal: createFileChainJournal(dir) });
    expect(again.acceptance.decision).toBe('accepted');
    // the baton's audit lists the recovery with its cite
    const audit = await cliMain(['audit', '--chain-journal', dir, '--baton', 'trip-1', '--json'], dir);
    expect(audit.code).toBe(0);
    expect(JSON.parse(audit.out)).toMatchObject({
      ok: true,
      lock_recoveries: [{ cite, holder: { host: hostname(), pid }, recovered_by: { host: hostname() } }],
      unreadable_lock_recoveries: [],
    });
    const text = await cliMain(['audit', '--chain-journal', dir, '--baton', 'trip-1'], dir);
    expect(text.out).toContain(`lock recovery: ${cite} at `);
    const none = await recover('--journal', dir, '--baton', 'trip-1');
    expect(none.code).toBe(0);
    expect(none.out).toMatch(/^no lock at .*: nothing to do\n$/);
  });

  it('refuses a live holder and another host, leaving the lock as it is (exit 3)', async () => {
    const lock = chainJournalLockFile(dir, 'trip-1');
    for (const body of [
      `${JSON.stringify({ host: hostname(), pid: process.pid })}\n`,
      `${JSON.stringify({ host: 'elsewhere\u001b[2J', pid: deadPid() })}\n`,
    ]) {
      await writeFile(lock, body);
      const r = await recover('--journal', dir, '--baton', 'trip-1');
      expect(r.code).toBe(3);
      expect(r.out).toMatch(/^refused \((owner_alive|other_host)\): /);
      expect(r.out).not.toContain('\u001b');
      expect(await readFile(lock, 'utf8')).toBe(body);
    }
  });

  it('a removal whose record cannot be written is not reported as a success', async () => {
    const lock = chainJournalLockFile(dir, 'trip-1');
    await writeFile(lock, `${JSON.stringify({ host: hostname(), pid: deadPid() })}\n`);
    await writeFile(join(dir, 'lock-recoveries'), 'a file where the directory should be');
    const r = await recover('--journal', dir, '--baton', 'trip-1');
    expect(r.code).toBe(4); // the io_error code
    expect(r.out).toMatch(/^removed /);
    expect(r.out).not.toContain('journaled:');
    expect(r.err).toMatch(
      /the lock was removed, but the recovery was not journaled: lock-recoveries is not a directory/,
    );
    expect(existsSync(lock)).toBe(false);
  });

  it('hostile: a forged recovery record with escape sequences is shown escaped; junk in lock-recoveries/ is listed, not trusted', async () => {
    const chain = tripChain();
    await chain.run(tripBaton(chain), { journal: createFileChainJournal(dir) });
    await mkdir(join(dir, 'lock-recoveries'));
    const forged = {
      schema: 'chain-lock-recovery/v1',
      baton_id: 'trip-1',
      lock: 'x.lock',
      holder: { host: 'evil\u001b[2J', pid: 7 },
      recovered_by: { host: 'h', pid: 8 },
      at: '2026-12-02T12:00:00.000Z',
    };
    await writeFile(join(dir, 'lock-recoveries', 'a.json'), JSON.stringify(forged));
    await writeFile(join(dir, 'lock-recoveries', 'b.json'), 'not a record');
    await writeFile(join(dir, 'lock-recoveries', 'c.json'), JSON.stringify({ ...forged, baton_id: 'other' }));
    const r = await cliMain(['audit', '--chain-journal', dir, '--baton', 'trip-1'], dir);
    expect(r.code).toBe(0);
    expect(r.out).not.toContain('\u001b');
    expect(r.out).toContain('lock recovery: lock-recoveries/a.json at 2026-12-02T12:00:00.000Z');
    expect(r.out).toContain('lock recovery unreadable: lock-recoveries/b.json: not JSON');
    expect(r.out).not.toContain('c.json');
  });

  it('hostile: a FIFO planted at the lock is refused as not a file at once, never waited on (the built CLI, with a deadline)', async () => {
    const lock = chainJournalLockFile(dir, 'trip-1');
    execFileSync('mkfifo', [lock]);
    const r = spawnSync(
      process.execPath,
      [BIN, 'chain', 'recover-lock', '--journal', dir, '--baton', 'trip-1', '--json'],
      { encoding: 'utf8', timeout: 15_000, killSignal: 'SIGKILL' },
    );
    expect(r.signal).toBeNull(); // not killed at the deadline
    expect(r.status).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'refused', reason: 'not_a_file' });
    expect(lstatSync(lock).isFIFO()).toBe(true); // left as it is
  });

  it('needs --journal and --baton (exit 2)', async () => {
    expect((await recover('--journal', dir)).code).toBe(2);
    expect((await recover('--baton', 'trip-1')).code).toBe(2);
    expect((await recover('--journal', dir, '--baton', 'trip-1', 'extra')).code).toBe(2);
  });
});
