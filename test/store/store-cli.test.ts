/**
 * `handoff store …` through the built binary: the full sequence create → note → review → replan →
 * dispatch → handoff → set-handoff with dense seqs and resolving cites, plus exit codes.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/index.js';
import { type RunLoad, resolveCite, type StoreResult } from '../../src/store/index.js';
import { MAX_RECORD_DEPTH } from '../../src/validation/index.js';
import { runCli, stdoutJson } from '../helpers/cli.js';
import {
  batchReview,
  dispatch,
  note,
  replan,
  reviewOfDepth,
  solvedHandoff,
  stuckHandoff,
  stuckReview,
} from './fixtures.js';
import { tempDir } from './tmp.js';

const NOW = '2026-11-30T10:00:00Z';

function files(dir: string, records: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(records)) writeFileSync(join(dir, name), JSON.stringify(value));
}

describe('handoff store CLI', () => {
  it('runs the whole sequence with dense seqs and cites that resolve to earlier events', async () => {
    const project = tempDir('store-cli-');
    const root = ['--project-root', project];
    const opts = { cwd: project, env: { HANDOFF_RUN_STORE: '' } };
    files(project, { 'dispatch.json': dispatch(), 'note.json': note(), 'review.json': stuckReview() });
    const created = await runCli(
      [
        'store',
        'create',
        ...root,
        '--dispatch',
        'dispatch.json',
        '--tracker-session-id',
        'sid',
        '--now',
        '2026-11-30T10:00:00Z',
      ],
      opts,
    );
    expect(created.code, created.stderr).toBe(0);
    const c = stdoutJson<StoreResult>(created);
    const id = c.run_id as string;
    expect(c).toMatchObject({
      schema: 'run-store-result/v1',
      outcome: 'committed',
      run_directory: join(project, '.handoff/runs', id),
    });

    const seqs: number[] = [];
    const step = async (args: string[], input?: string) => {
      const r = await runCli(['store', ...args, ...root, '--run-id', id], {
        ...opts,
        ...(input === undefined ? {} : { input }),
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const body = stdoutJson<StoreResult>(r);
      expect(body).toMatchObject({ outcome: 'committed', run_id: id });
      seqs.push(body.seq as number);
      return body.seq as number;
    };
    const n1 = await step(['append', '--kind', 'note', '--payload', 'note.json']);
    const r2 = await step(['append', '--kind', 'review', '--payload', 'review.json']);
    files(project, { 'replan.json': replan([`${id}#${n1}`, `${id}#${r2}`]) });
    await step(['append', '--kind', 'replan', '--payload', 'replan.json']);
    await step(['append', '--kind', 'dispatch', '--payload', '-'], JSON.stringify(dispatch()));
    await step(['append', '--kind', 'handoff', '--payload', '-'], JSON.stringify(stuckHandoff()));
    const final = { ...solvedHandoff(), failed_avenues: [`${id}#${n1}`] };
    await step(['set-handoff', '--payload', '-'], JSON.stringify(final));
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);

    const loaded = await runCli(['store', 'load', ...root, '--run-id', id], opts);
    expect(loaded.code).toBe(0);
    const load = stdoutJson<RunLoad>(loaded);
    expect(load.events.map((e) => [e.seq, e.kind])).toEqual([
      [1, 'note'],
      [2, 'review'],
      [3, 'replan'],
      [4, 'dispatch'],
      [5, 'handoff'],
      [6, 'handoff'],
    ]);
    expect(load.effective_handoff?.payload).toEqual(final);
    expect(load.handoff_cache).toBe('current');
    expect(load.damaged).toBe(false);
    // every cite in the journal resolves to an earlier event of this run
    for (const e of load.events) {
      const cites: string[] =
        e.kind === 'replan'
          ? (e.payload as { cites: string[] }).cites
          : e.kind === 'handoff'
            ? (e.payload as { failed_avenues: string[] }).failed_avenues.filter((s) => s.includes('#'))
            : [];
      for (const cite of cites) {
        const r = resolveCite(load, cite);
        expect(r.ok, cite).toBe(true);
        if (r.ok && r.kind === 'event') expect(r.event.seq).toBeLessThan(e.seq);
      }
    }
    const listed = await runCli(['store', 'list', ...root], opts);
    expect(stdoutJson<{ runs: string[] }>(listed).runs).toEqual([id]);
  }, 120_000); // ~25 CLI processes: seconds when idle, far more on a shared 2-core machine

  it('maps outcomes to exit codes: 3 refusals, 5 journal_only, 2 usage; validate 0/3', async () => {
    const project = tempDir('store-cli-');
    const root = ['--root', join(project, 'store')];
    const opts = { cwd: project, env: { HANDOFF_RUN_STORE: '' } };
    files(project, {
      'dispatch.json': dispatch(),
      'bad-note.json': { kind: 'critique', text: 'x', lean: null },
    });
    const c = stdoutJson<StoreResult>(
      await runCli(
        ['store', 'create', ...root, '--dispatch', 'dispatch.json', '--event-schema', 'v1', '--now', NOW],
        opts,
      ),
    );
    const id = c.run_id as string;
    const refusal = async (args: string[], code: string, input?: string) => {
      const r = await runCli(['store', ...args], { ...opts, ...(input === undefined ? {} : { input }) });
      expect(r.code, r.stdout + r.stderr).toBe(3);
      expect(stdoutJson<StoreResult>(r)).toMatchObject({ outcome: 'nothing_written', code });
    };
    await refusal(
      ['append', ...root, '--run-id', id, '--kind', 'note', '--payload', 'bad-note.json'],
      'invalid_payload',
    );
    await refusal(
      ['append', ...root, '--run-id', id, '--kind', 'review', '--payload', '-'],
      'kind_unsupported',
      JSON.stringify(batchReview()),
    );
    // an unknown kind is a usage error (exit 2), as in the reference
    const finish = await runCli(
      ['store', 'append', ...root, '--run-id', id, '--kind', 'finish', '--payload', '-'],
      {
        ...opts,
        input: '{}',
      },
    );
    expect(finish.code).toBe(2);
    await refusal(
      ['append', ...root, '--run-id', '../../etc', '--kind', 'note', '--payload', '-'],
      'bad_run_id',
      JSON.stringify(note()),
    );
    await refusal(
      ['append', ...root, '--run-id', id, '--kind', 'note', '--payload', 'missing.json'],
      'payload_unreadable',
    );
    await refusal(
      ['append', ...root, '--run-id', id, '--kind', 'note', '--payload', '-'],
      'invalid_payload',
      '{oops',
    );
    // the same task in the same second is a second run (its id's suffix is random), never run_exists
    const again = await runCli(
      ['store', 'create', ...root, '--dispatch', 'dispatch.json', '--event-schema', 'v1', '--now', NOW],
      opts,
    );
    expect(again.code, again.stdout).toBe(0);
    const second = stdoutJson<StoreResult>(again);
    expect(second).toMatchObject({ outcome: 'committed' });
    expect(second.run_id).toMatch(/^20261130T100000Z-[0-9a-f]{8}$/);
    expect(second.run_id).not.toBe(id);
    await refusal(['create', ...root, '--dispatch', 'dispatch.json', '--now', 'yesterday'], 'bad_timestamp');
    await refusal(['load', ...root, '--run-id', '20261130T100000Z-00000000'], 'no_such_run');
    writeFileSync(join(project, 'store/runs', id, '.lock'), '{}');
    await refusal(
      ['append', ...root, '--run-id', id, '--kind', 'note', '--payload', '-'],
      'busy',
      JSON.stringify(note()),
    );

    // journal_only: the cache cannot be published (its temp path is a directory)
    const c2 = stdoutJson<StoreResult>(
      await runCli(
        ['store', 'create', ...root, '--dispatch', 'dispatch.json', '--tracker-session-id', 'x'],
        opts,
      ),
    );
    mkdirSync(join(c2.run_directory as string, 'handoff.json.tmp'));
    const jo = await runCli(
      ['store', 'set-handoff', ...root, '--run-id', c2.run_id as string, '--payload', '-'],
      {
        ...opts,
        input: JSON.stringify(solvedHandoff()),
      },
    );
    expect(jo.code, jo.stdout).toBe(5);
    expect(stdoutJson<StoreResult>(jo)).toMatchObject({
      outcome: 'journal_only',
      seq: 1,
      step: 'cache_tmp_open',
    });

    for (const bad of [
      ['store'],
      ['store', 'frobnicate'],
      ['store', 'create', ...root],
      ['store', 'append', ...root, '--run-id', id, '--kind', 'note'],
      ['store', 'load', ...root, '--run-id', id, '--payload', 'x'],
      ['store', 'create', ...root, '--project-root', project, '--dispatch', 'dispatch.json'],
      ['store', 'create', ...root, '--dispatch', 'dispatch.json', '--event-schema', 'v3'],
      ['store', 'validate', '--kind', 'nope', '-'],
    ]) {
      const r = await runCli(bad, opts);
      expect(r.code, bad.join(' ')).toBe(2);
    }

    const ok = await runCli(['store', 'validate', '--kind', 'note', '-'], {
      ...opts,
      input: JSON.stringify(note()),
    });
    expect(ok.code).toBe(0);
    expect(stdoutJson(ok)).toEqual({
      schema: 'run-store-result/v1',
      outcome: 'ok',
      kind: 'note',
      errors: [],
    });
    // the common root options are accepted by validate; an unreadable FILE is a refusal (exit 3)
    const unreadable = await runCli(
      ['store', 'validate', ...root, '--kind', 'note', join(project, 'missing.json')],
      opts,
    );
    expect(unreadable.code, unreadable.stdout + unreadable.stderr).toBe(3);
    expect(stdoutJson(unreadable)).toMatchObject({ outcome: 'nothing_written', code: 'payload_unreadable' });
    const inv = await runCli(['store', 'validate', '--kind', 'replan', '-'], {
      ...opts,
      input: JSON.stringify(replan(['x#1'])),
    });
    expect(inv.code).toBe(3);
    expect(stdoutJson<{ outcome: string }>(inv).outcome).toBe('invalid');
    const manifest = await runCli(
      ['store', 'validate', '--kind', 'manifest', join(project, 'store/runs', id, 'manifest.json')],
      opts,
    );
    expect(manifest.code, manifest.stdout).toBe(0);
  }, 120_000); // ~25 CLI processes: seconds when idle, far more on a shared 2-core machine

  it('validate --kind review refuses a review nested 100,000 deep (exit 3, too_deep); append refuses it without writing', async () => {
    const project = tempDir('store-cli-deep-');
    const opts = { cwd: project, env: { HANDOFF_RUN_STORE: '' } };
    const deep = canonicalJson(reviewOfDepth(100_000)); // JSON.stringify recurses and overflows at this depth
    const v = await runCli(['store', 'validate', '--kind', 'review', '-'], { ...opts, input: deep });
    expect(v.code, v.stderr).toBe(3);
    expect(stdoutJson(v)).toEqual({
      schema: 'run-store-result/v1',
      outcome: 'invalid',
      kind: 'review',
      errors: [{ path: 'output', code: 'too_deep', message: expect.stringMatching(/nests deeper than 64/) }],
    });
    const atLimit = await runCli(['store', 'validate', '--kind', 'review', '-'], {
      ...opts,
      input: JSON.stringify(reviewOfDepth(MAX_RECORD_DEPTH)),
    });
    expect(atLimit.code, atLimit.stdout).toBe(0);
    files(project, { 'dispatch.json': dispatch() });
    const root = ['--project-root', project];
    const created = await runCli(
      ['store', 'create', ...root, '--dispatch', 'dispatch.json', '--now', NOW],
      opts,
    );
    const id = stdoutJson<StoreResult>(created).run_id as string;
    const appended = await runCli(
      ['store', 'append', ...root, '--run-id', id, '--kind', 'review', '--payload', '-'],
      {
        ...opts,
        input: deep,
      },
    );
    expect(appended.code, appended.stderr).toBe(3);
    expect(stdoutJson(appended)).toMatchObject({ outcome: 'nothing_written', code: 'invalid_payload' });
    const loaded = await runCli(['store', 'load', ...root, '--run-id', id], opts);
    expect(loaded.code, loaded.stderr).toBe(0);
    expect(stdoutJson<RunLoad>(loaded)).toMatchObject({
      events: [],
      damaged: false,
      damage: null,
      warnings: [],
    });
  }, 60_000);
});

describe('handoff store recover', () => {
  const deadPid = (): number => {
    const r = spawnSync(process.execPath, ['-e', '']);
    return r.pid;
  };

  it('breaks a stale lock and truncates a torn tail, journaled (--json); dry run first changes nothing', async () => {
    const project = tempDir('store-cli-recover-');
    const root = ['--project-root', project];
    const opts = { cwd: project, env: { HANDOFF_RUN_STORE: '' } };
    files(project, { 'dispatch.json': dispatch(), 'note.json': note() });
    const created = await runCli(
      ['store', 'create', ...root, '--dispatch', 'dispatch.json', '--now', NOW],
      opts,
    );
    const id = stdoutJson<StoreResult>(created).run_id as string;
    const note1 = await runCli(
      ['store', 'append', ...root, '--run-id', id, '--kind', 'note', '--payload', 'note.json'],
      opts,
    );
    expect(note1.code, note1.stderr).toBe(0);
    const dir = join(project, '.handoff', 'runs', id);
    const pid = deadPid();
    writeFileSync(
      join(dir, '.lock'),
      `{"acquired":"${NOW}","host":${JSON.stringify(hostname())},"pid":${pid}}\n`,
    );
    appendFileSync(join(dir, 'events.jsonl'), '{"kind":"note","payl');
    const lock = readFileSync(join(dir, '.lock'));
    const journal = readFileSync(join(dir, 'events.jsonl'));

    const dry = await runCli(['store', 'recover', ...root, '--run-id', id, '--dry-run', '--json'], opts);
    expect(dry.code, dry.stderr).toBe(0);
    expect(stdoutJson(dry)).toMatchObject({
      schema: 'run-store-recover/v1',
      outcome: 'planned',
      dry_run: true,
      actions: [
        { kind: 'lock_broken', owner: { pid } },
        { kind: 'tail_truncated', line: 2, bytes: 20 },
      ],
    });
    expect(readFileSync(join(dir, '.lock')).equals(lock)).toBe(true);
    expect(readFileSync(join(dir, 'events.jsonl')).equals(journal)).toBe(true);

    const r = await runCli(['store', 'recover', ...root, '--run-id', id, '--json'], opts);
    expect(r.code, r.stderr).toBe(0);
    const body = stdoutJson<{ outcome: string; cite: string }>(r);
    expect(body).toMatchObject({ outcome: 'recovered', cite: `${id}#2` });
    const loaded = stdoutJson<RunLoad>(await runCli(['store', 'load', ...root, '--run-id', id], opts));
    expect(loaded.damaged).toBe(false);
    const cited = resolveCite(loaded, body.cite);
    expect(cited.ok && cited.kind === 'event' && (cited.event.payload as { text: string }).text).toMatch(
      /^store recover: broke the stale run lock of pid \d+ .*; truncated the torn tail at line 2 \(20 bytes/,
    );
    const again = await runCli(
      ['store', 'append', ...root, '--run-id', id, '--kind', 'note', '--payload', 'note.json'],
      opts,
    );
    expect(stdoutJson(again)).toMatchObject({ outcome: 'committed', seq: 3 });

    // nothing left: exit 0, text output for a person, nothing written
    const before = readFileSync(join(dir, 'events.jsonl'));
    const idle = await runCli(['store', 'recover', ...root, '--run-id', id], opts);
    expect(idle.code, idle.stderr).toBe(0);
    expect(idle.stdout).toContain(`store recover ${id}: nothing_to_do`);
    expect(readFileSync(join(dir, 'events.jsonl')).equals(before)).toBe(true);
  }, 60_000);

  it('refusals exit 3 and touch nothing: a live owner, a corrupt line, a bad run id; usage exits 2', async () => {
    const project = tempDir('store-cli-recover-');
    const root = ['--root', join(project, 'store')];
    const opts = { cwd: project, env: { HANDOFF_RUN_STORE: '' } };
    files(project, { 'dispatch.json': dispatch() });
    const created = await runCli(
      ['store', 'create', ...root, '--dispatch', 'dispatch.json', '--now', NOW],
      opts,
    );
    const id = stdoutJson<StoreResult>(created).run_id as string;
    const dir = join(project, 'store', 'runs', id);
    writeFileSync(
      join(dir, '.lock'),
      `{"acquired":"${NOW}","host":${JSON.stringify(hostname())},"pid":${process.pid}}\n`,
    );
    const held = await runCli(['store', 'recover', ...root, '--run-id', id, '--json'], opts);
    expect(held.code).toBe(3);
    expect(stdoutJson(held)).toMatchObject({
      outcome: 'refused',
      code: 'busy',
      reason: 'owner_alive',
      lock_owner: { pid: process.pid },
    });
    expect(existsSync(join(dir, '.lock'))).toBe(true);

    rmSync(join(dir, '.lock'));
    writeFileSync(join(dir, 'events.jsonl'), 'not json\n');
    const corrupt = await runCli(['store', 'recover', ...root, '--run-id', id], opts);
    expect(corrupt.code).toBe(3);
    expect(corrupt.stdout).toContain('refused [journal_damaged/corrupt_line]');
    expect(readFileSync(join(dir, 'events.jsonl'), 'utf8')).toBe('not json\n');

    const bad = await runCli(['store', 'recover', ...root, '--run-id', '../x', '--json'], opts);
    expect(bad.code).toBe(3);
    expect(stdoutJson(bad)).toMatchObject({ outcome: 'refused', run_id: null, code: 'bad_run_id' });

    expect((await runCli(['store', 'recover', ...root], opts)).code).toBe(2);
    expect((await runCli(['store', 'recover', ...root, '--run-id', id, '--kind', 'note'], opts)).code).toBe(
      2,
    );
    expect((await runCli(['store', 'load', ...root, '--run-id', id, '--dry-run'], opts)).code).toBe(2);
  }, 60_000);
});
