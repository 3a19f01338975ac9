/**
 * A contained worker does not outlive the runtime that started it: when the parent ends through
 * `exit` (as `handoff` does on SIGINT/SIGTERM) while the worker runs, the exit hook kills the
 * worker's process group — the worker and the grandchild it started — although they live in a
 * group of their own that a terminal's signal never reaches. A run that ends normally leaves no
 * reaper registered. Real processes (needs `npm run build`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pendingReapers, runContained } from '../../src/process/index.js';

const PARENT = fileURLToPath(new URL('./children/exit-parent.mjs', import.meta.url));

let dir: string;
const strays: number[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-reaper-'));
});
afterEach(async () => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  await rm(dir, { recursive: true, force: true });
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function gone(pid: number, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return !alive(pid);
}

function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('ready\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`parent exited ${code} before ready: ${out}`)));
  });
}

describe('contained children at the parent’s exit', () => {
  it('SIGTERM to a parent that exits through exit kills the worker and its grandchild', async () => {
    const pidFile = join(dir, 'pids');
    const parent = spawn(process.execPath, [PARENT, pidFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    await ready(parent);
    const [worker, grandchild] = (await readFile(pidFile, 'utf8')).split(' ').map(Number) as [number, number];
    strays.push(worker, grandchild);
    expect(alive(worker) && alive(grandchild)).toBe(true);
    const exited = new Promise<number | null>((r) => parent.once('exit', (code) => r(code)));
    parent.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(await gone(worker)).toBe(true);
    expect(await gone(grandchild)).toBe(true);
  });

  it('a child that ended leaves no reaper behind', async () => {
    const before = pendingReapers();
    const running = runContained([process.execPath, '-e', 'setTimeout(() => {}, 200)'], '', {
      cwd: dir,
      timeoutMs: 10_000,
    });
    expect(pendingReapers()).toBe(before + 1);
    const r = await running;
    expect(r.code).toBe(0);
    expect(pendingReapers()).toBe(before);
  });
});
