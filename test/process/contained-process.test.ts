import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runContained, SESSION_ENV, sessionPids } from '../../src/process/index.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contained-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function script(name: string, body: string): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, body);
  return p;
}

/** Running (a killed child left unreaped by its adoptive parent is a zombie: not running). */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('runContained', () => {
  it('resolves soon after exit when a descendant holds stdout, and kills that descendant', async () => {
    const s = await script(
      'hold.mjs',
      `import { spawn } from 'node:child_process';
       const c = spawn('sleep', ['60'], { stdio: ['ignore', 'inherit', 'inherit'] });
       process.stdout.write(JSON.stringify({ pid: c.pid }) + '\\n');
       process.exit(0);`,
    );
    const r = await runContained(['node', s], '', { cwd: dir, timeoutMs: 3000 });
    expect(r.code).toBe(0);
    expect(r.timedOut).toBe(false);
    expect(r.pipesHeld).toBe(true);
    expect(r.elapsedMs).toBeLessThan(2500);
    const { pid } = JSON.parse(r.stdout) as { pid: number };
    await sleep(50);
    expect(alive(pid)).toBe(false);
  });

  it('ends a hung worker whose descendant holds stdout at the budget, not at the descendant’s end', async () => {
    const s = await script(
      'hung.mjs',
      `import { spawn } from 'node:child_process';
       process.on('SIGTERM', () => {});
       spawn('sleep', ['60'], { stdio: ['ignore', 'inherit', 'inherit'] });
       setInterval(() => {}, 1000);`,
    );
    const r = await runContained(['node', s], '', { cwd: dir, timeoutMs: 500, killGraceMs: 300 });
    expect(r.timedOut).toBe(true);
    expect(r.code).toBeNull();
    expect(r.elapsedMs).toBeLessThan(5000);
  });

  it('sweeps a descendant that left the process group (setsid) before it can write late', async () => {
    const target = join(dir, 'owned.txt');
    await writeFile(target, 'verified\n');
    const s = await script(
      'late.mjs',
      `import { spawn } from 'node:child_process';
       const c = spawn(process.execPath, ['-e', "setTimeout(() => require('node:fs').appendFileSync(process.argv[1], 'LATE\\\\n'), 700)", ${JSON.stringify(target)}], { detached: true, stdio: 'ignore' });
       c.unref();
       process.stdout.write(String(c.pid));`,
    );
    const r = await runContained(['node', s], '', { cwd: dir, timeoutMs: 5000 });
    expect(r.code).toBe(0);
    expect(r.swept).toBeGreaterThanOrEqual(1);
    await sleep(1000);
    expect(alive(Number(r.stdout))).toBe(false);
    expect(await readFile(target, 'utf8')).toBe('verified\n');
  });

  it('gives every child a session token that the sweep can find', async () => {
    const s = await script('env.mjs', `process.stdout.write(process.env.${SESSION_ENV} ?? '');`);
    const r = await runContained(['node', s], '', { cwd: dir, timeoutMs: 5000 });
    expect(r.stdout).toMatch(/^[0-9a-f]{24}$/);
    expect(sessionPids(r.stdout)).toEqual([]);
  });

  it('reports a spawn failure and an empty command without throwing', async () => {
    const r = await runContained([join(dir, 'missing')], '', { cwd: dir, timeoutMs: 1000 });
    expect(r.spawnError).toMatch(/ENOENT/);
    const e = await runContained([], '', { cwd: dir, timeoutMs: 1000 });
    expect(e.spawnError).toBe('empty command');
  });

  it('stops a worker whose output exceeds the limit', async () => {
    const s = await script(
      'flood.mjs',
      `import { writeSync } from 'node:fs'; const b = 'x'.repeat(65536); for (;;) writeSync(1, b);`,
    );
    const r = await runContained(['node', s], '', { cwd: dir, timeoutMs: 10_000, maxOutputBytes: 1 << 20 });
    expect(r.truncated).toBe(true);
    expect(r.stdout.length).toBeLessThanOrEqual(1 << 20);
  });
});
