/**
 * `handoff audit` after a power cut's kind of loss, on a real persisted run: a one-event batch's
 * record is not synced before its event (it rides on the journal's fsync), so a power cut can keep
 * the event and lose the record. Removing such a record from batches.jsonl leaves its event
 * untraced; the audit reports a `trace_gap` at the next record (exit 5, the run cannot be vouched
 * for) — not a `not_active` tamper finding — and checks the rest of the run as before. (A run
 * written in waves has untraced events of its own: a wave's dispatches and handoffs are written
 * while the machine stays in `work.dispatching`, with no transition between them.)
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceBaseline } from '../../src/baseline/index.js';
import { type Dispatch, type Handoff, handoffFor } from '../../src/contract/index.js';
import { createPersistRecorder } from '../../src/runtime/persist-recorder.js';
import { runProject } from '../../src/runtime/project-run.js';
import { cliMain } from '../helpers/cli-main.js';

let dir: string;
let root: string;
let runId: string;

async function solve(d: Dispatch): Promise<{ handoff: Handoff }> {
  const f = d.owned_files[0] as string;
  await writeFile(f, (await readFile(f, 'utf8')).replace('sorry', 'rfl'));
  const b = await advanceBaseline(d.file_baseline, [f]);
  return { handoff: handoffFor(d, { files_changed: [f], file_baseline: b }) };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-audit-gap-'));
  for (const n of ['A', 'B', 'C'])
    await writeFile(join(dir, `${n}.lean`), `theorem t : 1 = 1 := by\n  sorry\n`);
  await writeFile(join(dir, '.gitignore'), '.handoff/\n');
  execFileSync('git', ['init', '-q'], { cwd: dir });
  execFileSync('git', ['add', '-A'], { cwd: dir });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init'], {
    cwd: dir,
  });
  const recorder = await createPersistRecorder({ projectRoot: dir });
  root = recorder.storageRoot;
  let t = Date.parse('2026-12-01T12:00:00Z');
  try {
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove' },
      worker: { inProcess: solve },
      recorder,
      clock: () => (t += 1000),
    });
    expect(r.handoff.status).toBe('solved');
    runId = r.runId;
  } finally {
    await recorder.dispose();
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Record {
  first_seq: number;
  last_seq: number;
  trace: { from: string }[];
}

describe('handoff audit: a lost one-event batch record', () => {
  it('is a trace gap cited at the next record (exit 5), and the rest of the run is checked', async () => {
    const file = join(root, 'runs', runId, 'batches.jsonl');
    const original = await readFile(file, 'utf8');
    const lines = original.split('\n').filter((l) => l !== '');
    const records = lines.map((l) => JSON.parse(l) as Record);
    // the run's first record: one event (the first worker's handoff), its steps from the initial
    // state to the dispatch; the next record's first step leaves the dispatch
    const first = records[0] as Record;
    const next = records[1] as Record;
    expect(first.first_seq).toBe(first.last_seq);
    expect(next.trace[0]?.from).toBe('cycle.work.dispatching');
    const ok = await cliMain(['audit', runId, '--root', root, '--json'], dir);
    expect(ok.code).toBe(0);
    try {
      await writeFile(file, `${lines.slice(1).join('\n')}\n`);
      const r = await cliMain(['audit', runId, '--root', root, '--json'], dir);
      expect(r.code).toBe(5);
      const report = JSON.parse(r.out) as {
        ok: boolean;
        findings: { code: string; cite: string; index: number; detail: string }[];
      };
      expect(report.ok).toBe(false);
      expect(report.findings.map((f) => [f.code, f.cite, f.index])).toEqual([
        ['trace_gap', `${runId}#${next.first_seq}`, 0],
      ]);
      expect(report.findings[0]?.detail).toContain(`events 1–${next.first_seq - 1} before this batch`);
      const text = await cliMain(['audit', runId, '--root', root], dir);
      expect(text.out).toContain('trace_gap');
    } finally {
      await writeFile(file, original);
    }
  });
});
