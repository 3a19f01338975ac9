/**
 * The chain run kind's pure rules and the fs backend's integrity on chain journals: run ids,
 * manifest rules, the valid prefix with its damage classes (torn tail, corrupt line, a commit out
 * of sequence, a non-canonical line), appends refused on damage, and containment.
 */
import { appendFileSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Baton, StageReceipt } from '../../src/chain/index.js';
import {
  ChainManifestSchema,
  createFsStore,
  makeRunId,
  parseChainJournal,
  validateRecord,
} from '../../src/store/index.js';
import { chainCommits, chainRunInput, fixedClock } from './fixtures.js';
import { tempDir } from './tmp.js';

const commit = (b: Baton) => ({ baton: b, receipt: b.stage_receipts.at(-1) as StageReceipt });

/** The run-id suffix of the chain runs {@link fsChainRun} creates. */
const CHAIN_SUFFIX = 'c4a1b2d3';

async function fsChainRun(commits = 3) {
  const store = createFsStore({
    projectRoot: tempDir('chain-run-'),
    env: {},
    now: fixedClock(),
    gitTracked: () => [],
    runIdSuffix: () => CHAIN_SUFFIX,
  });
  const { batons, otherBatons } = await chainCommits();
  const id = (await store.createChainRun(chainRunInput(batons[0] as Baton))).run_id as string;
  for (const b of batons.slice(1, 1 + commits)) {
    const r = await store.append(id, 'baton-commit', commit(b));
    if (r.outcome !== 'committed') throw new Error(JSON.stringify(r));
  }
  const events = join(store.runDirectory(id), 'events.jsonl');
  return { store, id, batons, otherBatons, events };
}

describe('chain run ids and manifests', () => {
  it('the run id is the timestamp and 8 random hex: the same start baton in the same second gets two runs', async () => {
    const store = createFsStore({
      projectRoot: tempDir('chain-run-'),
      env: {},
      now: fixedClock(),
      gitTracked: () => [],
    });
    const { batons } = await chainCommits();
    const a = await store.createChainRun(chainRunInput(batons[0] as Baton));
    const b = await store.createChainRun(chainRunInput(batons[0] as Baton));
    expect([a.outcome, b.outcome]).toEqual(['committed', 'committed']);
    expect(a.run_id).toMatch(/^20261130T100000Z-[0-9a-f]{8}$/);
    expect(b.run_id).toMatch(/^20261130T100000Z-[0-9a-f]{8}$/);
    expect(a.run_id).not.toBe(b.run_id);
    expect([...(await store.listRuns())].sort()).toEqual([a.run_id, b.run_id].sort());
  });

  it('the store derives that id and publishes a manifest that passes its schema; tampering fails it', async () => {
    const { store, id, batons } = await fsChainRun(0);
    const manifest = JSON.parse(readFileSync(join(store.runDirectory(id), 'manifest.json'), 'utf8'));
    expect(id).toBe(makeRunId('2026-11-30T10:00:00Z', () => CHAIN_SUFFIX));
    expect(manifest).toMatchObject({
      baton_id: batons[0]?.baton_id,
      contract_digest: batons[0]?.contract_digest,
    });
    expect(ChainManifestSchema.safeParse(manifest).success).toBe(true);
    expect(Object.keys(manifest).sort()).toEqual(
      [
        'schema',
        'run_id',
        'created',
        'plugin_version',
        'storage_root',
        'prior_run',
        'chain_id',
        'baton_id',
        'contract_digest',
        'contract',
        'stages',
        'start_baton',
        'event_schema',
      ].sort(),
    );
    for (const bad of [
      { ...manifest, extra: 1 },
      { ...manifest, contract_digest: '0123456789abcdef' },
      { ...manifest, baton_id: 'trip-2' },
      { ...manifest, stages: ['intent', 'intent', 'pay'] },
      { ...manifest, start_baton: { ...manifest.start_baton, intent: 'changed' } },
    ])
      expect(validateRecord('manifest', bad).length, JSON.stringify(Object.keys(bad))).toBeGreaterThan(0);
  });
});

describe('chain journal integrity (fs)', () => {
  it('a torn last line: the valid prefix loads, truncated_tail is reported, appends are journal_damaged', async () => {
    const { store, id, events, batons } = await fsChainRun(2);
    appendFileSync(events, '{"kind":"baton-commit","payl');
    const l = await store.loadRun(id);
    if (!l.ok || !('last_baton' in l.value)) throw new Error('load failed');
    expect(l.value.events.map((e) => e.seq)).toEqual([1, 2]);
    expect(l.value.damage).toMatchObject({ code: 'truncated_tail', line: 3 });
    expect(l.value.warnings).toContainEqual(expect.objectContaining({ code: 'truncated_tail', line: 3 }));
    expect(l.value.last_baton.revision).toBe(2);
    expect(await store.append(id, 'baton-commit', commit(batons[3] as Baton))).toMatchObject({
      outcome: 'nothing_written',
      code: 'journal_damaged',
    });
    // a second store instance (no cached state) refuses too: nothing is ever truncated or rewritten
    const other = createFsStore({ root: store.root, env: {}, now: fixedClock(), gitTracked: () => [] });
    expect(await other.append(id, 'baton-commit', commit(batons[3] as Baton))).toMatchObject({
      code: 'journal_damaged',
    });
    expect(readFileSync(events, 'utf8').endsWith('"payl')).toBe(true);
  });

  it('a line out of sequence (another history’s commit written behind the lock) is corrupt at its line', async () => {
    const { store, id, events, otherBatons } = await fsChainRun(2);
    const lines = readFileSync(events, 'utf8').trimEnd().split('\n');
    // replace line 2 (our r2) by the other history's r2 with r3 appended: r2' still follows r1, so
    // the defect is at line 3 — our r3 does not start from r2'
    const ours = JSON.parse(lines[1] as string);
    const theirs = { ...ours, payload: commit(otherBatons[2] as Baton) };
    const { batons } = await chainCommits();
    const r3 = { ...ours, seq: 3, payload: commit(batons[3] as Baton) };
    const canon = (await import('../../src/canonical/index.js')).canonicalJson;
    writeFileSync(events, `${lines[0]}\n${canon(theirs)}\n${canon(r3)}\n`);
    const l = await store.loadRun(id);
    if (!l.ok) throw new Error(l.detail);
    expect(l.value.events).toHaveLength(2);
    expect(l.value.damage).toMatchObject({ code: 'corrupt', line: 3 });
    expect(l.value.damage?.detail).toContain('is not the last committed fingerprint');
  });

  it('parseChainJournal: seq gaps, wrong schema or kind, tampered batons and non-canonical lines are corrupt', async () => {
    const { store, id, events } = await fsChainRun(2);
    const l = await store.loadRun(id);
    if (!l.ok || !('last_baton' in l.value)) throw new Error('load failed');
    const manifest = l.value.manifest;
    const lines = readFileSync(events, 'utf8').trimEnd().split('\n');
    const first = JSON.parse(lines[0] as string);
    const canon = (await import('../../src/canonical/index.js')).canonicalJson;
    const cases: [string, string][] = [
      [canon({ ...first, seq: 2 }), 'seq gap'],
      [canon({ ...first, schema: 'run-store-event/v2' }), 'is not this run'],
      [canon({ ...first, kind: 'note' }), 'not allowed'],
      [
        canon({ ...first, payload: { ...first.payload, baton: { ...first.payload.baton, intent: 'x' } } }),
        'fingerprint',
      ],
      [JSON.stringify(first, null, 1).replace(/\n/g, ''), 'canonical'],
      ['not json', 'not JSON'],
    ];
    for (const [line, why] of cases) {
      const p = parseChainJournal(Buffer.from(`${line}\n${lines[1]}\n`), manifest);
      expect(p.events, why).toHaveLength(0);
      expect(p.damage?.code, why).toBe('corrupt');
      expect(p.damage?.detail, why).toContain(why);
      expect(p.validBytes).toBe(0);
    }
    const whole = parseChainJournal(Buffer.from(`${lines.join('\n')}\n`), manifest);
    expect(whole.damage).toBeNull();
    expect(whole.tail.revision).toBe(2);
  });

  it('containment: a symlinked journal is refused for appends and loads', async () => {
    const { store, id, events, batons } = await fsChainRun(1);
    const copy = `${events}.real`;
    writeFileSync(copy, readFileSync(events));
    unlinkSync(events);
    symlinkSync(copy, events);
    const other = createFsStore({ root: store.root, env: {}, now: fixedClock(), gitTracked: () => [] });
    expect(await other.append(id, 'baton-commit', commit(batons[2] as Baton))).toMatchObject({
      code: 'containment',
    });
    expect(await other.loadRun(id)).toMatchObject({ ok: false, code: 'containment' });
  });

  it('property: a cut or a flipped byte never yields a false valid prefix', async () => {
    const { store, id, events } = await fsChainRun(3);
    const l = await store.loadRun(id);
    if (!l.ok || !('last_baton' in l.value)) throw new Error('load failed');
    const manifest = l.value.manifest;
    const bytes = readFileSync(events);
    // ts is not covered by any digest (as for every run-store event): compare seq, kind, payload
    const key = (e: { seq: number; kind: string; payload: unknown }) =>
      JSON.stringify([e.seq, e.kind, e.payload]);
    const good = parseChainJournal(bytes, manifest).events.map(key);
    expect(good).toHaveLength(3);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: bytes.length - 1 }),
        fc.integer({ min: 1, max: 255 }),
        fc.boolean(),
        (at, xor, cut) => {
          const damaged = Buffer.from(bytes);
          const input = cut ? damaged.subarray(0, at) : damaged;
          if (!cut) damaged[at] = (damaged[at] as number) ^ xor;
          const p = parseChainJournal(input, manifest);
          const got = p.events.map(key);
          // the valid prefix is always a prefix of the true history, and the damage is reported
          expect(got).toEqual(good.slice(0, got.length));
          if (!cut && got.length < 3) expect(p.damage).not.toBeNull();
          // a cut is whole only at a line boundary
          if (cut && p.damage === null) expect(at === 0 || input[at - 1] === 0x0a).toBe(true);
          expect(p.validBytes).toBeLessThanOrEqual(input.length);
        },
      ),
      { numRuns: 300, seed: 20261130 },
    );
  });
});
