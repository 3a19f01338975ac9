/**
 * A chain run on the fs run store carries the chain machine's transitions since the previous
 * commit in each `baton-commit`'s batch record, so `handoff audit RUN_ID` replays a chain run
 * through the chain machine: a valid run is ok (exit 0); an edited step — a transition the machine
 * lacks, as a drafter or worker rewriting the store's files would leave — is flagged with the
 * cite of the commit that carried it (exit 5).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJsonUtf8 } from '../../src/canonical/index.js';
import { createStoreChainJournal } from '../../src/chain/index.js';
import { createFsStore } from '../../src/store/index.js';
import { cliMain } from '../helpers/cli-main.js';
import { tripBaton, tripChain } from './trip-fixture.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chain-trace-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const audit = (runId: string, root: string) => cliMain(['audit', runId, '--root', root, '--json'], dir);

interface BatchLine {
  first_seq: number;
  trace: { machine: string; from: string; event: string; to: string }[];
}

async function tracedRun(): Promise<{ root: string; runId: string }> {
  const root = join(dir, '.handoff');
  const chain = tripChain();
  const journal = createStoreChainJournal(createFsStore({ root, env: {} }), chain);
  const r = await chain.run(tripBaton(chain), { journal });
  expect(r.baton.revision).toBe(3);
  const runId = journal.runOf('trip-1');
  if (runId === undefined) throw new Error('no run');
  return { root, runId };
}

describe('chain runs on the run store carry the chain machine trace', () => {
  it('each baton-commit carries the steps since the previous one; handoff audit replays them: ok, exit 0', async () => {
    const { root, runId } = await tracedRun();
    const lines = (await readFile(join(root, 'runs', runId, 'batches.jsonl'), 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as BatchLine);
    expect(lines.map((l) => l.first_seq)).toEqual([1, 2, 3]); // one batch per seam commit
    for (const l of lines) expect(l.trace.every((s) => s.machine === 'chain')).toBe(true);
    expect(lines[0]?.trace[0]).toMatchObject({ from: 'chain.ready', event: 'START', to: 'chain.running' });
    const r = await audit(runId, root);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as { ok: boolean; steps: number; batches: number; findings: unknown[] };
    expect(report).toMatchObject({ ok: true, batches: 3, findings: [] });
    expect(report.steps).toBe(lines.reduce((n, l) => n + l.trace.length, 0));
  });

  it('hostile: an edited step (a transition the chain machine lacks) is flagged with its cite, exit 5', async () => {
    const { root, runId } = await tracedRun();
    const file = join(root, 'runs', runId, 'batches.jsonl');
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    const second = JSON.parse(lines[1] as string) as BatchLine;
    const step = second.trace[0] as { to: string };
    step.to = 'chain.ready'; // back to before START: no such transition in the chain machine
    lines[1] = canonicalJsonUtf8(second);
    await writeFile(file, `${lines.join('\n')}\n`);
    const r = await audit(runId, root);
    expect(r.code).toBe(5);
    const report = JSON.parse(r.out) as {
      ok: boolean;
      findings: { code: string; cite: string; index: number }[];
    };
    expect(report.ok).toBe(false);
    expect(report.findings[0]).toMatchObject({ code: 'no_such_transition', cite: `${runId}#2`, index: 0 });
  });
});
