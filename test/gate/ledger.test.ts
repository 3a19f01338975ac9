/**
 * Ledger rules against both log backends (memory and fs): ordinary repair before the gate
 * continuation, one grant per candidate, idempotent keys, no replenishment by directives,
 * restarts or renamed jobs, lead-directed attempts bounded then escalation, missing or damaged
 * history failing closed, release only before work started.
 */
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { continuationKey } from '../../src/gate/ids.js';
import {
  createFsLedger,
  createLogLedger,
  DEFAULT_THRESHOLDS,
  decideRoute,
  type Ledger,
  memoryLedgerLog,
} from '../../src/gate/index.js';
import {
  contract,
  directive,
  evaluated,
  live,
  OK,
  PROFILE,
  packet,
  req,
  rm,
  T0,
  tempDir,
} from './fixtures.js';
import { ledgerRuleTests } from './ledger-rules.js';

const tmp = tempDir('gate-ledger-');
afterAll(() => rm(tmp));

let n = 0;
const backends: [string, () => Ledger][] = [
  ['memory', () => createLogLedger(memoryLedgerLog(), { now: () => T0 })],
  ['fs', () => createFsLedger(join(tmp, String(n++)), { now: () => T0 })],
];

describe.each(backends)('ledger (%s)', (_name, make) => {
  ledgerRuleTests(make);

  it('uses the ordinary repair first, then the gate continuation, then nothing', async () => {
    const l = make();
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    const g1 = await l.reserve(...live(req('k1', '1'.repeat(64))));
    expect(g1).toMatchObject({ outcome: 'granted', grant: { slot: 'ordinary-repair' } });
    if (g1.outcome === 'refused') throw new Error('unreachable');
    expect(await l.reserve(...live(req('k2', '2'.repeat(64))))).toMatchObject({
      outcome: 'refused',
      reason: 'grant_outstanding',
    });
    await l.start('p1', g1.grant.grant_id);
    await l.consume('p1', g1.grant.grant_id);
    expect((await l.consume('p1', g1.grant.grant_id)).state).toBe('consumed'); // idempotent
    // same candidate again: no second continuation for it
    expect(await l.reserve(...live(req('k3', '1'.repeat(64))))).toMatchObject({
      reason: 'candidate_already_granted',
    });
    const g2 = await l.reserve(...live(req('k2', '2'.repeat(64))));
    expect(g2).toMatchObject({ outcome: 'granted', grant: { slot: 'gate-continuation' } });
    if (g2.outcome === 'refused') throw new Error('unreachable');
    await l.consume('p1', g2.grant.grant_id);
    // a replay of an old event returns the stored grant, nothing new
    expect(await l.reserve(...live(req('k1', '1'.repeat(64))))).toMatchObject({
      outcome: 'replayed',
      grant: { grant_id: g1.grant.grant_id },
    });
    expect(await l.reserve(...live(req('k1', '9'.repeat(64))))).toMatchObject({ reason: 'key_conflict' });
    // restart (a new ledger object on the same storage would see the same) / renamed job: exhausted
    expect(
      await l.reserve(...live(req('k4', '4'.repeat(64), { requested_by: 'renamed-job' }))),
    ).toMatchObject({
      reason: 'exhausted',
    });
    // a lead directive and re-registration do not replenish the shared slot
    await l.addDirective(directive('d1'));
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 2 });
    expect(await l.reserve(...live(req('k5', '5'.repeat(64))))).toMatchObject({ reason: 'exhausted' });
    const st = await l.status('p1');
    expect(st?.used).toEqual({ 'ordinary-repair': 1, 'gate-continuation': 1, 'lead-directed': 0 });
  });
});

describe('fs ledger integrity', () => {
  it('a damaged or gapped log fails closed', async () => {
    const root = join(tmp, 'damaged');
    const l = createFsLedger(root, { now: () => T0 });
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    // an entry of the older one-file-per-entry format beside the new log, with a gap
    mkdirSync(join(root, 'p1', 'log'));
    writeFileSync(join(root, 'p1', 'log', '00000003.json'), '{}');
    await expect(l.reserve(...live(req('k')))).rejects.toMatchObject({ code: 'ledger_damaged' });
    writeFileSync(join(root, 'p1', 'log', '00000002.json'), '{"type":"torn');
    await expect(l.status('p1')).rejects.toMatchObject({ code: 'ledger_damaged' });
    // the new log: a complete last line that is not a checksummed ledger line
    rmSync(join(root, 'p1', 'log'), { recursive: true });
    expect((await l.status('p1'))?.seq).toBe(1);
    appendFileSync(join(root, 'p1', 'log.jsonl'), '{"type":"reserved","seq":2}\n');
    await expect(l.status('p1')).rejects.toMatchObject({ code: 'ledger_damaged' });
  });
  it('refuses path-unsafe problem ids', async () => {
    const l = createFsLedger(join(tmp, 'unsafe'), { now: () => T0 });
    await expect(l.status('../escape')).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

describe('the seed: no replenishment, no re-execution', () => {
  it('a lead directive, threshold change, session restart, or renamed job does not replenish the shared extra slot', async () => {
    const root = join(tmp, 'replenish');
    const c = contract();
    const p = packet(c);
    const a = evaluated(p, [
      {
        criterion_id: 'reload-idempotent',
        raw_label: 'CONFIRMED',
        distribution: { CONFIRMED: 0.85, INSUFFICIENT: 0.15 },
        requested_evidence: [],
      },
    ]);
    const l = createFsLedger(root, { now: () => T0 });
    await l.register({ problem_id: c.problem_id, profile: PROFILE, contract_revision: 1 });
    const ask = (ledger: Ledger, key: string, digest: string, by: string) =>
      ledger.reserve(...live(req(key, digest, { problem_id: c.problem_id, requested_by: by })));
    // ordinary repair and the gate continuation are both used
    for (const [key, d] of [
      ['k-repair', '1'],
      [continuationKey(c.problem_id, p.packet_id), '2'],
    ] as const) {
      const g = await ask(l, key, d.repeat(64), 'job-a');
      if (g.outcome !== 'granted') throw new Error(`expected a grant, got ${g.outcome}`);
      await l.start(c.problem_id, g.grant.grant_id);
      await l.consume(c.problem_id, g.grant.grant_id);
    }
    const before = await l.status(c.problem_id);
    await l.addDirective({
      schema: 'gate-directive/v1',
      directive_id: 'd1',
      problem_id: c.problem_id,
      issued_by: 'lead',
      issued_at: T0,
      kind: 'attempt',
      contract_revision: null,
      note: '',
    });
    const restarted = createFsLedger(root, { now: () => T0 }); // a new session on the same storage
    expect(await ask(restarted, 'k-new', '3'.repeat(64), 'renamed-job')).toMatchObject({
      outcome: 'refused',
      reason: 'exhausted',
    });
    // a stricter threshold recomputes the recommendation from the stored probabilities …
    const input = {
      contract: c,
      packet: p,
      exact: OK,
      assessment: a,
      afterContinuation: false,
      slots: { ordinary_repair: 1, gate_continuation: 1 },
    };
    expect(decideRoute({ ...input, thresholds: DEFAULT_THRESHOLDS }).route).toBe('REVIEW_READY');
    expect(decideRoute({ ...input, thresholds: { satisfied: 0.9, violated: 0.5 } }).route).toBe(
      'CONTINUATION_ELIGIBLE',
    );
    // … but the same packet's event only replays the used authorization, it cannot re-execute it
    const replay = await ask(restarted, continuationKey(c.problem_id, p.packet_id), '2'.repeat(64), 'job-b');
    expect(replay).toMatchObject({
      outcome: 'replayed',
      grant: { slot: 'gate-continuation', state: 'consumed' },
    });
    const after = await restarted.status(c.problem_id);
    expect(after?.grants).toEqual(before?.grants);
    expect(after?.remaining).toMatchObject({ 'ordinary-repair': 0, 'gate-continuation': 0 });
  });
});
