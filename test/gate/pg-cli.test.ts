/**
 * `handoff gate register|reserve|consume|status --ledger-pg URL` against a real PostgreSQL server,
 * through the built binary (needs `npm run build`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, stdoutJson } from '../helpers/cli.js';
import { usePostgres } from '../setup/postgres.js';
import { exampleContract, rm, tempDir } from './fixtures.js';

const db = usePostgres();
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rm(d);
});

describe('handoff gate --ledger-pg', () => {
  it('register, reserve (granted, replayed), consume, status on PostgreSQL; a second key is refused (exit 5)', async () => {
    const dir = tempDir('gate-pg-cli-');
    dirs.push(dir);
    const contract = exampleContract({ commit: null, tree_digest: 'a'.repeat(64) });
    const cfile = join(dir, 'contract.json');
    writeFileSync(cfile, JSON.stringify(contract));
    const request = (key: string, digest: string) => {
      const f = join(dir, `${key}.json`);
      writeFileSync(
        f,
        JSON.stringify({
          problem_id: contract.problem_id,
          idempotency_key: key,
          candidate: { commit: null, tree_digest: digest.repeat(64) },
          kind: 'continuation',
          directive_id: null,
          requested_by: 'cli-test',
        }),
      );
      return f;
    };
    const pgArgs = ['--ledger-pg', db.url()];
    const reg = await runCli(['gate', 'register', ...pgArgs, '--contract', cfile]);
    expect(reg.code, reg.stderr).toBe(0);
    const r1 = await runCli(['gate', 'reserve', ...pgArgs, '--request', request('k1', '1')]);
    expect(r1.code, r1.stderr).toBe(0);
    const g = stdoutJson(r1) as { outcome: string; grant: { grant_id: string } };
    expect(g.outcome).toBe('granted');
    const again = await runCli(['gate', 'reserve', ...pgArgs, '--request', request('k1', '1')]);
    expect(stdoutJson(again)).toMatchObject({ outcome: 'replayed', grant: { grant_id: g.grant.grant_id } });
    const other = await runCli(['gate', 'reserve', ...pgArgs, '--request', request('k2', '2')]);
    expect(other.code).toBe(5);
    expect(stdoutJson(other)).toMatchObject({ outcome: 'refused', reason: 'grant_outstanding' });
    const consume = await runCli([
      'gate',
      'consume',
      ...pgArgs,
      '--problem',
      contract.problem_id,
      '--grant',
      g.grant.grant_id,
    ]);
    expect(consume.code, consume.stderr).toBe(0);
    // HANDOFF_LEDGER_PG_URL is used when neither --ledger nor --repo is given
    const st = await runCli(['gate', 'status', '--problem', contract.problem_id], {
      env: { HANDOFF_LEDGER_PG_URL: db.url() },
    });
    expect(st.code, st.stderr).toBe(0);
    expect(stdoutJson(st)).toMatchObject({ used: { 'ordinary-repair': 1 }, grants: [{ state: 'consumed' }] });
    expect((await runCli(['gate', 'status', ...pgArgs, '--ledger', dir, '--problem', 'x'])).code).toBe(2);
  });
});
