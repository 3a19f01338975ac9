import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AcceptanceReceiptSchema,
  contractDigest,
  createAcceptanceReceipt,
  createChain,
  createTaskContract,
  factRule,
  stageDelta,
  stageSpec,
  topologyProblems,
} from '../../src/chain/index.js';
import { isHandoffError as isErr } from '../../src/errors/index.js';
import { tripBaton, tripChain, tripContract, tripRules } from './trip-fixture.js';

const noop = () => stageDelta({});

function topologyError(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    if (isErr(e) && e.code === 'invalid_topology') return e.details.problems as string[];
    throw e;
  }
  throw new Error('expected invalid_topology');
}

const rule = (key: string, producer: string) =>
  factRule({ key, producer_stage: producer, type: z.unknown() });

describe('topology checks at construction', () => {
  it('accepts the fixture chain', () => {
    expect(() => tripChain()).not.toThrow();
  });

  it('needs a chain id and at least one stage', () => {
    expect(
      topologyError(() =>
        createChain({
          chain_id: ' ',
          contract: tripContract,
          stages: [{ spec: { name: 'a' }, run: noop }],
          rules: [],
        }),
      ),
    ).toContain('chain_id is empty');
    expect(
      topologyError(() => createChain({ chain_id: 'c', contract: tripContract, stages: [], rules: [] })),
    ).toContain('a chain needs at least one stage');
  });

  it('refuses duplicate stage names, rule keys and initial keys', () => {
    const p = topologyError(() =>
      createChain({
        chain_id: 'c',
        contract: tripContract,
        initial_keys: ['k', 'k'],
        stages: [
          { spec: { name: 'a', provides: ['x'] }, run: noop },
          { spec: { name: 'a', provides: ['y'] }, run: noop },
        ],
        rules: [rule('k', '__input__'), rule('x', 'a'), rule('x', 'a'), rule('y', 'a')],
      }),
    );
    expect(p).toContain("duplicate stage name 'a'");
    expect(p).toContain("duplicate rule for key 'x'");
    expect(p).toContain("duplicate initial key 'k'");
  });

  it('every required key needs an earlier owner', () => {
    const p = topologyError(() =>
      createChain({
        chain_id: 'c',
        contract: tripContract,
        stages: [
          { spec: { name: 'a', requires: ['y'], provides: ['x'] }, run: noop },
          { spec: { name: 'b', provides: ['y'] }, run: noop },
        ],
        rules: [rule('x', 'a'), rule('y', 'b')],
      }),
    );
    expect(p).toEqual(["stage 'a' requires 'y' with no earlier owner"]);
  });

  it('one producer per key (initial keys count as produced)', () => {
    const p = topologyError(() =>
      createChain({
        chain_id: 'c',
        contract: tripContract,
        initial_keys: ['x'],
        stages: [
          { spec: { name: 'a', provides: ['x'] }, run: noop },
          { spec: { name: 'b', provides: ['x'] }, run: noop },
        ],
        rules: [rule('x', '__input__')],
      }),
    );
    expect(p.join('\n')).toContain("key 'x' has more than one producer (__input__, a, b)");
  });

  it('the rule set must equal initial + provided keys', () => {
    const p = topologyError(() =>
      createChain({
        chain_id: 'c',
        contract: tripContract,
        stages: [{ spec: { name: 'a', provides: ['x', 'y'] }, run: noop }],
        rules: [rule('x', 'a'), rule('z', 'a')],
      }),
    );
    expect(p).toEqual(['rule keys must equal initial + provided keys: missing [y], extra [z]']);
  });

  it('producers: initial keys use __input__, others their owning stage; __input__ cannot name a stage', () => {
    const p = topologyError(() =>
      createChain({
        chain_id: 'c',
        contract: tripContract,
        initial_keys: ['k'],
        stages: [
          { spec: { name: 'a', requires: ['k'], provides: ['x'] }, run: noop },
          { spec: { name: '__input__', provides: ['y'] }, run: noop },
        ],
        rules: [rule('k', 'a'), rule('x', 'b'), rule('y', '__input__')],
      }),
    );
    expect(p).toContain("rule 'k' names producer 'a' but '__input__' owns it");
    expect(p).toContain("rule 'x' names producer 'b' but 'a' owns it");
    expect(p).toContain("'__input__' is reserved and cannot name a stage");
  });

  it('stage specs refuse duplicates and overlap', () => {
    expect(() => stageSpec({ name: 'a', requires: ['x', 'x'] })).toThrow(/duplicate keys: x/);
    expect(() => stageSpec({ name: 'a', requires: ['x'], provides: ['x'] })).toThrow(
      /both required and provided: x/,
    );
    expect(() => stageSpec({ name: '' })).toThrow();
    expect(
      topologyProblems({
        chain_id: 'c',
        specs: [stageSpec({ name: 'a', provides: ['x'] })],
        rules: [rule('x', 'a')],
        initial_keys: [],
      }),
    ).toEqual([]);
  });
});

describe('task contract and acceptance receipts', () => {
  const base = { contract_id: 'c', version: 1, objective: 'o', output_schema: 's', accountable_owner: 'me' };

  it('requires the four non-empty fields and version >= 1; applies budget defaults; is frozen', () => {
    const c = createTaskContract(base);
    expect(c.budget).toEqual({ max_attempts: 1, timeout_seconds: 60, max_tokens: null });
    expect(Object.isFrozen(c.budget)).toBe(true);
    for (const bad of [
      { ...base, objective: ' ' },
      { ...base, version: 0 },
      { ...base, budget: { max_attempts: 0 } },
      { ...base, extra: 1 },
    ]) {
      expect(() => createTaskContract(bad as never)).toThrow(/invalid task contract/);
    }
  });

  it('digest: 16 hex over canonical JSON of every field, stable under key order, changed by any field', () => {
    const d = contractDigest(createTaskContract(base));
    expect(d).toMatch(/^[0-9a-f]{16}$/);
    expect(
      contractDigest(
        createTaskContract({
          accountable_owner: 'me',
          output_schema: 's',
          objective: 'o',
          version: 1,
          contract_id: 'c',
        }),
      ),
    ).toBe(d);
    expect(contractDigest(createTaskContract({ ...base, constraints: ['x'] }))).not.toBe(d);
    expect(contractDigest(createTaskContract({ ...base, budget: { max_attempts: 2 } }))).not.toBe(d);
  });

  it('an accepted receipt may not carry blockers; a rejected one needs one', () => {
    const finding = { code: 'x', field: 'f', message: 'm', evidence: 'e', severity: 'blocker' as const };
    const r = { receipt_id: 'r', contract_digest: '0123456789abcdef', artifact_id: 'a', checked_by: 'c' };
    expect(() => createAcceptanceReceipt({ ...r, decision: 'accepted', findings: [finding] })).toThrow(
      /blocker/,
    );
    expect(() => createAcceptanceReceipt({ ...r, decision: 'rejected', findings: [] })).toThrow(
      /at least one blocker/,
    );
    expect(createAcceptanceReceipt({ ...r, decision: 'rejected', findings: [finding] }).decision).toBe(
      'rejected',
    );
    expect(
      AcceptanceReceiptSchema.safeParse({
        ...r,
        decision: 'escalated',
        findings: [{ ...finding, evidence: '' }],
      }).success,
    ).toBe(false);
  });
});

describe('new batons', () => {
  it('revision 0, initial facts from __input__, frozen', () => {
    const chain = tripChain();
    const b = tripBaton(chain);
    expect(b.revision).toBe(0);
    expect(b.snapshot_id).toBe(`trip-1::r0::${b.fingerprint}`);
    expect(b.records).toEqual([
      {
        key: 'request_id',
        value: 'req-7',
        producer_stage: '__input__',
        stage_run_id: 'trip-1::__input__',
        evidence_refs: ['chat://msg/0'],
      },
    ]);
    expect(Object.isFrozen(b.records[0])).toBe(true);
  });

  it('refuses blank identity, wrong initial keys, wrong types and missing evidence', () => {
    const chain = tripChain();
    const ok = { request_id: { value: 'r', evidence: ['e'] } };
    for (const bad of [
      { baton_id: '', intent: 'x', facts: ok },
      { baton_id: 'b', intent: ' ', facts: ok },
      { baton_id: 'b', intent: 'x', facts: {} },
      { baton_id: 'b', intent: 'x', facts: { ...ok, extra: { value: 1, evidence: ['e'] } } },
      { baton_id: 'b', intent: 'x', facts: { request_id: { value: 7, evidence: ['e'] } } },
      { baton_id: 'b', intent: 'x', facts: { request_id: { value: 'r' } } },
    ]) {
      let err: unknown;
      try {
        chain.newBaton(bad);
      } catch (e) {
        err = e;
      }
      expect(isErr(err) && err.code).toBe('invalid_input');
    }
    expect(tripRules.map((r) => r.key)).toContain('request_id');
  });
});
