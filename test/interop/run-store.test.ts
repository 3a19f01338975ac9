/**
 * The run store across implementations (issue 17 items 1 and 2). They wrote → we read: a reference
 * run (`20260909T120000Z-7484bfa8`, hand-written in the reference's format: raw UTF-8 canonical
 * lines, Lean goals in a note, the dispatch and handoff, extra keys at the root, in context,
 * evidence and the baseline) loads whole, validates and accepts appends, and what we append is
 * byte-identical to Python's `json.dumps(…, ensure_ascii=False, separators=(",", ":"),
 * sort_keys=True)` (python3 run as a real child process); the same events written by either side
 * give the same bytes. We write → they read: every line we write passes a strict reader of the
 * reference format (fixtures/reference_store.py, which re-serializes each line and compares
 * bytes). Older runs of ours (all-ASCII lines) still load and accept appends. The deliberate
 * differences (a CRLF line, a non-canonical line, a lone surrogate) are pinned with both verdicts.
 * And `run-store-load/v1` has the reference's shape: `damaged` a boolean, `warnings` objects, a
 * missing cache beside a handoff `stale`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonUtf8 } from '../../src/canonical/index.js';
import { createFsStore, type RunLoad, validateRecord } from '../../src/store/index.js';
import { CLI_BIN, runCli, stdoutJson } from '../helpers/cli.js';
import { batchReview, note, replan, solvedHandoff, stuckHandoff } from '../store/fixtures.js';
import { referenceRecordProblems } from './reference-readers.js';

const RUN = '20260909T120000Z-7484bfa8';
/** The fixture run's files (manifest.json and handoff.json stored as `*.raw`: see its README). */
const FIXTURE = fileURLToPath(new URL(`./fixtures/run-store/runs/${RUN}`, import.meta.url));
const fixtureFile = (name: 'manifest.json' | 'events.jsonl' | 'handoff.json'): string =>
  join(FIXTURE, name === 'events.jsonl' ? name : `${name}.raw`);
const PY = fileURLToPath(new URL('./fixtures/reference_store.py', import.meta.url));
const hasPython = spawnSync('python3', ['--version']).status === 0;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'interop-store-'));
  dirs.push(d);
  return d;
}

/** The fixture run copied into a fresh store root; returns the root and the run directory. */
function fixtureStore(): { root: string; dir: string } {
  const root = join(tmp(), 'store');
  const dir = join(root, 'runs', RUN);
  mkdirSync(dir, { recursive: true });
  for (const name of ['manifest.json', 'events.jsonl', 'handoff.json'] as const)
    copyFileSync(fixtureFile(name), join(dir, name));
  return { root, dir };
}

/** A store whose clock reads `clock.t`. */
function storeAt(root: string, clock: { t: string }, extra: Parameters<typeof createFsStore>[0] = {}) {
  return createFsStore({ root, env: {}, now: () => new Date(clock.t), gitTracked: () => [], ...extra });
}

/** python3 fixtures/reference_store.py MODE… (stdout bytes). */
function py(args: readonly string[], input?: string): Buffer {
  return execFileSync('python3', [PY, ...args], { input: input ?? '', maxBuffer: 64 << 20 });
}

/** The reference serialization (python3) of each JSON text, as UTF-8 lines. */
function pythonDumps(texts: readonly string[]): Buffer[] {
  const out = py(['dumps'], `${texts.join('\n')}\n`);
  const lines: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const nl = out.indexOf(0x0a, pos);
    if (nl === -1) break;
    lines.push(out.subarray(pos, nl));
    pos = nl + 1;
  }
  return lines;
}

function checkRun(dir: string): { ok: boolean; lines: number; problems: string[] } {
  return JSON.parse(py(['check-run', dir]).toString('utf8'));
}

function referenceReader(dir: string): { events: number; damaged: boolean; warnings: { code: string }[] } {
  return JSON.parse(py(['read-journal', dir]).toString('utf8'));
}

/** Complete lines of a file's bytes (without their `\n`). */
function byteLines(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const nl = bytes.indexOf(0x0a, pos);
    if (nl === -1) return out;
    out.push(bytes.subarray(pos, nl));
    pos = nl + 1;
  }
}

const loaded = async (root: string, runId = RUN): Promise<RunLoad> => {
  const l = await storeAt(root, { t: '2026-09-09T13:00:00Z' }).load(runId);
  if (!l.ok) throw new Error(`${l.code}: ${l.detail}`);
  return l.value;
};

/** A note with what the reference writes raw and what it escapes. */
const leanNote = note('closes ⊢ a ≤ b; 😀 in ℕ; tab\there; line\u2028sep; DEL\u007f; "q" \\ / \u0001');

describe('they wrote → we read: the reference run with Lean goals loads, validates and accepts appends', () => {
  it('loads whole: not damaged, the cache current, Lean goals and extra keys as written', async () => {
    const { root, dir } = fixtureStore();
    const before = readFileSync(join(dir, 'events.jsonl'));
    const l = await loaded(root);
    expect(l.damaged).toBe(false);
    expect(l.damage).toBeNull();
    expect(l.handoff_cache).toBe('current');
    expect(l.events.map((e) => [e.seq, e.kind])).toEqual([
      [1, 'note'],
      [2, 'dispatch'],
      [3, 'handoff'],
    ]);
    expect((l.events[0]?.payload as { text?: string } | undefined)?.text).toBe('closes ⊢ a ≤ b');
    expect(l.effective_handoff?.seq).toBe(3);
    // extra keys of a newer reference: kept, never dropped
    expect(l.manifest.dispatch).toMatchObject({
      review_source: 'internal',
      context: { lsp_snapshot: 'Foo.lean@v7' },
    });
    expect(l.events[2]?.payload).toMatchObject({
      worker_version: 'sorry-filler-deep@2',
      evidence: { lean_version: '4.12.0' },
    });
    // the only warning is ours: the run was written under another storage root
    expect(l.warnings).toEqual([
      { code: 'storage_root_differs', detail: expect.stringContaining('/fixture/.lean4-skills') },
    ]);
    expect(readFileSync(join(dir, 'events.jsonl')).equals(before)).toBe(true);
  });

  it('every record in it validates (store validate; the reference validator has nothing missing)', () => {
    const lines = readFileSync(fixtureFile('events.jsonl'), 'utf8').split('\n').filter(Boolean);
    for (const line of lines) expect(validateRecord('event', JSON.parse(line))).toEqual([]);
    const manifest = JSON.parse(readFileSync(fixtureFile('manifest.json'), 'utf8'));
    expect(validateRecord('manifest', manifest)).toEqual([]);
    expect(validateRecord('cache', JSON.parse(readFileSync(fixtureFile('handoff.json'), 'utf8')))).toEqual(
      [],
    );
    expect(referenceRecordProblems('dispatch', manifest.dispatch)).toEqual([]);
    expect(referenceRecordProblems('dispatch', JSON.parse(lines[1] as string).payload)).toEqual([]);
    expect(referenceRecordProblems('handoff', JSON.parse(lines[2] as string).payload)).toEqual([]);
  });

  it.skipIf(!hasPython)('the fixture is in the reference form (the strict reader accepts every line)', () => {
    expect(checkRun(fixtureStore().dir)).toEqual({ ok: true, lines: 5, problems: [] });
  });

  it.skipIf(!hasPython)(
    'accepts appends; each appended line and the cache are byte-identical to python3 json.dumps(…, ensure_ascii=False)',
    async () => {
      const { root, dir } = fixtureStore();
      const clock = { t: '2026-09-09T12:10:00Z' };
      const store = storeAt(root, clock);
      const size = statSync(join(dir, 'events.jsonl')).size;
      expect(await store.append(RUN, 'note', leanNote)).toMatchObject({ outcome: 'committed', seq: 4 });
      clock.t = '2026-09-09T12:10:01Z';
      const final = { ...solvedHandoff(), target: '/repo/Foo.lean:42', reviewer_note: 'closes ⊢ a ≤ b ✓' };
      expect(await store.setHandoff(RUN, final)).toMatchObject({ outcome: 'committed', seq: 5 });
      const appended = byteLines(readFileSync(join(dir, 'events.jsonl')).subarray(size));
      expect(appended).toHaveLength(2);
      const texts = appended.map((b) => b.toString('utf8'));
      const expected = pythonDumps(texts);
      for (const [i, b] of appended.entries()) expect(b.equals(expected[i] as Buffer)).toBe(true);
      // the raw form: Lean goals as UTF-8, controls escaped as Python escapes them
      expect(texts[0]).toContain(
        '"text":"closes ⊢ a ≤ b; 😀 in ℕ; tab\\there; line\u2028sep; DEL\u007f; \\"q\\" \\\\ / \\u0001"',
      );
      const cache = readFileSync(join(dir, 'handoff.json'));
      expect(
        cache.equals(Buffer.concat([...pythonDumps([cache.toString('utf8').trimEnd()]), Buffer.from('\n')])),
      ).toBe(true);
      expect(checkRun(dir)).toEqual({ ok: true, lines: 7, problems: [] });
      const l = await loaded(root);
      expect([l.damaged, l.events.length, l.handoff_cache]).toEqual([false, 5, 'current']);
      expect(l.events[3]?.payload).toEqual(leanNote);
    },
  );

  it('the same events written by either side are byte-identical (manifest, journal, cache)', async () => {
    const root = join(tmp(), 'store');
    const clock = { t: '2026-09-09T12:00:00Z' };
    const store = storeAt(root, clock, { runIdSuffix: () => '7484bfa8', pluginVersion: '4.11.1' });
    const manifest = JSON.parse(readFileSync(fixtureFile('manifest.json'), 'utf8'));
    const events = readFileSync(fixtureFile('events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { ts: string; kind: 'note' | 'dispatch' | 'handoff'; payload: unknown });
    const c = await store.createRun({
      dispatch: manifest.dispatch,
      trackerSessionId: 'fixture',
      now: '2026-09-09T12:00:00Z',
      eventSchema: 'v1',
    });
    expect(c).toMatchObject({ outcome: 'committed', run_id: RUN });
    for (const e of events) {
      clock.t = e.ts;
      const r =
        e.kind === 'handoff'
          ? await store.setHandoff(RUN, e.payload)
          : await store.append(RUN, e.kind, e.payload);
      expect(r.outcome).toBe('committed');
    }
    const ours = join(root, 'runs', RUN);
    expect(readFileSync(join(ours, 'events.jsonl')).equals(readFileSync(fixtureFile('events.jsonl')))).toBe(
      true,
    );
    expect(readFileSync(join(ours, 'handoff.json')).equals(readFileSync(fixtureFile('handoff.json')))).toBe(
      true,
    );
    // the manifest differs only in the storage root each side records
    const theirs = readFileSync(fixtureFile('manifest.json'), 'utf8').replace(
      '"storage_root":"/fixture/.lean4-skills"',
      `"storage_root":${JSON.stringify(store.root)}`,
    );
    expect(readFileSync(join(ours, 'manifest.json')).equals(Buffer.from(theirs, 'utf8'))).toBe(true);
  });
});

describe('we write → they read: a strict reader of the reference format accepts every line', () => {
  it.skipIf(!hasPython)(
    'a v2 run with every kind, Lean goals, controls, astral characters, U+2028 and extra keys',
    async () => {
      const root = join(tmp(), 'store');
      const store = storeAt(root, { t: '2026-11-30T10:00:00Z' });
      const d = JSON.parse(readFileSync(fixtureFile('manifest.json'), 'utf8')).dispatch;
      const id = (await store.createRun({ dispatch: d, trackerSessionId: 'sid ⊢' })).run_id as string;
      const review = {
        ...batchReview(),
        output: { ...(batchReview().output as object), note: '⊢ a ≤ b\n\t😀' },
      };
      for (const [kind, payload] of [
        ['note', leanNote],
        ['review', review],
        ['replan', replan([`${id}#1`, `${id}#2`])],
        ['dispatch', d],
        ['handoff', { ...stuckHandoff(), stop_detail: null, extra: { ключ: 'значение', '😀': 1, ﬀ: 2 } }],
      ] as const)
        expect((await store.append(id, kind, payload)).outcome).toBe('committed');
      expect((await store.setHandoff(id, solvedHandoff())).outcome).toBe('committed');
      expect(checkRun(join(root, 'runs', id))).toEqual({ ok: true, lines: 8, problems: [] });
    },
  );
});

describe('older runs of ours (all-ASCII lines) still load and take appends', () => {
  it.skipIf(!hasPython)(
    'a mixed journal (ASCII lines, then raw UTF-8 lines) loads whole here and in the reference reader',
    async () => {
      const root = join(tmp(), 'store');
      const clock = { t: '2026-11-30T10:00:00Z' };
      const store = storeAt(root, clock);
      const id = (
        await store.createRun({
          dispatch: JSON.parse(readFileSync(fixtureFile('manifest.json'), 'utf8')).dispatch,
        })
      ).run_id as string;
      const dir = join(root, 'runs', id);
      // the journal as this runtime wrote it before: every character ≥ U+007F escaped
      const old = [1, 2].map((seq) =>
        canonicalJson({
          kind: 'note',
          payload: note(`old ⊢ ${seq}`),
          schema: 'run-store-event/v2',
          seq,
          ts: clock.t,
        }),
      );
      writeFileSync(join(dir, 'events.jsonl'), `${old.join('\n')}\n`);
      expect(old[0]).toContain('old \\u22a2 1');
      const fresh = storeAt(root, clock);
      expect(await fresh.append(id, 'note', note('new ⊢ 3'))).toMatchObject({ outcome: 'committed', seq: 3 });
      const lines = readFileSync(join(dir, 'events.jsonl'), 'utf8').split('\n');
      expect(lines[2]).toContain('"text":"new ⊢ 3"');
      const l = await loaded(root, id);
      expect([l.damaged, l.events.length]).toEqual([false, 3]);
      expect(l.events.map((e) => (e.payload as { text: string }).text)).toEqual([
        'old ⊢ 1',
        'old ⊢ 2',
        'new ⊢ 3',
      ]);
      // the reference's own reader does not look at a line's form: it reads all three
      expect(referenceReader(dir)).toEqual({ events: 3, damaged: false, warnings: [] });
      // a strict byte-for-byte reader tells the two older lines apart (the new one is identical)
      expect(checkRun(dir).problems).toEqual([
        'events.jsonl:1: not byte-identical to the reference serialization',
        'events.jsonl:2: not byte-identical to the reference serialization',
      ]);
    },
  );
});

describe('deliberate differences, both verdicts pinned', () => {
  it.skipIf(!hasPython)(
    'a CRLF-terminated line: the reference reader accepts it (json.loads skips the \\r); here it is corrupt at its line',
    async () => {
      const { root, dir } = fixtureStore();
      const text = readFileSync(join(dir, 'events.jsonl'), 'utf8').split('\n');
      writeFileSync(join(dir, 'events.jsonl'), `${text[0]}\n${text[1]}\r\n${text[2]}\n`);
      expect(referenceReader(dir)).toEqual({ events: 3, damaged: false, warnings: [] });
      const bytes = readFileSync(join(dir, 'events.jsonl'));
      const l = await loaded(root);
      expect(l.damaged).toBe(true);
      expect(l.damage).toMatchObject({
        code: 'corrupt',
        line: 2,
        detail: expect.stringMatching(/not a canonical/),
      });
      expect(l.warnings[0]).toEqual({ code: 'corrupt', line: 2, detail: l.damage?.detail });
      expect(l.events.map((e) => e.seq)).toEqual([1]);
      expect(await storeAt(root, { t: '2026-09-09T12:10:00Z' }).append(RUN, 'note', note('x'))).toMatchObject(
        {
          outcome: 'nothing_written',
          code: 'journal_damaged',
        },
      );
      expect(readFileSync(join(dir, 'events.jsonl')).equals(bytes)).toBe(true);
    },
  );

  it('a line canonical under neither rule is still damage (spacing, key order, mixed escaping, `\\/`)', async () => {
    const ev = JSON.parse(readFileSync(fixtureFile('events.jsonl'), 'utf8').split('\n')[1] as string);
    const raw = canonicalJsonUtf8(ev);
    for (const bad of [
      JSON.stringify(ev, null, 1).replaceAll('\n', ''),
      raw.replace('{"kind":"dispatch",', '{').replace(/}$/, ',"kind":"dispatch"}'),
      raw.replace('⊢', '\\u22a2'), // one goal escaped, the others raw
      raw.replace('/repo/Foo.lean', '\\/repo\\/Foo.lean'),
    ]) {
      const { root, dir } = fixtureStore();
      const lines = readFileSync(join(dir, 'events.jsonl'), 'utf8').split('\n');
      writeFileSync(join(dir, 'events.jsonl'), `${lines[0]}\n${bad}\n${lines[2]}\n`);
      const l = await loaded(root);
      expect([l.damaged, l.damage?.code, l.damage?.line]).toEqual([true, 'corrupt', 2]);
    }
  });

  it('a string UTF-8 cannot encode (a lone surrogate) is refused before anything is written, as in the reference', async () => {
    const { root, dir } = fixtureStore();
    const store = storeAt(root, { t: '2026-09-09T12:10:00Z' });
    const before = readFileSync(join(dir, 'events.jsonl'));
    expect(await store.append(RUN, 'note', note('half a pair \ud83d'))).toMatchObject({
      outcome: 'nothing_written',
      code: 'invalid_payload',
      detail: expect.stringMatching(/lone surrogate/),
    });
    expect(readFileSync(join(dir, 'events.jsonl')).equals(before)).toBe(true);
    const d = JSON.parse(readFileSync(fixtureFile('manifest.json'), 'utf8')).dispatch;
    const c = await store.createRun({ dispatch: { ...d, context: { ...d.context, goal_state: '\udc00' } } });
    expect(c).toMatchObject({ outcome: 'nothing_written', code: 'invalid_dispatch' });
    expect(await store.listRuns()).toEqual([RUN]);
  });
});

describe('run-store-load/v1 has the reference shape (issue 17 item 2)', () => {
  it('damaged is a boolean, warnings are {code, line?, …} objects, our detail is in damage', async () => {
    const { root, dir } = fixtureStore();
    const whole = await loaded(root);
    expect(Object.keys(whole)).toEqual([
      'schema',
      'run_id',
      'event_schema',
      'manifest',
      'events',
      'effective_handoff',
      'handoff_cache',
      'damaged',
      'damage',
      'warnings',
      'note',
    ]);
    expect(whole).toMatchObject({
      schema: 'run-store-load/v1',
      event_schema: 'run-store-event/v1',
      damaged: false,
    });
    // a torn last line: truncated_tail with its line and bytes, as the reference reports it
    writeFileSync(join(dir, 'events.jsonl'), '{"kind":"note","pay', { flag: 'a' });
    const torn = await loaded(root);
    expect(torn.damaged).toBe(true);
    expect(torn.damage).toEqual({
      code: 'truncated_tail',
      line: 4,
      bytes: 19,
      detail: 'line 4 is not newline-terminated (19 bytes)',
    });
    expect(torn.warnings).toEqual([
      { code: 'truncated_tail', line: 4, bytes: 19, detail: 'line 4 is not newline-terminated (19 bytes)' },
      { code: 'storage_root_differs', detail: expect.any(String) },
    ]);
  });

  it('a missing cache while the journal holds a handoff is stale with handoff_cache_stale; without a handoff it is absent', async () => {
    const { root, dir } = fixtureStore();
    unlinkSync(join(dir, 'handoff.json'));
    const l = await loaded(root);
    expect(l.handoff_cache).toBe('stale');
    expect(l.warnings).toEqual([
      { code: 'handoff_cache_stale', detail: 'missing' },
      { code: 'storage_root_differs', detail: expect.any(String) },
    ]);
    const lines = readFileSync(join(dir, 'events.jsonl'), 'utf8').split('\n');
    writeFileSync(join(dir, 'events.jsonl'), `${lines[0]}\n${lines[1]}\n`);
    const noHandoff = await loaded(root);
    expect([noHandoff.handoff_cache, noHandoff.warnings.map((w) => w.code)]).toEqual([
      'absent',
      ['storage_root_differs'],
    ]);
    // a cache that does not match the journal: stale, and the reason in detail
    writeFileSync(join(dir, 'handoff.json'), readFileSync(fixtureFile('handoff.json')));
    expect((await loaded(root)).warnings[0]).toEqual({
      code: 'handoff_cache_stale',
      detail: 'cache present but no handoff in the observed journal prefix',
    });
  });

  it.skipIf(!hasPython || !existsSync(CLI_BIN))(
    "`handoff store load` prints that shape, and the reference's reuse reads it (damaged truthiness, warning codes)",
    async () => {
      const { root, dir } = fixtureStore();
      writeFileSync(join(dir, 'events.jsonl'), '{"kind":"note"', { flag: 'a' });
      const r = await runCli(['store', 'load', '--root', root, '--run-id', RUN]);
      expect(r.code, r.stderr).toBe(0);
      const out = stdoutJson<RunLoad>(r);
      expect(out).toMatchObject({
        schema: 'run-store-load/v1',
        damaged: true,
        damage: { code: 'truncated_tail', line: 4 },
        warnings: [{ code: 'truncated_tail', line: 4, bytes: 14 }, { code: 'storage_root_differs' }],
      });
      // run_reuse.py load_prior: `if res.get("damaged"): … "; ".join(w.get("code", "?") for w in res["warnings"])`
      const verdict = execFileSync(
        'python3',
        [
          '-c',
          'import json,sys\nres=json.load(sys.stdin)\nprint("damaged: " + "; ".join(w.get("code", "?") for w in res.get("warnings", [])) if res.get("damaged") else "whole")',
        ],
        { input: r.stdout },
      ).toString('utf8');
      expect(verdict.trim()).toBe('damaged: truncated_tail; storage_root_differs');
    },
  );
});

/**
 * Issue 34 items 1–4. The reference's verdicts come from `run_store.py` (lean4-skills @b9ad328:
 * `validate_event` — `_is_int(seq)`, `_is_str(ts)`, `CITE_RE.match` with `$`) through the
 * transcribed reader `fixtures/reference_store.py read-journal`, run in python3, and lines are
 * written by python3's `json.dumps` as the reference writes them.
 */
describe.skipIf(!hasPython)('issue 34: integral floats, timestamps, unknown kinds and cites', () => {
  /** Appends to the run's journal the reference serialization of `texts` (python3). */
  function appendAsReference(dir: string, texts: readonly string[]): void {
    const lines = pythonDumps(texts);
    writeFileSync(join(dir, 'events.jsonl'), Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])), {
      flag: 'a',
    });
  }
  const noteLine = (seq: string, extra = '') =>
    `{"kind":"note","payload":{"kind":"candidate","lean":null,"text":"t"},"schema":"run-store-event/v1","seq":${seq},"ts":"2026-09-09T12:00:09Z"${extra}}`;

  it('item 1: "seq":4.0 is corrupt for both (the reference: not an int); ours refuses appends after it', async () => {
    const { root, dir } = fixtureStore();
    appendAsReference(dir, [noteLine('4.0')]);
    expect(readFileSync(join(dir, 'events.jsonl'), 'utf8')).toContain('"seq":4.0,');
    expect(referenceReader(dir)).toMatchObject({
      events: 3,
      damaged: true,
      warnings: [{ code: 'corrupt', line: 4 }],
    });
    const l = await loaded(root);
    expect(l.events).toHaveLength(3);
    expect(l.damage).toEqual({
      code: 'corrupt',
      line: 4,
      detail: 'line 4: seq: an integer field written as a float (4.0)',
    });
    const a = await storeAt(root, { t: '2026-09-09T13:00:00Z' }).append(RUN, 'note', note('after'));
    expect(a).toMatchObject({ outcome: 'nothing_written', code: 'journal_damaged' });
  });

  it('item 1: an integral float in an integer field of the payload (a dispatch budget) is corrupt; in an extra key it is not', async () => {
    const { root, dir } = fixtureStore();
    const dispatchLine = readFileSync(fixtureFile('events.jsonl'), 'utf8').split('\n')[1] as string;
    const asSeq4 = dispatchLine.replace('"seq":2,', '"seq":4,');
    const floatBudget = asSeq4.replace('"max_cycles":20,', '"max_cycles":20.0,');
    expect(floatBudget).not.toBe(asSeq4);
    appendAsReference(dir, [floatBudget]);
    expect((await loaded(root)).damage?.detail).toBe(
      'line 4: payload.budget.max_cycles: an integer field written as a float (20.0)',
    );
    // an extra key of a newer reference holding 2.0: kept and read, nothing damaged
    const fresh = fixtureStore();
    appendAsReference(fresh.dir, [asSeq4.replace('"payload":{', '"payload":{"weight":2.0,')]);
    const ok = await loaded(fresh.root);
    expect([ok.damaged, ok.events.length]).toEqual([false, 4]);
    expect(referenceReader(fresh.dir)).toMatchObject({ events: 4, damaged: false });
  });

  it('item 2 (a documented deviation): ts "yesterday" — the reference loads it, ours marks the line corrupt', async () => {
    const { root, dir } = fixtureStore();
    appendAsReference(dir, [noteLine('4').replace('"2026-09-09T12:00:09Z"', '"yesterday"')]);
    expect(referenceReader(dir)).toMatchObject({ events: 4, damaged: false });
    expect((await loaded(root)).damage).toEqual({
      code: 'corrupt',
      line: 4,
      detail: 'line 4: ts is not a timestamp',
    });
  });

  it.skipIf(!existsSync(CLI_BIN))(
    'item 3: `store append --kind finish` is a usage error, exit 2, nothing written (the reference: argparse choices)',
    async () => {
      const { root, dir } = fixtureStore();
      const before = readFileSync(join(dir, 'events.jsonl'));
      const r = await runCli(
        ['store', 'append', '--root', root, '--run-id', RUN, '--kind', 'finish', '--payload', '-'],
        {
          input: '{}',
        },
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('unknown --kind finish');
      expect(readFileSync(join(dir, 'events.jsonl')).equals(before)).toBe(true);
    },
  );

  it('item 4: a replan the reference committed with the cite "<rid>#1\\n" loads undamaged and takes our appends; ours refuses that cite', async () => {
    const root = join(tmp(), 'store');
    const clock = { t: '2026-09-09T12:00:00Z' };
    const store = storeAt(root, clock, { runIdSuffix: () => '7484bfa8' });
    const c = await store.createRun({
      dispatch: manifestDispatch(),
      now: '2026-09-09T12:00:00Z',
      eventSchema: 'v2',
    });
    expect(c.outcome).toBe('committed');
    expect((await store.append(RUN, 'note', note('first'))).outcome).toBe('committed');
    const cite = `${RUN}#1\n`;
    const line = JSON.stringify({
      kind: 'replan',
      payload: replan([cite]),
      schema: 'run-store-event/v2',
      seq: 2,
      ts: '2026-09-09T12:00:05Z',
    });
    const dir = join(root, 'runs', RUN);
    appendAsReference(dir, [line]);
    expect(readFileSync(join(dir, 'events.jsonl'), 'utf8')).toContain(`#1\\n"]`);
    expect(referenceReader(dir)).toMatchObject({ events: 2, damaged: false });
    const fresh = storeAt(root, clock);
    const l = await fresh.load(RUN);
    expect(l.ok && [l.value.damaged, l.value.events.length]).toEqual([false, 2]);
    if (l.ok) expect(l.value.events[1]?.payload).toMatchObject({ cites: [cite] }); // kept as written
    expect((await fresh.append(RUN, 'note', note('after'))).outcome).toBe('committed');
    // our own append of the same cite: refused before writing
    const again = await fresh.append(RUN, 'replan', replan([cite]));
    expect(again).toMatchObject({ outcome: 'nothing_written', code: 'invalid_payload' });
    // two final newlines: no match in Python either — corrupt for both
    appendAsReference(dir, [line.replace('"seq":2', '"seq":4').replace('#1\\n"', '#1\\n\\n"')]);
    expect(referenceReader(dir)).toMatchObject({ events: 3, damaged: true });
    const l2 = await storeAt(root, clock).load(RUN);
    expect(l2.ok && l2.value.damage).toMatchObject({ code: 'corrupt', line: 4 });
  });
});

/** The fixture run's dispatch (a valid run-contract dispatch with the reference's extra keys). */
function manifestDispatch(): unknown {
  return JSON.parse(readFileSync(fixtureFile('manifest.json'), 'utf8')).dispatch;
}

describe.skipIf(!hasPython)('issue 34: an integral float in the manifest', () => {
  it('a manifest whose dispatch has "max_cycles":20.0 is an incomplete run (the reference: manifest dispatch invalid)', async () => {
    const { root, dir } = fixtureStore();
    const text = readFileSync(join(dir, 'manifest.json'), 'utf8');
    const floated = pythonDumps([text.replace('"max_cycles":20,', '"max_cycles":20.0,').trim()])[0] as Buffer;
    expect(floated.toString('utf8')).toContain('"max_cycles":20.0,');
    writeFileSync(join(dir, 'manifest.json'), Buffer.concat([floated, Buffer.from('\n')]));
    const l = await storeAt(root, { t: '2026-09-09T13:00:00Z' }).load(RUN);
    expect(l).toMatchObject({ ok: false, code: 'incomplete_run' });
    if (!l.ok)
      expect(l.detail).toContain('dispatch.budget.max_cycles: an integer field written as a float (20.0)');
  });
});
