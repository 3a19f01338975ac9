/** `handoff viz` and `handoff inspect` through the built binary (run `npm run build` first). */
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsStore, formatCite } from '../../src/store/index.js';
import { runCli, stdoutJson } from '../helpers/cli.js';
import {
  batchReview,
  dispatch,
  fixedClock,
  note,
  replan,
  solvedHandoff,
  stuckHandoff,
} from '../store/fixtures.js';

let dir: string;
let root: string;
let runId: string;
let openRun: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'viz-cli-'));
  root = join(dir, 'store');
  const store = createFsStore({ root, now: fixedClock() });
  const c = await store.createRun({ dispatch: dispatch(), now: '2026-11-30T10:00:00Z' });
  runId = c.run_id as string;
  await store.append(runId, 'handoff', stuckHandoff()); // #1 worker handoff
  const r = await store.append(runId, 'review', batchReview()); // #2
  await store.append(runId, 'replan', replan([formatCite(runId, r.seq as number)])); // #3
  await store.append(runId, 'dispatch', dispatch()); // #4
  await store.append(runId, 'note', note()); // #5
  await store.append(runId, 'handoff', solvedHandoff()); // #6 worker handoff
  const fin = await store.setHandoff(runId, solvedHandoff()); // #7 final
  expect(fin.outcome).toBe('committed');
  const c2 = await store.createRun({
    dispatch: { ...dispatch(), target: 'Mathlib/Bar.lean:1' },
    now: '2026-11-30T10:00:01Z',
  });
  openRun = c2.run_id as string;
  await store.append(openRun, 'handoff', stuckHandoff());
  await (store as { close?: () => unknown }).close?.();
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('handoff viz', () => {
  it('prints mermaid by default and each format on request', async () => {
    const m = await runCli(['viz', 'chain']);
    expect(m.code).toBe(0);
    expect(m.stdout).toContain('stateDiagram-v2');
    const d = await runCli(['viz', 'gate', '--format', 'dot']);
    expect(d.stdout.startsWith('digraph "gate" {')).toBe(true);
    const j = stdoutJson<{ machine: string; edges: unknown[] }>(
      await runCli(['viz', 'cycle', '--format', 'json']),
    );
    expect(j.machine).toBe('cycle');
    expect(j.edges.length).toBeGreaterThan(40);
  });

  it('writes html to --out and highlights a --path', async () => {
    const steps = join(dir, 'steps.json');
    await writeFile(steps, JSON.stringify([{ state: 'ready' }, { state: 'running', event: 'START' }]));
    const out = join(dir, 'chain.html');
    const r = await runCli(['viz', 'chain', '--format', 'html', '--path', steps, '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const html = await readFile(out, 'utf8');
    expect(html).toContain('<!DOCTYPE html>');
    expect(html).toMatch(/class="edge kind-event visited"/);
  });

  it('exits 2 on an unknown machine, format or option, 4 on an unreadable --path', async () => {
    expect((await runCli(['viz', 'nope'])).code).toBe(2);
    expect((await runCli(['viz', 'gate', '--format', 'png'])).code).toBe(2);
    expect((await runCli(['viz'])).code).toBe(2);
    expect((await runCli(['viz', 'gate', '--check'])).code).toBe(2);
    expect((await runCli(['viz', 'gate', '--path', join(dir, 'missing.json')])).code).toBe(4);
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"state": 1}');
    expect((await runCli(['viz', 'gate', '--path', bad])).code).toBe(2);
  });

  it('--docs writes the docs, --check exits 3 on drift and 0 when current', async () => {
    const docs = join(dir, 'docs');
    expect((await runCli(['viz', '--docs', '--check', '--dir', docs])).code).toBe(3);
    const w = await runCli(['viz', '--docs', '--dir', docs]);
    expect(w.code).toBe(0);
    expect(stdoutJson<{ written: string[] }>(w).written).toHaveLength(6);
    expect((await runCli(['viz', '--docs', '--check', '--dir', docs])).code).toBe(0);
    await appendFile(join(docs, 'gate.md'), 'x');
    const c = await runCli(['viz', '--docs', '--check', '--dir', docs]);
    expect(c.code).toBe(3);
    expect(stdoutJson<{ drift: { machine: string }[] }>(c).drift.map((x) => x.machine)).toEqual(['gate']);
  });
});

describe('handoff inspect', () => {
  it('summarises a run in text: events with cites, effective handoff, the path', async () => {
    const r = await runCli(['inspect', runId, '--root', root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`run ${runId}`);
    expect(r.stdout).toContain(`[${runId}#7]`);
    expect(r.stdout).toContain(`effective handoff: ${runId}#7 solved`);
    expect(r.stdout).toMatch(/path over the cycle machine \(finished\)/);
    expect(r.stdout).toMatch(/ 8\. solved/);
    expect(r.stdout).toContain('limits:');
  });

  it('prints handoff-inspect/v1 JSON with the derived phases and the overlay', async () => {
    const j = stdoutJson<{
      schema: string;
      events: { seq: number; cite: string }[];
      path: { finished: boolean; steps: { state: string }[]; notes: { cite: string }[] };
      overlay: { current: string; gaps: unknown[] };
    }>(await runCli(['inspect', runId, '--root', root, '--format', 'json']));
    expect(j.schema).toBe('handoff-inspect/v1');
    expect(j.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(j.path.steps.map((s) => s.state)).toEqual([
      'plan',
      'work',
      'checkpoint',
      'review',
      'replan',
      'work',
      'checkpoint',
      'solved',
    ]);
    expect(j.path.notes).toEqual([{ seq: 5, cite: `${runId}#5`, step: 5 }]);
    expect(j.overlay.current).toBe('cycle.solved');
    expect(j.overlay.gaps).toEqual([]);
  });

  it('draws the path in mermaid, dot and html; finds the store through --project', async () => {
    const m = await runCli(['inspect', runId, '--root', root, '--format', 'mermaid']);
    expect(m.stdout).toMatch(/class \w*solved\w* current|class solved current/);
    const d = await runCli(['inspect', runId, '--root', root, '--format', 'dot']);
    expect(d.stdout).toContain('(visited x');
    const out = join(dir, 'run.html');
    const h = await runCli(['inspect', runId, '--root', root, '--format', 'html', '--out', out]);
    expect(h.code).toBe(0);
    expect(await readFile(out, 'utf8')).toContain(`${runId}#7`);
    const env = await runCli(['inspect', runId, '--format', 'json'], { env: { HANDOFF_RUN_STORE: root } });
    expect(env.code).toBe(0);
    // --project DIR reads DIR/.handoff: the run is not there
    const elsewhere = await runCli(['inspect', runId, '--project', dir]);
    expect(elsewhere.code).toBe(3);
    expect(elsewhere.stderr).toContain(join(dir, '.handoff'));
  });

  it('an unfinished run says so', async () => {
    const r = await runCli(['inspect', openRun, '--root', root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(unfinished)');
    expect(r.stdout).toContain('not confirmed as the final one');
  });

  it('reports journal damage without failing', async () => {
    await appendFile(join(root, 'runs', openRun, 'events.jsonl'), '{"kind":"note","garbage');
    const r = await runCli(['inspect', openRun, '--root', root, '--format', 'json']);
    expect(r.code).toBe(0);
    const j = stdoutJson<{ damaged: { code: string } | null; warnings: string[]; events: unknown[] }>(r);
    expect(j.damaged?.code).toBe('truncated_tail');
    expect(j.events).toHaveLength(1);
    expect(r.stderr).toContain('journal damaged');
    const t = await runCli(['inspect', openRun, '--root', root]);
    expect(t.stdout).toContain('journal damage: truncated_tail');
  });

  it('exits 3 for no such run and for a malformed id (bad_run_id), 2 for usage', async () => {
    const none = await runCli(['inspect', '20261130T100000Z-00000000', '--root', root]);
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('no_such_run');
    const malformed = await runCli(['inspect', '../etc', '--root', root]);
    expect(malformed.code).toBe(3);
    expect(malformed.stderr).toMatch(
      /^handoff inspect: cannot inspect \.\.\/etc: bad_run_id.* \[bad_run_id\]/,
    );
    expect((await runCli(['inspect', '--root', root])).code).toBe(2);
    expect((await runCli(['inspect', runId, '--root', root, '--format', 'png'])).code).toBe(2);
    expect((await runCli(['inspect', runId, '--root', root, '--project', dir])).code).toBe(2);
  });
});
