import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliMain } from '../helpers/cli-main.js';
import { persistedRun } from '../helpers/persisted-run.js';

let dir: string;
let root: string;
let runId: string;

beforeAll(async () => {
  const files = Object.fromEntries(
    ['A', 'B', 'C'].map((n) => [`${n}.lean`, 'theorem t : 1 = 1 := by\n  sorry\n']),
  );
  const p = await persistedRun('handoff-audit-gap-', files);
  ({ dir, root, runId } = p);
  expect(p.status).toBe('solved');
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
    // the run's own untraced events (a wave's dispatches and handoffs: the machine did not move)
    const gaps = records
      .map((r, k) => ({
        first_seq: (k === 0 ? 0 : (records[k - 1] as Record).last_seq) + 1,
        last_seq: r.first_seq - 1,
      }))
      .filter((g) => g.first_seq <= g.last_seq);
    expect(gaps.length).toBeGreaterThan(0);
    expect((JSON.parse(ok.out) as { untraced: unknown }).untraced).toEqual(gaps);
    const okText = await cliMain(['audit', runId, '--root', root], dir);
    expect(okText.out).toContain(`untraced: events #${gaps[0]?.first_seq}`);
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
