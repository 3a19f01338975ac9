/**
 * CLI tests of chain runs in the run store, against the built binary (run `npm run build` first):
 * `handoff chain example payroll --run-store DIR` (run ids and commit cites), `handoff store load`
 * and `validate` on chain runs, and `handoff inspect` drawing a chain run over the chain machine.
 */
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, stdoutJson } from '../helpers/cli.js';

interface Commit {
  run_id: string;
  seq: number | null;
  cite: string;
  stage: string | null;
  revision: number;
  snapshot_id: string;
}
interface Out {
  runs: {
    contract: string;
    outcome: string;
    receipts: { receipt_id: string }[];
    run_store: { root: string; run_id: string; commits: Commit[] };
  }[];
}

let dir: string;
let root: string;
let out: Out;
let exitCode: number | null;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chain-cli-store-'));
  root = join(dir, '.handoff');
  const r = await runCli(['chain', 'example', 'payroll', '--wrong-value', '--run-store', root, '--json']);
  exitCode = r.code;
  out = stdoutJson<Out>(r);
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('handoff chain example payroll --run-store', () => {
  it('persists each contract run as a chain run and reports its run id and the cite of every commit', async () => {
    expect(exitCode).toBe(3);
    const [thin, release] = out.runs;
    expect(thin?.outcome).toBe('accepted');
    expect(release?.outcome).toBe('stopped');
    const t = thin?.run_store as Out['runs'][number]['run_store'];
    expect(t.run_id).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{8}$/);
    expect(t.commits.map((c) => [c.cite, c.stage, c.revision])).toEqual([
      [`${t.run_id}#manifest`, null, 0],
      [`${t.run_id}#1`, 'intent', 1],
      [`${t.run_id}#2`, 'settle', 2],
      [`${t.run_id}#3`, 'fund_check', 3],
      [`${t.run_id}#4`, 'pay', 4],
      [`${t.run_id}#5`, 'receipt', 5],
    ]);
    const rel = release?.run_store as Out['runs'][number]['run_store'];
    expect(rel.run_id).not.toBe(t.run_id);
    expect(rel.commits.map((c) => c.cite)).toEqual([`${rel.run_id}#manifest`, `${rel.run_id}#1`]);
    const list = await runCli(['store', 'list', '--root', root]);
    expect(stdoutJson<{ runs: string[] }>(list).runs).toEqual([t.run_id, rel.run_id].sort());
  });

  it('prints the run id and the cites in text', async () => {
    const d = await mkdtemp(join(tmpdir(), 'chain-cli-store-'));
    try {
      const r = await runCli(['chain', 'example', 'payroll', '--run-store', join(d, 'rs')]);
      expect(r.code).toBe(0);
      const m = /run store .*: run (\d{8}T\d{6}Z-[0-9a-f]{8})/.exec(r.stdout);
      expect(m).not.toBeNull();
      const id = m?.[1] as string;
      for (const cite of [`${id}#manifest`, `${id}#1`, `${id}#5`]) expect(r.stdout).toContain(cite);
      expect(r.stdout).toContain(`${id}#5`.padEnd(36) + ' commit receipt r5 payroll-2026-06::r5::');
    } finally {
      await rm(d, { recursive: true, force: true });
    }
  });

  it('an empty --run-store is usage (exit 2)', async () => {
    const r = await runCli(['chain', 'example', 'payroll', '--run-store', '']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: 'usage' });
  });
});

describe('handoff store on chain runs', () => {
  it('load prints the chain manifest, the baton-commit events and the last baton', async () => {
    const t = out.runs[0]?.run_store as Out['runs'][number]['run_store'];
    const r = await runCli(['store', 'load', '--root', root, '--run-id', t.run_id]);
    expect(r.code).toBe(0);
    const l = stdoutJson<{
      schema: string;
      event_schema: string;
      manifest: { schema: string; chain_id: string; stages: string[]; start_baton: { revision: number } };
      events: { seq: number; kind: string; payload: { receipt: { receipt_id: string } } }[];
      last_baton: { revision: number; snapshot_id: string };
      damaged: unknown;
    }>(r);
    expect(l).toMatchObject({
      schema: 'run-store-load/v1',
      event_schema: 'run-store-event/chain-v1',
      manifest: {
        schema: 'run-store-manifest/chain-v1',
        chain_id: 'payroll-chain-thin',
        stages: ['intent', 'settle', 'fund_check', 'pay', 'receipt'],
        start_baton: { revision: 0 },
      },
      last_baton: { revision: 5, snapshot_id: t.commits[5]?.snapshot_id },
      damaged: false,
      damage: null,
    });
    expect(l.events.map((e) => [e.seq, e.kind])).toEqual([1, 2, 3, 4, 5].map((s) => [s, 'baton-commit']));
    expect(l.events.map((e) => e.payload.receipt.receipt_id)).toEqual(
      out.runs[0]?.receipts.map((x) => x.receipt_id),
    );
  });

  it('validate checks chain manifests, chain event lines and baton-commit payloads', async () => {
    const t = out.runs[0]?.run_store as Out['runs'][number]['run_store'];
    const runDir = join(root, 'runs', t.run_id);
    const manifest = await readFile(join(runDir, 'manifest.json'), 'utf8');
    const lines = (await readFile(join(runDir, 'events.jsonl'), 'utf8')).trimEnd().split('\n');
    const ok = async (kind: string, text: string) =>
      (await runCli(['store', 'validate', '--kind', kind, '-'], { input: text })).code;
    expect(await ok('manifest', manifest)).toBe(0);
    expect(await ok('event', lines[1] as string)).toBe(0);
    const event = JSON.parse(lines[1] as string) as { payload: { baton: { fingerprint: string } } };
    expect(await ok('baton-commit', JSON.stringify(event.payload))).toBe(0);
    event.payload.baton.fingerprint = '0000000000000000';
    expect(await ok('baton-commit', JSON.stringify(event.payload))).toBe(3);
    const m = JSON.parse(manifest) as { contract_digest: string };
    m.contract_digest = '0000000000000000';
    expect(await ok('manifest', JSON.stringify(m))).toBe(3);
  });

  it('append refuses a baton-commit out of sequence (exit 3) and a run-contract kind on a chain run', async () => {
    const rel = out.runs[1]?.run_store as Out['runs'][number]['run_store'];
    const t = out.runs[0]?.run_store as Out['runs'][number]['run_store'];
    const thinLine = (await readFile(join(root, 'runs', t.run_id, 'events.jsonl'), 'utf8')).split('\n')[2];
    const payload = JSON.stringify((JSON.parse(thinLine as string) as { payload: unknown }).payload);
    const r = await runCli(
      ['store', 'append', '--root', root, '--run-id', rel.run_id, '--kind', 'baton-commit', '--payload', '-'],
      {
        input: payload,
      },
    );
    expect(r.code).toBe(3);
    expect(stdoutJson<{ code: string }>(r).code).toBe('invalid_payload'); // another contract's baton
    const again = await runCli(
      ['store', 'append', '--root', root, '--run-id', t.run_id, '--kind', 'baton-commit', '--payload', '-'],
      { input: payload },
    );
    expect(again.code).toBe(3);
    expect(stdoutJson<{ code: string }>(again).code).toBe('baton_out_of_sequence'); // r3 after r5
    const note = await runCli(
      ['store', 'append', '--root', root, '--run-id', rel.run_id, '--kind', 'note', '--payload', '-'],
      {
        input: JSON.stringify({ kind: 'candidate', text: 'x', lean: null }),
      },
    );
    expect(note.code).toBe(3);
    expect(stdoutJson<{ code: string }>(note).code).toBe('kind_unsupported');
  });
});

describe('handoff inspect on chain runs', () => {
  it('draws an accepted chain run over the chain machine (text and JSON)', async () => {
    const t = out.runs[0]?.run_store as Out['runs'][number]['run_store'];
    const text = await runCli(['inspect', t.run_id, '--root', root]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`chain run ${t.run_id}`);
    expect(text.stdout).toContain('path over the chain machine (accepted, revision 5 of 5)');
    expect(text.stdout).toContain('accepted via done: journal [chainComplete]');
    const json = await runCli(['inspect', t.run_id, '--root', root, '--format', 'json']);
    const j = stdoutJson<{
      schema: string;
      machine: string;
      path: { finished: boolean; steps: { state: string; cite: string }[] };
      overlay: { gaps: unknown[]; current: string | null };
    }>(json);
    expect(j.schema).toBe('handoff-inspect/chain-v1');
    expect(j.machine).toBe('chain');
    expect(j.path.finished).toBe(true);
    expect(j.path.steps.map((s) => s.state)).toEqual([
      'ready',
      ...Array.from({ length: 5 }, () => ['running', 'validating', 'committed']).flat(),
      'accepted',
    ]);
    expect(j.path.steps[1]?.cite).toBe(`${t.run_id}#1`);
    expect(j.overlay.gaps).toEqual([]);
    expect(j.overlay.current).toBe('chain.accepted');
  });

  it('a stopped run is unfinished; mermaid draws it over the chain machine; damage is reported', async () => {
    const rel = out.runs[1]?.run_store as Out['runs'][number]['run_store'];
    const text = await runCli(['inspect', rel.run_id, '--root', root]);
    expect(text.stdout).toContain('unfinished, revision 1 of 5');
    expect(text.stdout).toContain('next stage settle');
    const mermaid = await runCli(['inspect', rel.run_id, '--root', root, '--format', 'mermaid']);
    expect(mermaid.code).toBe(0);
    expect(mermaid.stdout).toContain('validating');
    expect(mermaid.stdout).not.toContain('checkpoint');
    await appendFile(join(root, 'runs', rel.run_id, 'events.jsonl'), '{"kind":"baton-commit"');
    const damaged = await runCli(['inspect', rel.run_id, '--root', root]);
    expect(damaged.code).toBe(0);
    expect(damaged.stderr).toContain('journal damaged (truncated_tail at line 2)');
    expect(damaged.stdout).toContain('journal damage: truncated_tail at line 2');
  });
});
