/**
 * `handoff audit` on a run whose batch record does not match its journal: the audit names the
 * damaged record (its `batches.jsonl` line, the events it covers, what does not match) and exits 4
 * (damaged), never "no trace recorded — nothing to check". The pure naming of damaged records too.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { damagedBatches, damagedBatchLine } from '../../src/audit/index.js';
import { canonicalJsonUtf8 } from '../../src/canonical/index.js';
import type { LoadedBatch } from '../../src/store/index.js';
import { cliMain } from '../helpers/cli-main.js';
import { persistedRun } from '../helpers/persisted-run.js';

let dir: string;
let root: string;
let runId: string;

beforeAll(async () => {
  const p = await persistedRun('handoff-audit-damaged-', { 'A.lean': 'theorem a : 1 = 1 := by\n  sorry\n' });
  ({ dir, root, runId } = p);
  expect(p.status).toBe('solved');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const batch = (line: number, first: number, last: number, status: LoadedBatch['status']): LoadedBatch => ({
  line,
  first_seq: first,
  last_seq: last,
  count: last - first + 1,
  sha256: '0'.repeat(64),
  trace: [],
  status,
});

describe('damagedBatches', () => {
  it('names torn, unreached and unreadable records in sidecar order; complete and aborted are not damage', () => {
    const d = damagedBatches(
      [
        batch(1, 1, 2, 'complete'),
        batch(2, 3, 4, 'torn'),
        batch(4, 5, 5, 'unreached'),
        batch(5, 6, 7, 'aborted'),
      ],
      [{ code: 'batch_record_damaged', line: 3, detail: 'batches.jsonl line 3: not canonical JSON' }],
    );
    expect(d.map((x) => [x.line, x.status])).toEqual([
      [2, 'torn'],
      [3, 'unreadable'],
      [4, 'unreached'],
    ]);
    expect(damagedBatchLine('r', d[0] as (typeof d)[0])).toMatch(
      /^batches\.jsonl line 2 \(events #3–#4 of r\): torn — the journal's bytes of these events do not match the record's sha256/,
    );
    expect(damagedBatches([batch(1, 1, 2, 'complete')], [])).toEqual([]);
  });
});

describe('handoff audit of a damaged batch record', () => {
  it('says which batch record is damaged and what does not match, exit 4 — not "no trace recorded"', async () => {
    const file = join(root, 'runs', runId, 'batches.jsonl');
    const original = await readFile(file, 'utf8');
    try {
      const lines = original.split('\n').filter((l) => l !== '');
      const first = JSON.parse(lines[0] as string) as { first_seq: number; last_seq: number; sha256: string };
      first.sha256 = first.sha256.replace(/^./, (c) => (c === '0' ? '1' : '0'));
      lines[0] = canonicalJsonUtf8(first);
      await writeFile(file, `${lines.join('\n')}\n`);
      const r = await cliMain(['audit', runId, '--root', root], dir);
      expect(r.code).toBe(4);
      expect(r.out).not.toContain('no trace recorded');
      expect(r.out).toMatch(
        new RegExp(
          `^audit ${runId}: batch records damaged — ${lines.length} of ${lines.length} do not match the journal`,
        ),
      );
      const span =
        first.first_seq === first.last_seq
          ? `event #${first.first_seq}`
          : `events #${first.first_seq}–#${first.last_seq}`;
      expect(r.out).toContain(`  batches.jsonl line 1 (${span} of ${runId}): torn — the journal's bytes`);
      expect(r.out).toContain('unreached — after a damaged batch');
      const j = await cliMain(['audit', runId, '--root', root, '--json'], dir);
      expect(j.code).toBe(4);
      const report = JSON.parse(j.out) as {
        ok: boolean;
        damaged_batches: { line: number; status: string }[];
      };
      expect(report.ok).toBe(false);
      expect(report.damaged_batches[0]).toMatchObject({ line: 1, status: 'torn' });
    } finally {
      await writeFile(file, original);
    }
    expect((await cliMain(['audit', runId, '--root', root], dir)).code).toBe(0);
  });
});
