/**
 * runGate (the gate shell) on real repositories with real worker processes and the example
 * subprocess evaluator: the full ordinary-repair → gate-continuation → lead path, evaluator
 * failures that never reserve, crash reconciliation at restart (uncertain: not replayed; reserved
 * but never started: released), a repeated directive that does not run the worker again, and the
 * initial attempt bound to the contract's base candidate.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { errorExitCode } from '../../src/cli/exit-codes.js';
import type { HandoffError } from '../../src/errors/index.js';
import {
  createFsLedger,
  currentCandidate,
  DEFAULT_THRESHOLDS,
  EvaluatorFailure,
  type EvaluatorPort,
  type Ledger,
  ownerAuthority,
  type RunGateOptions,
  reservationBasis,
  runGate,
  subprocessEvaluator,
  type TaskContract,
} from '../../src/gate/index.js';
import { exampleContract, gitRepo, rm, routeOf, T0, tempDir, write } from './fixtures.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/gate/', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rm(d);
});

interface World {
  repo: string;
  side: string;
  contract: TaskContract;
  ledger: Ledger;
  calls: { n: number };
  evaluator: EvaluatorPort;
  /** Worker argv that counts its runs in `<side>/runs.log`, then behaves as the example worker. */
  worker: string[];
  runs: () => number;
}

async function world(): Promise<World> {
  const repo = gitRepo({ 'README.md': 'demo\n', '.gitignore': '.handoff/\n' });
  const side = tempDir('gate-runner-');
  dirs.push(repo, side);
  const counter = join(side, 'runs.log');
  writeFileSync(counter, '');
  write(
    side,
    'worker.mjs',
    `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(counter)}, 'x');\nawait import(${JSON.stringify(join(EXAMPLES, 'worker.mjs'))});\n`,
  );
  const contract = exampleContract(await currentCandidate(repo));
  const calls = { n: 0 };
  const sub = subprocessEvaluator([process.execPath, join(EXAMPLES, 'evaluator.mjs')]);
  return {
    repo,
    side,
    contract,
    ledger: createFsLedger(join(side, 'ledger'), { now: () => T0 }),
    calls,
    evaluator: {
      id: sub.id,
      evaluate: (r, o) => {
        calls.n++;
        return sub.evaluate(r, o);
      },
    },
    worker: [process.execPath, join(side, 'worker.mjs')],
    runs: () => readFileSync(counter, 'utf8').length,
  };
}

/** Registers the example problem and reserves the grant a crashed job left behind (not yet started). */
async function crashedGrant(w: World, candidate: TaskContract['candidate']) {
  await w.ledger.register({
    problem_id: 'example-greet',
    profile: w.contract.profile,
    contract_revision: 1,
  });
  const g = await w.ledger.reserve(
    {
      problem_id: 'example-greet',
      idempotency_key: 'continuation:example-greet:pkt_crashed',
      candidate,
      kind: 'continuation',
      directive_id: null,
      requested_by: 'crashed-job',
      ...reservationBasis(routeOf(), candidate, 1),
    },
    { live: candidate },
  );
  if (g.outcome === 'refused') throw new Error('unreachable');
  return g;
}

function options(w: World, over: Partial<RunGateOptions> = {}): RunGateOptions {
  return {
    repo: w.repo,
    contract: w.contract,
    ledger: w.ledger,
    evaluator: w.evaluator,
    worker: w.worker,
    authority: ownerAuthority(w.contract.owner),
    thresholds: DEFAULT_THRESHOLDS,
    now: () => T0,
    recordsDir: join(w.side, 'records'),
    register: true,
    ...over,
  };
}

function withEnv<T>(env: Record<string, string>, f: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  return f().finally(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
}

describe('runGate', () => {
  it('ordinary repair, then the gate continuation, then the lead unconditionally (no new semantic round)', async () => {
    const w = await world();
    const r = await withEnv({ GATE_EXAMPLE_WORKER: 'slow' }, () => runGate(options(w)));
    expect(r.path).toEqual([
      'provisional',
      'collecting',
      'checking',
      'evaluating',
      'routing',
      'reserving',
      'continuing',
      'validating',
      'collecting',
      'checking',
      'evaluating',
      'routing',
      'reserving',
      'continuing',
      'validating',
      'leadReview',
    ]);
    // two semantic rounds, never a third: the continuation's result is validated, not re-assessed
    expect(w.calls.n).toBe(2);
    expect(w.runs()).toBe(3);
    expect(r.records.grants.map((g) => [g.slot, g.state])).toEqual([
      ['ordinary-repair', 'consumed'],
      ['gate-continuation', 'consumed'],
    ]);
    expect(r.lead.route).toBe('LEAD_REVIEW');
    expect(r.lead.assessment).toBeNull();
    expect(r.lead.criteria.map((c) => c.status)).toEqual(['not-evaluated', 'not-evaluated']);
    expect(r.lead.limitations.join('\n')).toContain('validated by exact checks only');
    // the earlier round's assessment and route stay linked as evidence
    expect(r.lead.evidence.filter((e) => e.kind === 'route').map((e) => e.id)).toEqual([
      r.records.routes[1]?.route_id,
    ]);
    expect(readFileSync(join(w.repo, 'src/greet.js'), 'utf8')).toContain('function farewell');
    const st = await w.ledger.status('example-greet');
    expect(st).toMatchObject({
      used: { 'ordinary-repair': 1, 'gate-continuation': 1, 'lead-directed': 0 },
      lead_handoffs: 1,
    });
  }, 60_000);

  it('a BLOCKED report with a supported step goes through the enforcer like any continuation', async () => {
    const w = await world();
    const r = await withEnv({ GATE_EXAMPLE_WORKER: 'blocked' }, () => runGate(options(w)));
    // round 1: the step is supported → ordinary repair; the worker stays blocked on the same tree,
    // so round 2 is the same frozen packet: its event replays the used grant, never a new one → lead
    expect(r.records.routes.map((d) => d.route)).toEqual(['CONTINUATION_ELIGIBLE', 'CONTINUATION_ELIGIBLE']);
    expect(r.records.routes[0]?.reasons.map((x) => x.code)).toEqual(['proposed_step_supported']);
    expect(r.path.at(-2)).toBe('reserving');
    expect(r.lead.route).toBe('CONTINUATION_ELIGIBLE');
    expect(r.lead.summary).toContain('BLOCKED (hypothesis unverified)');
    expect(r.lead.limitations.join('\n')).toContain('reservation replayed grant');
    expect(r.records.grants.map((g) => [g.slot, g.state])).toEqual([['ordinary-repair', 'consumed']]);
    // the same frozen packet is assessed once: round 2 reuses the stored assessment
    expect(r.records.packets[1]?.packet_id).toBe(r.records.packets[0]?.packet_id);
    expect(w.calls.n).toBe(1);
  }, 60_000);

  for (const kind of ['timeout', 'no-key', 'unavailable', 'invalid-data'] as const) {
    it(`an evaluator ${kind} goes to ordinary lead review with no reservation at all`, async () => {
      const w = await world();
      const failing: EvaluatorPort = {
        id: 'failing',
        evaluate: async () => {
          w.calls.n++;
          if (kind === 'invalid-data') return { claims: 'not a list' };
          throw new EvaluatorFailure(kind, `simulated ${kind}`);
        },
      };
      const r = await runGate(options(w, { evaluator: failing }));
      expect(r.path).not.toContain('reserving');
      expect(r.lead.route).toBe('LEAD_REVIEW');
      expect(r.lead.assessment).toMatchObject({
        status: kind === 'invalid-data' ? 'INVALID' : 'NOT_EVALUATED',
        failure: { kind },
      });
      expect(w.calls.n).toBe(1);
      expect(w.runs()).toBe(1);
      const st = await w.ledger.status('example-greet');
      expect(st?.grants).toEqual([]);
      expect(st?.lead_handoffs).toBe(1);
    }, 60_000);
  }

  it('a grant left started by a crash is reconciled as uncertain: the worker is not run again', async () => {
    const w = await world();
    const g = await crashedGrant(w, w.contract.candidate);
    await w.ledger.start('example-greet', g.grant.grant_id);
    const r = await runGate(options(w));
    expect(r.path).toEqual(['reconciling', 'leadReview']);
    expect(w.runs()).toBe(0);
    expect(w.calls.n).toBe(0);
    expect(r.lead.grants).toEqual([
      { grant_id: g.grant.grant_id, slot: 'ordinary-repair', state: 'uncertain' },
    ]);
    expect(r.lead.limitations.join('\n')).toContain('outcome uncertain, not replayed');
    // and a restart after that needs a lead directive
    await expect(runGate(options(w))).rejects.toMatchObject({ code: 'attempt_not_authorized' });
    expect(w.runs()).toBe(0);
  }, 60_000);

  it('a grant reserved but never started is released at restart; nothing is granted twice', async () => {
    const w = await world();
    await crashedGrant(w, { commit: null, tree_digest: 'e'.repeat(64) });
    const r = await runGate(options(w));
    expect(r.lead.route).toBe('REVIEW_READY');
    expect(r.lead.limitations.join('\n')).toContain('reserved but never started: released at restart');
    const st = await w.ledger.status('example-greet');
    expect(st?.grants.map((x) => [x.slot, x.state])).toEqual([
      ['ordinary-repair', 'released'],
      ['ordinary-repair', 'consumed'],
    ]);
    expect(st?.used).toEqual({ 'ordinary-repair': 1, 'gate-continuation': 0, 'lead-directed': 0 });
  }, 60_000);

  it('a repeated lead directive returns the stored result: the worker does not run again', async () => {
    const w = await world();
    await runGate(options(w));
    expect(w.runs()).toBe(2);
    await w.ledger.addDirective({
      schema: 'gate-directive/v1',
      directive_id: 'd1',
      problem_id: 'example-greet',
      issued_by: 'lead@example',
      issued_at: T0,
      kind: 'attempt',
      contract_revision: null,
      note: 'one more look',
    });
    const d = await runGate(options(w, { directive: 'd1' }));
    expect(d.lead.grants).toMatchObject([{ slot: 'lead-directed', state: 'consumed' }]);
    expect(w.runs()).toBe(3);
    // same directive again, same tree (the idempotent worker changed nothing): replayed, not re-run
    await expect(runGate(options(w, { directive: 'd1' }))).rejects.toMatchObject({
      code: 'attempt_not_authorized',
      details: { reason: 'directive_used' },
    });
    // and after the tree moved on: still that directive's one attempt
    write(w.repo, 'src/extra.js', 'export const x = 1;\n');
    await expect(runGate(options(w, { directive: 'd1' }))).rejects.toMatchObject({
      code: 'attempt_not_authorized',
      details: { reason: 'directive_used' },
    });
    expect(w.runs()).toBe(3);
    expect((await w.ledger.status('example-greet'))?.used['lead-directed']).toBe(1);
  }, 60_000);

  it('the initial attempt starts only from the contract base candidate (base_mismatch)', async () => {
    const w = await world();
    write(w.repo, 'src/stray.js', 'export const stray = 1;\n');
    const refused = await runGate(options(w)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toMatchObject({ code: 'base_mismatch', details: { contract: {}, live: {} } });
    expect((refused as HandoffError).details).not.toHaveProperty('exit_code');
    expect(errorExitCode((refused as HandoffError).code, 'gate')).toBe(5);
    expect(w.runs()).toBe(0);
    expect((await w.ledger.status('example-greet'))?.grants).toEqual([]);
  }, 60_000);
});
