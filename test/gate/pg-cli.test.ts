/**
 * `handoff gate register|reserve|consume|status --ledger-pg URL` against a real PostgreSQL server,
 * through the built binary (needs `npm run build`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { currentCandidate, reservationBasis } from '../../src/gate/index.js';
import { runCli, stdoutJson } from '../helpers/cli.js';
import { usePostgres } from '../setup/postgres.js';
import { exampleContract, gitRepo, rm, routeOf, tempDir } from './fixtures.js';

const db = usePostgres();
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rm(d);
});

describe('handoff gate --ledger-pg', () => {
  it('register, reserve (granted, replayed), consume, status on PostgreSQL; a second key is refused (exit 5)', async () => {
    const dir = tempDir('gate-pg-cli-');
    const repo = gitRepo({ 'README.md': 'demo\n' });
    dirs.push(dir, repo);
    const liveTree = await currentCandidate(repo);
    const contract = exampleContract(liveTree);
    const cfile = join(dir, 'contract.json');
    writeFileSync(cfile, JSON.stringify(contract));
    // a continuation resting on its route decision, from the live tree of --repo
    const request = (key: string) => {
      const f = join(dir, `${key}.json`);
      writeFileSync(
        f,
        JSON.stringify({
          problem_id: contract.problem_id,
          idempotency_key: key,
          candidate: liveTree,
          kind: 'continuation',
          directive_id: null,
          requested_by: 'cli-test',
          ...reservationBasis(routeOf(), liveTree, contract.revision),
        }),
      );
      return f;
    };
    const pgArgs = ['--ledger-pg', db.url()];
    const reserveArgs = (key: string) => [
      'gate',
      'reserve',
      ...pgArgs,
      '--repo',
      repo,
      '--request',
      request(key),
    ];
    // after registration, the forged reservation of issue 29 is refused on PostgreSQL too
    const reg = await runCli(['gate', 'register', ...pgArgs, '--contract', cfile]);
    expect(reg.code, reg.stderr).toBe(0);
    const forged = join(dir, 'forged.json');
    writeFileSync(
      forged,
      JSON.stringify({
        problem_id: contract.problem_id,
        idempotency_key: 'k0',
        candidate: { commit: null, tree_digest: '0'.repeat(64) },
        kind: 'continuation',
        directive_id: null,
      }),
    );
    const f = await runCli(['gate', 'reserve', ...pgArgs, '--repo', repo, '--request', forged]);
    expect(f.code).toBe(5);
    expect(stdoutJson(f)).toMatchObject({ outcome: 'refused', reason: 'no_route_decision' });
    const r1 = await runCli(reserveArgs('k1'));
    expect(r1.code, r1.stderr).toBe(0);
    const g = stdoutJson(r1) as { outcome: string; grant: { grant_id: string } };
    expect(g.outcome).toBe('granted');
    const again = await runCli(reserveArgs('k1'));
    expect(stdoutJson(again)).toMatchObject({ outcome: 'replayed', grant: { grant_id: g.grant.grant_id } });
    const other = await runCli(reserveArgs('k2'));
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
