/**
 * `handoff gate reserve` grants only through the enforcer (issue 29, item 3), in-process: on a
 * freshly registered ledger a request with no route decision behind it and a made-up tree digest
 * of zeros is refused (exit 5, `no_route_decision`); a request on a real basis whose candidate is
 * not the live tree is refused (`stale_candidate`); an edited route is refused
 * (`route_digest_mismatch`); the same request from the live tree is granted, and replayed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { currentCandidate, type ReserveRequest, reservationBasis } from '../../src/gate/index.js';
import { cliMain } from '../helpers/cli-main.js';
import { exampleContract, gitRepo, rm, routeOf, tempDir } from './fixtures.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rm(d);
});

describe('handoff gate reserve', () => {
  it('refuses a forged or stale reservation (exit 5, named reason) and grants one resting on its route from the live tree', async () => {
    const repo = gitRepo({ 'README.md': 'demo\n' });
    const side = tempDir('gate-reserve-cli-');
    dirs.push(repo, side);
    const liveTree = await currentCandidate(repo);
    const contract = exampleContract(liveTree);
    const cfile = join(side, 'contract.json');
    writeFileSync(cfile, JSON.stringify(contract));
    const ledger = ['--ledger', join(side, 'ledger')];
    const reg = await cliMain(['gate', 'register', ...ledger, '--contract', cfile], side);
    expect(reg.code, reg.err).toBe(0);
    const file = (name: string, body: object) => {
      const f = join(side, `${name}.json`);
      writeFileSync(f, JSON.stringify(body));
      return f;
    };
    const base = {
      problem_id: contract.problem_id,
      kind: 'continuation',
      directive_id: null,
      requested_by: 'cli-test',
    } as const;
    const reserve = (f: string, cwd = side, ...extra: string[]) =>
      cliMain(['gate', 'reserve', ...ledger, '--request', f, ...extra], cwd);

    // the forgery: no route decision, a tree digest of zeros
    const zeros = { commit: null, tree_digest: '0'.repeat(64) };
    const forged = await reserve(file('forged', { ...base, idempotency_key: 'k0', candidate: zeros }), repo);
    expect(forged.code).toBe(5);
    expect(JSON.parse(forged.out)).toMatchObject({ outcome: 'refused', reason: 'no_route_decision' });

    // a real basis for a candidate that is not the live tree
    const stale: ReserveRequest = {
      ...base,
      idempotency_key: 'k1',
      candidate: zeros,
      ...reservationBasis(routeOf(), zeros, contract.revision),
    };
    const s = await reserve(file('stale', stale), repo);
    expect(s.code).toBe(5);
    expect(JSON.parse(s.out)).toMatchObject({ outcome: 'refused', reason: 'stale_candidate' });

    // an edited decision (a LEAD_REVIEW route turned eligible)
    const edited = { ...routeOf('LEAD_REVIEW'), route: 'CONTINUATION_ELIGIBLE' as const };
    const e = await reserve(
      file('edited', {
        ...base,
        idempotency_key: 'k2',
        candidate: liveTree,
        ...reservationBasis(edited, liveTree, contract.revision),
      }),
      side,
      '--repo',
      repo,
    );
    expect(e.code).toBe(5);
    expect(JSON.parse(e.out)).toMatchObject({ reason: 'route_digest_mismatch' });

    // outside any repository there is no live tree: fail closed
    const honest = file('honest', {
      ...base,
      idempotency_key: 'k3',
      candidate: liveTree,
      ...reservationBasis(routeOf(), liveTree, contract.revision),
    });
    const nowhere = await reserve(honest, side);
    expect(nowhere.code, nowhere.out + nowhere.err).toBe(5);
    expect(JSON.parse(nowhere.out)).toMatchObject({ reason: 'stale_candidate' });

    // the honest request from the live tree (--repo, or the working directory's repository)
    const granted = await reserve(honest, side, '--repo', repo);
    expect(granted.code, granted.err).toBe(0);
    expect(JSON.parse(granted.out)).toMatchObject({ outcome: 'granted', grant: { slot: 'ordinary-repair' } });
    const replay = await reserve(honest, repo);
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.out)).toMatchObject({ outcome: 'replayed' });
    const st = await cliMain(['gate', 'status', ...ledger, '--problem', contract.problem_id], side);
    expect(JSON.parse(st.out).grants).toHaveLength(1);
  });
});
