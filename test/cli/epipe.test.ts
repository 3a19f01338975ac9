/**
 * A closed standard output is a normal end: `handoff store load … | head -c 400` exits with the
 * verb's own code and prints nothing on stderr (no EPIPE stack trace). Any other failure to write
 * standard output (a full disk) exits 74 with one line on stderr.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalDispatch, stuckHandoff } from '../contract/fixtures.js';
import { CLI_BIN, runCli, stdoutJson } from '../helpers/cli.js';

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  received: number;
  stderr: string;
}

/** Runs the CLI, reads the first chunk of its stdout, then closes the reading end of the pipe. */
function runAndCloseStdout(args: readonly string[], input = ''): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    let received = 0;
    let stderr = '';
    child.stdout.once('data', (chunk: Buffer) => {
      received = chunk.length;
      child.stdout.destroy();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, received, stderr }));
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

/** A handoff whose pretty JSON is a few megabytes: far more than a pipe buffer holds. */
function bigHandoff() {
  return {
    ...stuckHandoff(),
    failed_avenues: Array.from({ length: 20_000 }, (_, i) => `avenue ${i} `.repeat(10)),
  };
}

let dir: string;
let root: string;
let runId: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-epipe-'));
  root = join(dir, 'store');
  await writeFile(join(dir, 'dispatch.json'), JSON.stringify(canonicalDispatch()));
  await writeFile(join(dir, 'handoff.json'), JSON.stringify(bigHandoff()));
  const created = await runCli(['store', 'create', '--root', root, '--dispatch', join(dir, 'dispatch.json')]);
  expect(created.code, created.stderr).toBe(0);
  runId = stdoutJson<{ run_id: string }>(created).run_id;
  const set = await runCli([
    'store',
    'set-handoff',
    '--root',
    root,
    '--run-id',
    runId,
    '--payload',
    join(dir, 'handoff.json'),
  ]);
  expect(set.code, set.stderr).toBe(0);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a closed standard output', () => {
  it('store load | head -c …: exit 0, nothing on stderr', async () => {
    const r = await runAndCloseStdout(['store', 'load', '--root', root, '--run-id', runId]);
    expect(r.received).toBeGreaterThan(0);
    expect(r.signal).toBeNull();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('keeps the verb’s own exit code (validate of an invalid record: 3)', async () => {
    const invalid = { ...stuckHandoff(), attempted_tools: Array.from({ length: 20_000 }, (_, i) => i) };
    const r = await runAndCloseStdout(['validate', '--kind', 'handoff', '-'], JSON.stringify(invalid));
    expect(r.received).toBeGreaterThan(0);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(3);
  });
});

describe('a standard output that fails otherwise', () => {
  it('a full device (/dev/full): exit 74 and one line on stderr, no stack trace', async () => {
    const fd = openSync('/dev/full', 'w');
    try {
      const r = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [CLI_BIN, 'store', 'load', '--root', root, '--run-id', runId], {
          stdio: ['ignore', fd, 'pipe'],
          timeout: 60_000,
        });
        let stderr = '';
        child.stderr?.setEncoding('utf8').on('data', (d: string) => {
          stderr += d;
        });
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stderr }));
      });
      expect(r.stderr).toBe('handoff: cannot write to standard output: ENOSPC\n');
      expect(r.code).toBe(74);
    } finally {
      closeSync(fd);
    }
  });
});
