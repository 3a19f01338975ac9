/**
 * The issue-26 attacks through `runGate` with the sandbox really started, one gate run per attack
 * (the others — a non-owned file, `.git/config`, `.handoff/`, `$HOME`, a path outside — are
 * test/gate/sandbox-run.test.ts): a TCP connect to a listener on 127.0.0.1 (no network: the
 * listener sees nothing), a `setsid` descendant with an empty environment writing after the worker
 * (it dies with the sandbox; nothing lands), a FIFO and a symbolic link planted in the layer
 * (named, never on the host), and a file inside `allowed_writes` written by temp file + rename
 * (taken, in the changeset).
 */
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createFsLedger,
  currentCandidate,
  DEFAULT_THRESHOLDS,
  ownerAuthority,
  type RunGateResult,
  runGate,
} from '../../src/gate/index.js';
import { probeSandbox } from '../../src/sandbox/index.js';
import { exampleContract, gitRepo, rm, T0, tempDir } from './fixtures.js';

const ATTACKER = fileURLToPath(new URL('../helpers/sandbox-attacker.mjs', import.meta.url));
const LAYER = fileURLToPath(new URL('../hostile/fixtures/layer-attack.mjs', import.meta.url));
const WORKER = fileURLToPath(new URL('../../examples/gate/worker.mjs', import.meta.url));
const README = 'demo\n';
const dirs: string[] = [];
let server: Server;
let port = 0;
let connections = 0;
beforeAll(async () => {
  server = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});
afterEach(() => {
  for (const d of dirs.splice(0)) rm(d);
});

/** One sandboxed gate run of `worker` over a fresh repository. */
async function gate(worker: readonly string[]): Promise<{ repo: string; r: RunGateResult }> {
  expect(await probeSandbox()).toEqual({ available: true });
  const repo = gitRepo({ 'README.md': README, '.gitignore': '.handoff/\n' });
  const side = tempDir('gate-attack-');
  dirs.push(repo, side);
  const contract = exampleContract(await currentCandidate(repo));
  const r = await runGate({
    repo,
    contract,
    ledger: createFsLedger(join(side, 'ledger'), { now: () => T0 }),
    evaluator: null,
    worker,
    authority: ownerAuthority(contract.owner),
    thresholds: DEFAULT_THRESHOLDS,
    now: () => T0,
    recordsDir: join(side, 'records'),
    register: true,
    sandbox: { network: 'deny' },
  });
  return { repo, r };
}
const attacker = (spec: object) => [process.execPath, ATTACKER, JSON.stringify(spec), WORKER];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('runGate in the sandbox: the rest of the attack list', () => {
  it('a TCP connect to a listener on 127.0.0.1: the listener sees nothing', async () => {
    const before = connections;
    const { r } = await gate(attacker({ connect: port }));
    expect(r.records.packets.length).toBeGreaterThan(0);
    expect(connections).toBe(before);
  });

  it('a setsid env -i descendant writing after the worker: nothing lands on the host', async () => {
    const { repo, r } = await gate(attacker({ late: 'README.md' }));
    expect(r.records.packets.length).toBeGreaterThan(0);
    await sleep(1200); // past the moment the writer (600 ms after its start) would have written
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe(README);
  });

  it('a FIFO and a symbolic link planted in the layer: named, never on the host', async () => {
    const { repo, r } = await gate([process.execPath, LAYER, 'fifo-symlink', WORKER]);
    expect(existsSync(join(repo, 'planted.fifo'))).toBe(false);
    expect(() => lstatSync(join(repo, 'src', 'link.js'))).toThrow(/ENOENT/);
    const text = JSON.stringify(r.lead);
    expect(text).toContain('files outside the owned set were written and discarded: planted.fifo (fifo)');
    expect(text).toContain('src/link.js (symlink)');
    expect(r.records.packets[0]?.changeset.map((c) => c.path)).toEqual(['src/greet.js']);
  });

  it('a file inside allowed_writes written by temp file + rename: taken, and in the changeset', async () => {
    const { repo, r } = await gate([process.execPath, LAYER, 'rename', WORKER]);
    expect(readFileSync(join(repo, 'src', 'renamed.js'), 'utf8')).toBe('export const renamed = true;\n');
    expect(existsSync(join(repo, 'src', 'renamed.js.tmp'))).toBe(false);
    expect(r.records.packets[0]?.changeset.map((c) => c.path).sort()).toEqual([
      'src/greet.js',
      'src/renamed.js',
    ]);
    expect(JSON.stringify(r.lead)).not.toContain('discarded');
  });
});
