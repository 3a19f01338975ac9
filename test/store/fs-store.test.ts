import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonUtf8 } from '../../src/canonical/index.js';
import { createFsStore, resolveCite, resolveStoreRoot } from '../../src/store/index.js';
import { MAX_RECORD_DEPTH } from '../../src/validation/index.js';
import { nest } from '../canonical/deep.js';
import {
  batchReview,
  dispatch,
  fixedClock,
  note,
  replan,
  reviewOfDepth,
  sequentialSuffix,
  solvedHandoff,
  stuckHandoff,
} from './fixtures.js';
import { tempDir } from './tmp.js';

async function newRun(eventSchema: 'v1' | 'v2' = 'v2') {
  const project = tempDir();
  const store = createFsStore({
    projectRoot: project,
    env: {},
    now: fixedClock(),
    runIdSuffix: sequentialSuffix(),
  });
  const c = await store.createRun({ dispatch: dispatch(), trackerSessionId: 'sid-1', eventSchema });
  expect(c.outcome).toBe('committed');
  return { project, store, id: c.run_id as string, dir: c.run_directory as string };
}

describe('root precedence', () => {
  it('explicit root → HANDOFF_RUN_STORE → <project>/.handoff', () => {
    expect(resolveStoreRoot({ root: '/a', projectRoot: '/p', env: { HANDOFF_RUN_STORE: '/e' } })).toBe('/a');
    expect(resolveStoreRoot({ projectRoot: '/p', env: { HANDOFF_RUN_STORE: '/e' } })).toBe('/e');
    expect(resolveStoreRoot({ projectRoot: '/p', env: {} })).toBe('/p/.handoff');
    expect(resolveStoreRoot({ env: {}, cwd: '/w' })).toBe('/w/.handoff');
  });
});

describe('fs store layout and create', () => {
  it('publishes runs/.gitignore, an immutable manifest and an empty journal', async () => {
    const { project, id, dir } = await newRun();
    expect(readFileSync(join(project, '.handoff/runs/.gitignore'), 'utf8')).toBe('*\n');
    expect(dir).toBe(join(project, '.handoff/runs', id));
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({
      schema: 'run-store-manifest/v2',
      event_schema: 'run-store-event/v2',
      run_id: id,
      created: '2026-11-30T10:00:00Z',
      tracker_session_id: 'sid-1',
      prior_run: null,
      storage_root: join(project, '.handoff'),
    });
    expect(readFileSync(join(dir, 'events.jsonl'), 'utf8')).toBe('');
    expect(existsSync(join(dir, '.lock'))).toBe(false);
    expect(existsSync(join(dir, 'manifest.json.tmp'))).toBe(false);
    expect(id).toMatch(/^20261130T100000Z-[0-9a-f]{8}$/);
  });
  it('refuses run_exists, bad inputs, and a root without a parent', async () => {
    // a fixed run-id suffix makes the second create name the same run directory
    const store = createFsStore({
      projectRoot: tempDir(),
      env: {},
      now: fixedClock(),
      runIdSuffix: () => '0a1b2c3d',
    });
    expect(await store.createRun({ dispatch: dispatch(), trackerSessionId: 'sid-1' })).toMatchObject({
      outcome: 'committed',
      run_id: '20261130T100000Z-0a1b2c3d',
    });
    expect(await store.createRun({ dispatch: dispatch(), trackerSessionId: 'sid-1' })).toMatchObject({
      outcome: 'nothing_written',
      code: 'run_exists',
    });
    expect(await store.createRun({ dispatch: { ...dispatch(), scope: 'x' } })).toMatchObject({
      code: 'invalid_dispatch',
    });
    expect(await store.createRun({ dispatch: dispatch(), now: '2026-11-30 10:00' })).toMatchObject({
      code: 'bad_timestamp',
    });
    expect(await store.createRun({ dispatch: dispatch(), priorRun: '../x' })).toMatchObject({
      code: 'bad_run_id',
    });
    expect(await store.createRun({ dispatch: dispatch(), eventSchema: 'v3' as never })).toMatchObject({
      code: 'bad_event_schema',
    });
    const orphan = createFsStore({ root: join(tempDir(), 'no/such/parent/store'), env: {} });
    expect(await orphan.createRun({ dispatch: dispatch() })).toMatchObject({ code: 'no_parent_anchor' });
  });
});

describe('append and load', () => {
  it('appends canonical lines with dense seqs; load returns them; set-handoff refreshes the cache', async () => {
    const { store, id, dir } = await newRun();
    expect(await store.append(id, 'note', note())).toMatchObject({
      outcome: 'committed',
      seq: 1,
      run_id: id,
    });
    expect(await store.append(id, 'review', batchReview())).toMatchObject({ seq: 2 });
    expect(await store.append(id, 'replan', replan([`${id}#1`, `${id}#2`]))).toMatchObject({ seq: 3 });
    expect(await store.append(id, 'dispatch', dispatch())).toMatchObject({ seq: 4 });
    expect(await store.append(id, 'handoff', stuckHandoff())).toMatchObject({ seq: 5 });
    expect(await store.setHandoff(id, solvedHandoff())).toMatchObject({ outcome: 'committed', seq: 6 });
    const lines = readFileSync(join(dir, 'events.jsonl'), 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    for (const [i, l] of lines.entries()) {
      expect(canonicalJsonUtf8(JSON.parse(l))).toBe(l);
      expect(JSON.parse(l).seq).toBe(i + 1);
    }
    const l = await store.load(id);
    if (!l.ok) throw new Error(l.detail);
    expect(l.value.events.map((e) => e.kind)).toEqual([
      'note',
      'review',
      'replan',
      'dispatch',
      'handoff',
      'handoff',
    ]);
    expect(l.value.effective_handoff?.seq).toBe(6);
    expect(l.value.handoff_cache).toBe('current');
    expect(l.value.damaged).toBe(false);
    expect(l.value.warnings).toEqual([]);
    expect(resolveCite(l.value, `${id}#3`)).toMatchObject({ ok: true, kind: 'event' });
    expect(resolveCite(l.value, `${id}#manifest`)).toMatchObject({ ok: true, kind: 'manifest' });
    expect(await store.listRuns()).toEqual([id]);
  });
  it('refuses invalid payloads, v2 kinds in a v1 run, and replan cites to this or later events', async () => {
    const { store, id, dir } = await newRun('v1');
    expect(await store.append(id, 'review', batchReview())).toMatchObject({ code: 'kind_unsupported' });
    expect(await store.append(id, 'note', { kind: 'critique', text: 'x', lean: null })).toMatchObject({
      code: 'invalid_payload',
    });
    expect(await store.append(id, 'handoff', { ...stuckHandoff(), blocker_kind: null })).toMatchObject({
      code: 'invalid_payload',
    });
    expect(readFileSync(join(dir, 'events.jsonl'), 'utf8')).toBe('');
    const v2 = await newRun();
    await v2.store.append(v2.id, 'note', note());
    expect(await v2.store.append(v2.id, 'replan', replan([`${v2.id}#2`]))).toMatchObject({
      code: 'invalid_payload',
    });
    expect(await v2.store.append(v2.id, 'replan', replan([`20261130T100000Z-ffffffff#1`]))).toMatchObject({
      code: 'invalid_payload',
    });
    expect(await v2.store.append(v2.id, 'replan', replan([`${v2.id}#1`]))).toMatchObject({ seq: 2 });
  });
  it('sees appends made by another store instance (another process)', async () => {
    const { project, store, id } = await newRun();
    const other = createFsStore({ projectRoot: project, env: {}, now: fixedClock() });
    await store.append(id, 'note', note('a'));
    await other.append(id, 'note', note('b'));
    expect(await store.append(id, 'note', note('c'))).toMatchObject({ seq: 3 });
  });
  it('reports a stale cache', async () => {
    const { store, id } = await newRun();
    await store.setHandoff(id, stuckHandoff());
    await store.append(id, 'handoff', solvedHandoff());
    const l = await store.load(id);
    expect(l.ok && l.value.handoff_cache).toBe('stale');
    expect(l.ok && l.value.warnings.map((w) => w.code)).toContain('handoff_cache_stale');
  });
});

describe('integrity', () => {
  it('truncated tail: valid prefix returned, nothing rewritten, appends refused', async () => {
    const { store, id, dir } = await newRun();
    await store.append(id, 'note', note('a'));
    await store.append(id, 'note', note('b'));
    const file = join(dir, 'events.jsonl');
    const size = statSync(file).size;
    truncateSync(file, size - 5);
    const before = readFileSync(file);
    const l = await store.load(id);
    if (!l.ok) throw new Error(l.detail);
    expect(l.value.events.map((e) => e.seq)).toEqual([1]);
    expect(l.value.damage).toMatchObject({ code: 'truncated_tail', line: 2 });
    expect(await store.append(id, 'note', note('c'))).toMatchObject({
      outcome: 'nothing_written',
      code: 'journal_damaged',
    });
    expect(readFileSync(file).equals(before)).toBe(true);
  });
  it('corrupt line with its number: bad JSON, seq gap, duplicate seq, wrong schema, non-canonical', async () => {
    const { store, id, dir } = await newRun();
    await store.append(id, 'note', note('a'));
    const file = join(dir, 'events.jsonl');
    const first = readFileSync(file, 'utf8');
    const ev = JSON.parse(first);
    const variants: [string, RegExp][] = [
      ['{not json}\n', /not JSON/],
      [`${canonicalJson({ ...ev, seq: 3 })}\n`, /seq gap/],
      [`${canonicalJson(ev)}\n`, /duplicate seq/],
      [`${canonicalJson({ ...ev, seq: 2, schema: 'run-store-event/v1' })}\n`, /schema/],
      [`${JSON.stringify({ ...ev, seq: 2 }, null, 1).replace(/\n/g, '')}\n`, /canonical/],
      [`${canonicalJson({ ...ev, seq: 2, payload: { kind: 'x', text: '', lean: null } })}\n`, /invalid note/],
    ];
    for (const [line, why] of variants) {
      writeFileSync(file, first + line);
      const l = await store.load(id);
      if (!l.ok) throw new Error(l.detail);
      expect(l.value.events).toHaveLength(1);
      expect(l.value.damage).toMatchObject({ code: 'corrupt', line: 2 });
      expect(l.value.damage?.detail).toMatch(why);
      expect(await store.append(id, 'note', note())).toMatchObject({ code: 'journal_damaged' });
    }
  });
  it('an over-deep line written behind the store (by an older version) is corrupt at its line; the prefix stays readable', async () => {
    const { store, id, dir } = await newRun();
    await store.append(id, 'note', note('a'));
    const file = join(dir, 'events.jsonl');
    const first = readFileSync(file, 'utf8');
    for (const depth of [MAX_RECORD_DEPTH + 1, 4_200, 100_000]) {
      const deep = canonicalJson({
        kind: 'review',
        payload: reviewOfDepth(depth),
        schema: 'run-store-event/v2',
        seq: 2,
        ts: '2026-11-30T10:00:00Z',
      });
      writeFileSync(file, `${first}${deep}\n`);
      for (let i = 0; i < 2; i++) {
        const l = await store.load(id);
        if (!l.ok) throw new Error(l.detail);
        expect(l.value.events.map((e) => e.payload)).toEqual([note('a')]);
        expect(l.value.damage).toMatchObject({ code: 'corrupt', line: 2 });
        expect(l.value.damage?.detail).toMatch(/nests deeper than 64/);
        // appends are refused as for any damage (never journal_unreadable), and write nothing
        expect(await store.append(id, 'note', note('b'))).toMatchObject({
          outcome: 'nothing_written',
          code: 'journal_damaged',
        });
      }
    }
    // a manifest whose dispatch nests too deep is an invalid manifest, not an unreadable store
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    writeFileSync(
      join(dir, 'manifest.json'),
      canonicalJson({ ...manifest, dispatch: { ...manifest.dispatch, parameters: nest(100_000) } }),
    );
    expect(await store.load(id)).toMatchObject({
      ok: false,
      code: 'incomplete_run',
      detail: expect.stringMatching(/dispatch: nests deeper than 64/),
    });
  });
  it('incomplete_run and integrity_failure', async () => {
    const { store, id, dir } = await newRun();
    writeFileSync(join(dir, 'manifest.json.bak'), readFileSync(join(dir, 'manifest.json')));
    writeFileSync(join(dir, 'manifest.json'), '{"schema":');
    expect(await store.load(id)).toMatchObject({ ok: false, code: 'incomplete_run' });
    expect(await store.append(id, 'note', note())).toMatchObject({ code: 'incomplete_run' });
    renameSync(join(dir, 'manifest.json.bak'), join(dir, 'manifest.json'));
    renameSync(join(dir, 'events.jsonl'), join(dir, 'gone'));
    expect(await store.load(id)).toMatchObject({ ok: false, code: 'integrity_failure' });
    // a manifest copied under another run's directory
    const other = join(dir, '..', '20261130T100000Z-00000000');
    mkdirSync(other);
    writeFileSync(join(other, 'manifest.json'), readFileSync(join(dir, 'manifest.json')));
    writeFileSync(join(other, 'events.jsonl'), '');
    expect(await store.load('20261130T100000Z-00000000')).toMatchObject({
      ok: false,
      code: 'integrity_failure',
    });
  });
});

describe('locks and containment', () => {
  it('an existing lock is busy and is never broken; readers ignore it', async () => {
    const { store, id, dir } = await newRun();
    writeFileSync(join(dir, '.lock'), '{"pid":1}\n');
    expect(await store.isLocked(id)).toBe(true);
    expect(await store.append(id, 'note', note())).toMatchObject({
      outcome: 'nothing_written',
      code: 'busy',
    });
    expect(await store.setHandoff(id, solvedHandoff())).toMatchObject({ code: 'busy' });
    expect(readFileSync(join(dir, '.lock'), 'utf8')).toBe('{"pid":1}\n');
    expect((await store.load(id)).ok).toBe(true);
  });
  it('refuses malformed run ids and symlinked run directories', async () => {
    const { project, store, id, dir } = await newRun();
    for (const bad of ['../x', `${id}/..`, `${id} `, 'runs', `${id.toUpperCase()}`]) {
      expect(await store.append(bad, 'note', note())).toMatchObject({ code: 'bad_run_id' });
      expect(await store.load(bad)).toMatchObject({ ok: false, code: 'bad_run_id' });
    }
    const target = join(project, 'elsewhere');
    renameSync(dir, target);
    symlinkSync(target, dir);
    expect(await store.append(id, 'note', note())).toMatchObject({ code: 'containment' });
    expect(await store.load(id)).toMatchObject({ ok: false, code: 'containment' });
    expect(await store.listRuns()).toEqual([]);
    expect(readFileSync(join(target, 'events.jsonl'), 'utf8')).toBe('');
  });
  it('refuses a symlinked journal', async () => {
    const { project, store, id, dir } = await newRun();
    const outside = join(project, 'outside.jsonl');
    writeFileSync(outside, '');
    renameSync(join(dir, 'events.jsonl'), join(project, 'x'));
    symlinkSync(outside, join(dir, 'events.jsonl'));
    expect(await store.append(id, 'note', note())).toMatchObject({ code: 'containment' });
    expect(readFileSync(outside, 'utf8')).toBe('');
    appendFileSync(outside, '');
  });
  it('no_such_run, no_runs_dir, no_storage_root', async () => {
    const { store } = await newRun();
    expect(await store.load('20261130T100000Z-00000000')).toMatchObject({ code: 'no_such_run' });
    const empty = createFsStore({ root: join(tempDir(), 'store'), env: {} });
    expect(await empty.load('20261130T100000Z-00000000')).toMatchObject({ code: 'no_storage_root' });
    const r = join(tempDir(), 'store');
    mkdirSync(r);
    expect(await createFsStore({ root: r, env: {} }).load('20261130T100000Z-00000000')).toMatchObject({
      code: 'no_runs_dir',
    });
  });
});
