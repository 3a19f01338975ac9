/**
 * `runOnSnapshot` (a check command judging the runtime's accepted bytes), its edges: contained, a
 * live file that already differs before the check, or a file the snapshot says is deleted, is
 * named as drift; sandboxed (really started), the seeded file is what the check reads, a check
 * that rewrites it is named as a write (discarded), and a deleted file the host still holds is
 * drift (a layer cannot hide it from outside the namespace).
 */
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkSandboxNow, runOnSnapshot } from '../../src/runtime/snapshot-check.js';

let project = '';
beforeEach(async () => {
  project = await realpath(await mkdtemp(join(tmpdir(), 'snapshot-check-')));
  await writeFile(join(project, 'A.lean'), 'live\n');
  await writeFile(join(project, 'Gone.lean'), 'still here\n');
});
afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

const A = () => join(project, 'A.lean');
const GONE = () => join(project, 'Gone.lean');

describe('runOnSnapshot', () => {
  it('checkSandboxNow reads a getter at each call', () => {
    let s: { network: 'deny' } | null = null;
    const get = () => s;
    expect(checkSandboxNow(get)).toBeNull();
    s = { network: 'deny' };
    expect(checkSandboxNow(get)).toEqual({ network: 'deny' });
    expect(checkSandboxNow(undefined)).toBeNull();
  });

  it('contained: the live file is not the snapshot (before the check) and a deleted file is still there: both named', async () => {
    const r = await runOnSnapshot(['cat', 'A.lean'], '', {
      cwd: project,
      timeoutMs: 10_000,
      sandbox: null,
      snapshot: new Map<string, Buffer | null>([
        [A(), Buffer.from('accepted\n')],
        [GONE(), null],
      ]),
    });
    expect(r.result.stdout).toBe('live\n');
    expect(r.drift).toEqual(['A.lean', 'Gone.lean']);
    // equal bytes: no drift
    const same = await runOnSnapshot(['true'], '', {
      cwd: project,
      timeoutMs: 10_000,
      sandbox: null,
      snapshot: new Map([[A(), Buffer.from('live\n')]]),
    });
    expect(same.drift).toEqual([]);
  });

  it('sandboxed: reads the seeded bytes; a rewrite of them is a named write; a deleted file the host holds is drift', async () => {
    const r = await runOnSnapshot(['sh', '-c', 'cat A.lean; echo changed > A.lean'], '', {
      cwd: project,
      timeoutMs: 10_000,
      sandbox: { network: 'deny' },
      snapshot: new Map<string, Buffer | null>([
        [A(), Buffer.from('accepted\n')],
        [GONE(), null],
      ]),
    });
    expect(r.result.code, r.result.stderr).toBe(0);
    expect(r.result.stdout).toBe('accepted\n');
    expect(r.wrote).toEqual(['A.lean']);
    expect(r.drift).toEqual(['Gone.lean']);
    expect(await readFile(A(), 'utf8')).toBe('live\n');
  });
});
