/**
 * `handoff inspect` on chain runs of the fs run store draws the chain machine's recorded trace
 * (each baton-commit carries the steps since the previous one): a stage that failed and was
 * retried before its commit shows as failed → RETRY → running, which the path derived from the
 * commits cannot show. A run written without a trace falls back to the derived path (its limit
 * says so); an edited trace step the machine does not allow is drawn as a gap naming `handoff
 * audit` (which flags the same step); forged strings in a trace reach every format escaped. The
 * HTML page is rendered in headless Chromium (required, as in test/viz/browser.test.ts), and a
 * chain run written by the built `handoff chain example payroll --run-store` is drawn from its
 * trace (needs `npm run build`).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { chainMachine } from '../../machines/index.js';
import { canonicalJsonUtf8 } from '../../src/canonical/index.js';
import { createStoreChainJournal, stageDelta } from '../../src/chain/index.js';
import { createFsStore } from '../../src/store/index.js';
import { CHAIN_PATH_LIMIT, machineGraph } from '../../src/viz/index.js';
import { goodStages, tripBaton, tripChain } from '../chain/trip-fixture.js';
import { CHROMIUM, CHROMIUM_MISSING, runChromium } from '../helpers/chromium.js';
import { runCli, stdoutJson } from '../helpers/cli.js';
import { cliMain } from '../helpers/cli-main.js';

const chain = machineGraph(chainMachine as unknown as AnyStateMachine);
const edgeOf = (from: string, event: string, to: string): string => {
  const e = chain.edges.find(
    (x) => x.source === `chain.${from}` && x.event === event && x.targets.join(',') === `chain.${to}`,
  );
  if (e === undefined) throw new Error(`no edge ${from} ${event} ${to}`);
  return e.id;
};

interface Report {
  schema: string;
  path: {
    finished: boolean;
    steps: { state: string; cite: string; seq: number | null; stage: string | null; source: string }[];
    limits: string[];
  };
  overlay: {
    gaps: { step: number; reason: string }[];
    current: string | null;
    edge_visits: Record<string, number>;
    inferred_edges: Record<string, number>;
  };
}

let dir: string;

/**
 * Runs the trip chain into its own store under `name` through the fs run store; the route stage
 * fails on its first call and is retried (same stage run id). Returns the store root and run id.
 */
async function tripRun(name: string, trace: boolean): Promise<{ root: string; runId: string }> {
  await mkdir(join(dir, name));
  const root = join(dir, name, '.handoff');
  let calls = 0;
  const c = tripChain({
    ...goodStages(),
    route: () => {
      calls += 1;
      if (calls === 1) throw new Error('route service unavailable');
      return stageDelta({ depart_by: { value: '18:00', evidence: ['maps://route/42'] } });
    },
  });
  const journal = createStoreChainJournal(createFsStore({ root, env: {} }), c, { trace });
  const r = await c.run(tripBaton(c), { journal, retryWhen: (f) => f.code === 'stage_failed' });
  expect(r.baton.revision).toBe(3);
  expect(calls).toBe(2);
  const runId = journal.runOf('trip-1');
  if (runId === undefined) throw new Error('no run');
  return { root, runId };
}

const inspect = (runId: string, root: string, ...more: string[]) =>
  cliMain(['inspect', runId, '--root', root, ...more], dir);

async function inspectJson(runId: string, root: string): Promise<Report> {
  const r = await inspect(runId, root, '--format', 'json');
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as Report;
}

/** Rewrites line `index` of a run's batch records with `edit` applied (a store-file edit). */
async function editBatch(root: string, runId: string, index: number, edit: (b: BatchLine) => void) {
  const file = join(root, 'runs', runId, 'batches.jsonl');
  const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
  const b = JSON.parse(lines[index] as string) as BatchLine;
  edit(b);
  lines[index] = canonicalJsonUtf8(b);
  await writeFile(file, `${lines.join('\n')}\n`);
}
interface BatchLine {
  trace: { machine: string; from: string; event: string; to: string; guard?: string }[];
}

const RETRIED = [
  ['ready', null, 'manifest'],
  ['running', 'intent', 'trace'],
  ['validating', 'intent', 'trace'],
  ['committed', 'intent', 'trace'],
  ['running', 'route', 'trace'],
  ['failed', 'route', 'trace'],
  ['running', 'route', 'trace'],
  ['validating', 'route', 'trace'],
  ['committed', 'route', 'trace'],
  ['running', 'pay', 'trace'],
  ['validating', 'pay', 'trace'],
  ['committed', 'pay', 'trace'],
  ['accepted', null, 'acceptance'],
];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inspect-chain-trace-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('handoff inspect draws a chain run from its recorded trace', () => {
  it('a retried stage: failed and RETRY are drawn as recorded, nothing inferred (JSON and text)', async () => {
    const { root, runId } = await tripRun('traced', true);
    const j = await inspectJson(runId, root);
    expect(j.schema).toBe('handoff-inspect/chain-v1');
    expect(j.path.steps.map((s) => [s.state, s.stage, s.source])).toEqual(RETRIED);
    expect(j.path.steps[5]).toMatchObject({ cite: `${runId}#2`, seq: 2 });
    expect(j.path.finished).toBe(true);
    expect(j.path.limits[0]).toMatch(/^the path is the run's recorded transition trace \(11 transitions/);
    expect(j.path.limits).not.toContain(CHAIN_PATH_LIMIT);
    expect(j.overlay.gaps).toEqual([]);
    expect(j.overlay.current).toBe('chain.accepted');
    expect(j.overlay.inferred_edges).toEqual({});
    expect(j.overlay.edge_visits[edgeOf('failed', 'RETRY', 'running')]).toBe(1);
    expect(j.overlay.edge_visits[edgeOf('running', 'xstate.error.actor.stage', 'failed')]).toBe(1);
    const text = await inspect(runId, root);
    expect(text.code).toBe(0);
    expect(text.out).toContain('path over the chain machine (accepted, revision 3 of 3)');
    expect(text.out).toContain(`failed route via error: stage  [${runId}#2]`);
    expect(text.out).toContain('running route via RETRY [and(canRetry, requiresPresent)]');
    expect(text.out).toContain(
      'accepted via done: journal [chainComplete] (from the journal: not in the trace)',
    );
    expect(text.out).toContain("the path is the run's recorded transition trace");
    expect(text.out).not.toContain('inferred transition');
  });

  it('the HTML page in headless Chromium: failed and the RETRY edge are visited, running four times', {
    timeout: 120_000,
  }, async () => {
    expect(CHROMIUM, CHROMIUM_MISSING).not.toBeNull();
    const { root, runId } = await tripRun('html', true);
    const page = join(dir, 'chain-run.html');
    const r = await inspect(runId, root, '--format', 'html', '--out', page);
    expect(r.code).toBe(0);
    const profile = await mkdtemp(join(dir, 'profile-'));
    const { stdout: dom } = await runChromium(['--dump-dom', pathToFileURL(page).href], profile);
    expect(dom).toContain('<svg id="machine"');
    expect(dom).toMatch(/<g class="node state [^"]*visited[^"]*" data-id="chain\.failed" data-visits="1"/);
    expect(dom).toMatch(/data-id="chain\.running" data-visits="4"/);
    expect(dom).toMatch(/<g class="node state [^"]*visited current" data-id="chain\.accepted"/);
    const retry = edgeOf('failed', 'RETRY', 'running');
    expect(dom).toMatch(new RegExp(`<g class="edge [^"]*visited[^"]*" data-id="${retry}"`));
    expect(dom).toContain('<section class="path">');
    expect(dom).toContain('recorded transition trace');
  });

  it('a chain run written without a trace falls back to the path derived from its commits', async () => {
    const { root, runId } = await tripRun('untraced', false);
    expect(existsSync(join(root, 'runs', runId, 'batches.jsonl'))).toBe(false);
    const j = await inspectJson(runId, root);
    expect(j.path.steps.map((s) => [s.state, s.source])).toEqual([
      ['ready', 'manifest'],
      ...['intent', 'route', 'pay'].flatMap(() =>
        ['running', 'validating', 'committed'].map((s) => [s, 'baton-commit']),
      ),
      ['accepted', 'acceptance'],
    ]);
    expect(j.path.limits[0]).toBe(CHAIN_PATH_LIMIT); // the retry left no event: not drawn
    expect(j.overlay.edge_visits[edgeOf('failed', 'RETRY', 'running')]).toBeUndefined();
    expect(j.overlay.edge_visits[edgeOf('running', 'xstate.done.actor.stage', 'validating')]).toBe(3);
  });

  it('an edited trace step the machine does not allow is a gap naming handoff audit, which flags it too', async () => {
    const { root, runId } = await tripRun('tampered', true);
    // commit #2's first step (committed → running) rewritten to go back to ready
    await editBatch(root, runId, 1, (b) => {
      (b.trace[0] as { to: string }).to = 'chain.ready';
    });
    const j = await inspectJson(runId, root);
    expect(j.path.steps[4]).toMatchObject({ state: 'ready', cite: `${runId}#2`, source: 'trace' });
    expect(j.overlay.gaps).toEqual([
      {
        step: 4,
        reason:
          'chain has no transition from chain.committed on xstate.done.actor.journal to chain.ready [requiresPresent] (see handoff audit)',
      },
    ]);
    const text = await inspect(runId, root);
    expect(text.out).toContain('gap at step 5: chain has no transition from chain.committed');
    const audit = await cliMain(['audit', runId, '--root', root, '--json'], dir);
    expect(audit.code).toBe(5);
    const report = JSON.parse(audit.out) as { findings: { code: string; cite: string; index: number }[] };
    expect(report.findings[0]).toMatchObject({ code: 'no_such_transition', cite: `${runId}#2`, index: 0 });
  });

  it('hostile: forged trace strings (controls, markup) reach text, JSON and HTML escaped', async () => {
    const { root, runId } = await tripRun('forged', true);
    const evil = '\u001b[2J\u001b]0;pwned\u0007<img src=x onerror=alert(1)>';
    await editBatch(root, runId, 2, (b) => {
      b.trace.splice(1, 0, { machine: 'chain', from: 'chain.running', event: evil, to: `chain.${evil}` });
    });
    const text = await inspect(runId, root);
    expect(text.code).toBe(0);
    expect(text.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(text.out).toContain('gap at step');
    const json = await inspect(runId, root, '--format', 'json');
    expect(json.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    const j = JSON.parse(json.out) as Report;
    expect(j.overlay.gaps.map((g) => g.step)).toEqual([10]);
    expect(j.overlay.gaps[0]?.reason).toContain('<img src=x onerror=alert(1)>'); // data, one line
    const html = await inspect(runId, root, '--format', 'html');
    expect(html.code).toBe(0);
    expect(html.out).not.toContain('<img');
    expect(html.out).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    for (const format of ['mermaid', 'dot']) {
      const r = await inspect(runId, root, '--format', format);
      expect(r.code).toBe(0);
      expect(r.out).not.toContain('<img');
      expect(r.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    }
  });

  it('a chain run written by the built `handoff chain example payroll --run-store` is drawn from its trace', {
    timeout: 120_000,
  }, async () => {
    await mkdir(join(dir, 'payroll'));
    const root = join(dir, 'payroll', '.handoff');
    const run = await runCli(['chain', 'example', 'payroll', '--run-store', root, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const out = stdoutJson<{ runs: { run_store: { run_id: string } }[] }>(run);
    const runId = out.runs[0]?.run_store.run_id as string;
    const r = await runCli(['inspect', runId, '--root', root, '--format', 'json']);
    expect(r.code).toBe(0);
    const j = stdoutJson<Report>(r);
    expect(j.path.limits[0]).toMatch(/^the path is the run's recorded transition trace/);
    expect(j.path.steps.slice(1, -1).every((s) => s.source === 'trace')).toBe(true);
    expect(j.path.steps.map((s) => s.state)).toEqual([
      'ready',
      ...Array.from({ length: 5 }, () => ['running', 'validating', 'committed']).flat(),
      'accepted',
    ]);
    expect(j.overlay.gaps).toEqual([]);
  });
});
