/**
 * Issue 28, item 3, the records' side: `handoff inspect` accepts the cite the library hands out
 * (`RUN#N`) and says which event it names; `handoff validate --kind dispatch` of a handoff says it
 * looks like a handoff record (one issue, not one per field); `baseline record` of a missing path
 * warns on stderr (the record keeps `exists: false`, exit 0). In-process through `main`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { citeLine } from '../../src/cli/inspect.js';
import { recordKindOf } from '../../src/cli/validate.js';
import { handoffFor } from '../../src/contract/index.js';
import { cliMain } from '../helpers/cli-main.js';
import { type PersistedRun, persistedRun } from '../helpers/persisted-run.js';

describe('handoff inspect RUN#N', () => {
  let run: PersistedRun;
  beforeAll(async () => {
    run = await persistedRun('handoff-cite-', { 'A.lean': 'theorem a : 1 = 1 := by\n  sorry\n' });
  }, 60_000);
  afterAll(async () => {
    await rm(run.dir, { recursive: true, force: true });
  });

  it('accepts the cite, names its event first, then shows the run', async () => {
    const r = await cliMain(['inspect', `${run.runId}#1`, '--root', run.root], run.dir);
    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n')[0]).toMatch(
      new RegExp(`^${run.runId}#1 names event 1 of \\d+: handoff \\(status solved`),
    );
    const plain = await cliMain(['inspect', run.runId, '--root', run.root], run.dir);
    expect(r.out).toContain(plain.out);
  });

  it('a cite past the journal is a usage error naming the events; the manifest cite is named too', async () => {
    const past = await cliMain(['inspect', `${run.runId}#999`, '--root', run.root], run.dir);
    expect(past.code).toBe(2);
    expect(past.err).toMatch(/none with seq 999/);
    const m = await cliMain(
      ['inspect', `${run.runId}#manifest`, '--root', run.root, '--format', 'json'],
      run.dir,
    );
    expect(m.code, m.err).toBe(0);
    expect(JSON.parse(m.out)).toBeTypeOf('object');
    expect(m.err).toContain("names the run's manifest");
  });

  it('citeLine (pure) names kind and status', () => {
    const events = [
      { seq: 1, kind: 'dispatch', payload: { target: 'A.lean:2' } },
      { seq: 2, kind: 'handoff', payload: { status: 'solved', target: 'A.lean:2' } },
    ];
    expect(citeLine('R#2', 2, events)).toBe(
      'R#2 names event 2 of 2: handoff (status solved, target A.lean:2)',
    );
    expect(citeLine('R#3', 3, events)).toBeNull();
  });
});

describe('validate and baseline record say what is wrong', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'handoff-kind-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('validate --kind dispatch of a handoff record: one issue naming the kind, exit 3', async () => {
    const file = join(dir, 'A.lean');
    const handoff = handoffFor({
      target: 'A.lean:2',
      scope: 'sorry',
      mode: 'autoprove',
      owned_files: [file],
      file_baseline: {
        schema: 'file-baseline/v1',
        files: [{ path: file, realpath: file, exists: false, sha256: null, size: null }],
      },
    });
    expect(recordKindOf(handoff)).toBe('handoff');
    expect(recordKindOf({ schema: 'file-baseline/v1', files: [] })).toBe('baseline');
    expect(recordKindOf('x')).toBeNull();
    await writeFile(join(dir, 'h.json'), JSON.stringify(handoff));
    const r = await cliMain(['validate', '--kind', 'dispatch', 'h.json'], dir);
    expect(r.code).toBe(3);
    const out = JSON.parse(r.out) as { ok: boolean; issues: { code: string; message: string }[] };
    expect(out.ok).toBe(false);
    expect(out.issues).toEqual([
      { path: '', code: 'wrong_kind', message: 'this looks like a handoff record (use --kind handoff)' },
    ]);
  });

  it('baseline record of a missing path: the record keeps exists:false, a warning line on stderr, exit 0', async () => {
    await writeFile(join(dir, 'here.txt'), 'x');
    const r = await cliMain(['baseline', 'record', '--', 'here.txt', 'gone.txt'], dir);
    expect(r.code).toBe(0);
    const b = JSON.parse(r.out) as { files: { path: string; exists: boolean }[] };
    expect(b.files.map((f) => f.exists)).toEqual([true, false]);
    expect(r.err.trimEnd().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/^handoff baseline: warning: ".*gone\.txt" does not exist/);
  });
});
