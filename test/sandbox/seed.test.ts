/**
 * `runSandboxed({ seed })` really started: seeded bytes are what the command sees at their paths
 * (the host file's bytes hidden, a new file created), the folders holding them stay merged with the
 * project's (their other files still seen), a seeded file left as seeded is no write, and the host
 * never changes — the mechanism by which a check command judges the runtime's accepted snapshot.
 */
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runSandboxed } from '../../src/sandbox/index.js';

let dir = '';
let project = '';
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'sandbox-seed-')));
  project = join(dir, 'p');
  await mkdir(join(project, 'src'), { recursive: true });
  await writeFile(join(project, 'src', 'A.lean'), 'live\n');
  await writeFile(join(project, 'src', 'B.lean'), 'other\n');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('runSandboxed with seeded bytes', () => {
  it('shows the seeded bytes over the host’s, keeps the folder merged, and changes nothing on the host', async () => {
    const a = join(project, 'src', 'A.lean');
    const n = join(project, 'src', 'New.lean');
    const seed = new Map([
      [a, Buffer.from('snapshot\n')],
      [n, Buffer.from('created\n')],
    ]);
    const r = await runSandboxed(['sh', '-c', 'cat src/A.lean src/B.lean src/New.lean; ls src'], '', {
      projectRoot: project,
      owned: [a, n],
      timeoutMs: 10_000,
      seed,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('snapshot\nother\ncreated\nA.lean\nB.lean\nNew.lean\n');
    // seeded and left alone: taken back with the seeded bytes, nothing discarded
    expect(r.violation).toBeNull();
    expect(r.files.get(a)?.bytes.toString()).toBe('snapshot\n');
    expect(r.files.get(n)?.bytes.toString()).toBe('created\n');
    expect(await readFile(a, 'utf8')).toBe('live\n');
    expect((await readdir(join(project, 'src'))).sort()).toEqual(['A.lean', 'B.lean']);
  });

  it('a path outside the project is never seeded', async () => {
    const outside = join(dir, 'outside.txt');
    const r = await runSandboxed(['sh', '-c', `cat ${outside} 2>/dev/null || echo absent`], '', {
      projectRoot: project,
      owned: [],
      timeoutMs: 10_000,
      seed: new Map([[outside, Buffer.from('planted\n')]]),
    });
    expect(r.stdout).toBe('absent\n');
    expect(r.violation).toBeNull();
  });
});
