/**
 * `handoff audit --chain-journal DIR --baton ID` on a real chain file journal (the trip chain run
 * through `createFileChainJournal`): every recorded chain-machine transition is allowed (exit 0,
 * `chain-journal-audit/v1`); an edited step is flagged with its line's cite (exit 5); a damaged
 * line is exit 4; a baton without a journal exit 3; a half-given pair of flags is a usage error.
 * A hostile baton id (controls, a newline) stays one escaped line.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainJournalCite, chainJournalFile, createFileChainJournal } from '../../src/chain/index.js';
import { tripBaton, tripChain } from '../chain/trip-fixture.js';
import { cliMain } from '../helpers/cli-main.js';

let dir: string;
const BATON = 'trip-1';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-audit-chain-'));
  const chain = tripChain();
  const journal = createFileChainJournal(dir);
  await chain.run(tripBaton(chain), { journal });
  journal.close?.();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const audit = (...more: string[]) =>
  cliMain(['audit', '--chain-journal', dir, '--baton', BATON, ...more], dir);

interface Report {
  schema: string;
  baton_id: string;
  ok: boolean;
  entries: number;
  traced_lines: number;
  steps: number;
  findings: { code: string; cite: string; index: number }[];
}

describe('handoff audit --chain-journal', () => {
  it('a traced journal replays through the chain machine: ok, exit 0', async () => {
    const r = await audit('--json');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as Report;
    expect(report).toMatchObject({
      schema: 'chain-journal-audit/v1',
      baton_id: BATON,
      ok: true,
      findings: [],
    });
    expect(report.entries).toBe(4);
    expect(report.traced_lines).toBe(3);
    expect(report.steps).toBeGreaterThan(6);
    const text = await audit();
    expect(text.out).toMatch(/^audit baton "trip-1": ok — \d+ recorded transitions on 3 of 4 journal lines/);
  });

  it('an edited step is flagged with the cite of its line (exit 5); a damaged line is exit 4', async () => {
    const file = chainJournalFile(dir, BATON);
    const original = await readFile(file, 'utf8');
    try {
      const lines = original.trimEnd().split('\n');
      const second = JSON.parse(lines[1] as string) as { trace: { to: string }[] };
      (second.trace[0] as { to: string }).to = 'chain.nowhere';
      lines[1] = JSON.stringify(second);
      await writeFile(file, `${lines.join('\n')}\n`);
      const r = await audit('--json');
      expect(r.code).toBe(5);
      const report = JSON.parse(r.out) as Report;
      expect(report.ok).toBe(false);
      expect(report.findings[0]).toMatchObject({
        code: 'no_such_transition',
        cite: chainJournalCite(BATON, 2),
        index: 0,
      });
      const [head, ...rest] = original.trimEnd().split('\n');
      await writeFile(file, `${[head, 'not json', ...rest].join('\n')}\n`);
      const damaged = await audit();
      expect(damaged.code).toBe(4);
      expect(damaged.err).toMatch(/^audit: journal_damaged: /);
    } finally {
      await writeFile(file, original);
    }
  });

  it('a baton without a journal is exit 3; one flag without the other is a usage error (exit 2)', async () => {
    const none = await cliMain(['audit', '--chain-journal', dir, '--baton', 'no\u001b[2Jbody\nhere'], dir);
    expect(none.code).toBe(3);
    expect(none.err.split('\n').filter((l) => l !== '')).toHaveLength(1);
    expect(none.err).not.toContain('\u001b');
    expect((await cliMain(['audit', '--chain-journal', dir], dir)).code).toBe(2);
    expect((await cliMain(['audit', '--baton', BATON], dir)).code).toBe(2);
    expect((await cliMain(['audit', 'x', '--chain-journal', dir, '--baton', BATON], dir)).code).toBe(2);
  });
});
