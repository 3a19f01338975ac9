/**
 * `runConformance` with the worker command in the sandbox (really started): the conforming worker
 * still conforms (its owned files leave the layer and are checked as before); a worker's writes
 * outside its owned files — another project file, `.git/config`, the run store, `$HOME`, a path
 * outside the project — never reach the host and are named by the check they belong to ("writes
 * outside the owned files (discarded by the sandbox)"); a planted hook and a symlink swap are named
 * the same way; a TCP connect to the host's loopback never arrives; and a `setsid` descendant with
 * an empty environment does not outlive the worker.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ConformanceReport, runConformance } from '../../src/conformance/index.js';
import { probeSandbox } from '../../src/sandbox/index.js';
import { cliMain } from '../helpers/cli-main.js';
import { failedChecks, fixture, nodeWorker } from './helpers.js';

const ATTACKER = fileURLToPath(new URL('../helpers/sandbox-attacker.mjs', import.meta.url));
const HOSTILE = fileURLToPath(new URL('../hostile/fixtures/hostile.mjs', import.meta.url));
const SANDBOX = { network: 'deny' } as const;

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-conformance-sandbox-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const failures = (r: ConformanceReport, caseId: string) =>
  r.findings.filter((f) => f.case_id === caseId && !f.passed).map((f) => [f.check, f.detail]);

/** Pids whose command line mentions `token` (the late writer's target path). */
function runningWith(token: string): number[] {
  const out: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(token)) out.push(Number(p));
    } catch {
      // gone
    }
  }
  return out;
}

describe('conformance with the sandbox on', () => {
  it('the conforming worker conforms in the sandbox', async () => {
    expect(await probeSandbox()).toEqual({ available: true });
    const r = await runConformance({ command: nodeWorker('conforming'), runs: 2, seed: 3, sandbox: SANDBOX });
    expect(r.failed).toBe(0);
    expect(r.findings.some((f) => f.check === 'unowned-unchanged')).toBe(true);
  });

  it('names every write outside the owned files by its check; none reached the host, no connect arrived, no descendant lived on', async () => {
    let connections = 0;
    const server: Server = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const port = (server.address() as { port: number }).port;
    const late = join(dir, 'late-writer-target');
    const spec = {
      write: ['stray.txt', '.git/config', '.handoff/runs/forged'],
      home: true,
      outside: join(dir, 'outside.txt'),
      connect: port,
      late,
    };
    try {
      const r = await runConformance({
        command: [process.execPath, ATTACKER, JSON.stringify(spec), fixture('conforming')],
        runs: 2,
        seed: 3,
        sandbox: SANDBOX,
      });
      const d = 'writes outside the owned files (discarded by the sandbox): ';
      expect(failures(r, 'case-1')).toEqual([
        ['git-unchanged', `${d}.git/config`],
        ['store-untouched', `${d}.handoff/runs/forged`],
        ['unowned-unchanged', `${d}stray.txt, ~/.bashrc`],
      ]);
      expect(failures(r, 'case-2')).toEqual([
        ['git-unchanged', `${d}.git/config`],
        ['store-untouched', `${d}.handoff/runs/forged`],
        ['no-file-changed', `${d}stray.txt, ~/.bashrc`],
      ]);
      expect(connections).toBe(0);
      expect(existsSync(join(dir, 'outside.txt'))).toBe(false);
      // the late writer (setsid, empty environment) died with the sandbox's PID namespace
      expect(runningWith(late)).toEqual([]);
      await new Promise((done) => setTimeout(done, 800));
      expect(existsSync(late)).toBe(false);
      expect(runningWith(late)).toEqual([]);
    } finally {
      server.close();
    }
  });

  it.each([
    [
      'hook',
      'git-unchanged',
      /^writes outside the owned files \(discarded by the sandbox\): \.git\/hooks\/pre-commit$/,
    ],
    [
      'symlink',
      'no-symlink-swap',
      /^writes outside the owned files \(discarded by the sandbox\): f0\/.+ \(symlink\)$/,
    ],
  ])('%s is named as %s, and never reaches the host', async (attack, check, detail) => {
    const marker = join(dir, 'marker');
    const r = await runConformance({
      command: [process.execPath, HOSTILE, attack, marker],
      runs: 2,
      seed: 3,
      sandbox: SANDBOX,
    });
    // a swapped owned path's returned baseline describes bytes that never reached the host
    expect(failedChecks(r)).toEqual(attack === 'symlink' ? ['baseline-matches-disk', check] : [check]);
    const f = r.findings.filter((x) => !x.passed && x.check === check);
    expect(f.map((x) => x.case_id)).toEqual(['case-1']);
    expect(f[0]?.detail).toMatch(detail);
    expect(existsSync(marker)).toBe(false);
  });

  it('conformance worker: a --sandbox value outside auto|on|off is a usage error, before any case', async () => {
    const r = await cliMain(['conformance', 'worker', '--sandbox', 'maybe', '--', 'node', 'w.mjs'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--sandbox must be auto|on|off, got 'maybe'");
  });
});
