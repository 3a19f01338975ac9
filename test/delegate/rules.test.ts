/**
 * The pure rules of a delegation, without files: describing what a worker threw, reading an
 * answer once into plain data, the findings per zone and echo, the search grant of a dispatch,
 * the handoffs the runtime writes itself, how a delegation ends, and the rerun guard's answer.
 */
import { describe, expect, it } from 'vitest';
import type { FileBaseline } from '../../src/baseline/index.js';
import { type Dispatch, handoffFor, validateHandoff } from '../../src/contract/index.js';
import { canRelaunch } from '../../src/delegate/can-relaunch.js';
import { describeThrown, MAX_THROWN_DETAIL } from '../../src/delegate/describe-thrown.js';
import { detachAnswer } from '../../src/delegate/detach.js';
import { checkDispatchRecord } from '../../src/delegate/dispatch-check.js';
import { dispatchRecord } from '../../src/delegate/dispatch-record.js';
import {
  fenceStuckHandoff,
  operationalErrorHandoff,
  stoppedHandoff,
  userStopHandoff,
} from '../../src/delegate/refusal-handoff.js';
import { searchGrantOf } from '../../src/delegate/search-grant.js';
import { isAccepted, settleHandoff } from '../../src/delegate/settle-rules.js';
import { withTurns } from '../../src/delegate/turns.js';
import { echoViolations, readHandoff, tamperViolations } from '../../src/delegate/violations.js';

const baseline: FileBaseline = {
  schema: 'file-baseline/v1',
  files: [
    {
      path: '/r/src/a.ts',
      realpath: '/r/src/a.ts',
      exists: true,
      sha256: 'a'.repeat(64),
      size: 3,
    },
  ],
};

const dispatch: Dispatch = dispatchRecord(
  { target: 'src/a.ts:1', scope: 'file', mode: 'autoprove', ownedFiles: ['src/a.ts'] },
  ['/r/src/a.ts'],
  baseline,
  '/tmp',
);

describe('describeThrown never throws and bounds the text', () => {
  it.each([
    ['an Error', new Error('boom'), 'boom'],
    ['a TypeError', new TypeError('x is not a function'), 'TypeError: x is not a function'],
    ['a string', 'nope', 'nope'],
    ['a number', 42, '42'],
    ['undefined', undefined, 'undefined'],
    ['null', null, 'null'],
    ['a symbol', Symbol('s'), 'Symbol(s)'],
    ['an object with a message', { message: 'plain' }, 'plain'],
    ['a blank string', '   ', 'an empty value'],
  ])('%s', (_name, value, text) => {
    expect(describeThrown(value)).toBe(text);
  });

  it('an object whose message getter and toString throw, and a Proxy whose every trap throws', () => {
    const getter = Object.defineProperty({}, 'message', {
      get() {
        throw new Error('getter');
      },
    });
    const trap = () => {
      throw new Error('trap');
    };
    const proxy = new Proxy({}, { get: trap, getPrototypeOf: trap, has: trap, ownKeys: trap });
    const toStringThrows = {
      toString() {
        throw new Error('toString');
      },
    };
    expect(describeThrown(getter)).toBe('a value that could not be described');
    expect(describeThrown(proxy)).toBe('a value that could not be described');
    expect(describeThrown(toStringThrows)).toBe('a value that could not be described');
  });

  it('cuts long text', () => {
    const d = describeThrown(new Error('x'.repeat(10_000)));
    expect(d).toHaveLength(MAX_THROWN_DETAIL + 1);
    expect(d.endsWith('…')).toBe(true);
  });
});

describe('detachAnswer reads an answer once into plain JSON data', () => {
  it('keeps plain data, refuses what JSON cannot carry', () => {
    expect(detachAnswer({ a: [1, 'x', null] })).toEqual({ ok: true, value: { a: [1, 'x', null] } });
    expect(detachAnswer({ a: () => 1 })).toEqual({
      ok: false,
      detail: expect.stringMatching(
        /^not JSON data: HandoffError: canonical JSON cannot represent a function/,
      ),
    });
    expect(detachAnswer({ a: undefined }).ok).toBe(false);
    expect(detachAnswer({ a: 1n }).ok).toBe(false);
    expect(detachAnswer({ a: new Date(0) }).ok).toBe(false);
    expect(detachAnswer({ a: Number.NaN }).ok).toBe(false);
  });

  it('a getter that answers differently on every read is read exactly once', () => {
    let reads = 0;
    const answer: { status?: string } = Object.defineProperty({}, 'status', {
      enumerable: true,
      get() {
        reads += 1;
        return reads === 1 ? 'stuck' : 'solved';
      },
    });
    const d = detachAnswer(answer);
    expect(d).toEqual({ ok: true, value: { status: 'stuck' } });
    expect(reads).toBe(1);
    expect(answer.status).toBe('solved'); // the worker's object keeps changing; the copy does not
    expect(d).toEqual({ ok: true, value: { status: 'stuck' } });
  });

  it('a value nested 100,000 deep and a cycle are refused without recursion', () => {
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(detachAnswer(deep)).toEqual({
      ok: false,
      detail: expect.stringMatching(/^a: nests deeper than 64/),
    });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(detachAnswer(cyclic).ok).toBe(false);
  });

  it('a Proxy whose traps throw is refused, not thrown', () => {
    const trap = () => {
      throw new Error('trap');
    };
    expect(detachAnswer(new Proxy({}, { ownKeys: trap, get: trap, getPrototypeOf: trap })).ok).toBe(false);
  });
});

describe('readHandoff', () => {
  it('a valid answer is the validated handoff; an invalid one is a schema finding naming its first issues', () => {
    const h = handoffFor(dispatch);
    expect(readHandoff(h)).toEqual({ ok: true, handoff: h });
    const bad = readHandoff({ ...h, status: 'done' });
    expect(bad).toEqual({
      ok: false,
      violation: { check: 'schema', detail: expect.stringMatching(/^invalid handoff record: status: /) },
    });
    expect(readHandoff(null)).toEqual({
      ok: false,
      violation: {
        check: 'schema',
        detail: expect.stringMatching(
          /^invalid handoff record: the worker returned nothing \(null\); fix: return handoffFor\(/,
        ),
      },
    });
  });
});

describe('findings', () => {
  it('one finding per zone, in order', () => {
    expect(
      tamperViolations('owned file /r/src/a.ts was replaced by a symbolic link to /etc/passwd', {
        project: ['README.md'],
        git: ['/r/.git/hooks/pre-commit'],
        store: ['runs/x/events.jsonl'],
      }).map((v) => v.check),
    ).toEqual(['owned_type', 'outside_owned', 'git_state', 'run_store']);
    expect(tamperViolations(null, { project: [], git: [], store: [] })).toEqual([]);
  });

  it('echo: the task and the owned set', () => {
    const h = handoffFor(dispatch);
    expect(echoViolations(dispatch, h)).toEqual([]);
    expect(echoViolations(dispatch, { ...h, mode: 'golf' }).map((v) => v.check)).toEqual(['task_echo']);
    expect(
      echoViolations(dispatch, { ...h, files_owned: ['/r/src/a.ts', '/r/b.ts'] }).map((v) => v.check),
    ).toEqual(['owned_echo']);
    expect(echoViolations(dispatch, { ...h, files_owned: ['/r/src/a.ts', '/r/src/a.ts'] })).toEqual([]);
  });

  it('the search grant of a dispatch', () => {
    expect(searchGrantOf({ capabilities: [] })).toBeNull();
    expect(searchGrantOf({ capabilities: ['search-budget:2', 'search-budget:1'] })).toEqual({
      budget: 1,
      ledger: { inconclusive: 0, unavailable: [] },
    });
    expect(searchGrantOf({ capabilities: ['search-budget:2', 'search-fallback'] })?.ledger.inconclusive).toBe(
      2,
    );
    expect(searchGrantOf({ capabilities: ['search-budget:lots'] })).toBeNull();
  });
});

describe('the handoffs the runtime writes validate and echo the dispatch', () => {
  it.each([
    ['operational error', operationalErrorHandoff(dispatch, 'the model provider answered 503')],
    ['operational error with a blank detail', operationalErrorHandoff(dispatch, '  ')],
    ['protocol error', stoppedHandoff(dispatch, 'protocol-error', 'x')],
    ['user stop', userStopHandoff(dispatch)],
    ['fence stuck', fenceStuckHandoff(dispatch, 'header fence: a.ts: theorem t: statement changed')],
    [
      'fence stuck on a target that is not file:line',
      fenceStuckHandoff({ ...dispatch, target: 'ticket-7' }, 'x'),
    ],
  ])('%s', (_name, h) => {
    expect(validateHandoff(h).ok).toBe(true);
    expect(h.status).not.toBe('solved');
    expect(h.files_owned).toEqual(dispatch.owned_files);
    expect(h.files_changed).toEqual([]);
    expect(h.file_baseline).toEqual(dispatch.file_baseline);
  });

  it('the fence stop is a safety guard with a redraft', () => {
    const h = fenceStuckHandoff(dispatch, 'header fence: …');
    expect(h).toMatchObject({
      status: 'stuck',
      blocker_kind: 'safety-guard',
      blocker_class: null,
      blocker_signature: 'src/a.ts:1:header fence',
      next_action: 'redraft',
    });
  });
});

describe('settleHandoff: how a delegation ends', () => {
  const solved = handoffFor(dispatch);
  const custody = { check: 'baseline' as const, detail: 'files_changed names non-owned file(s): /r/x' };
  const fence = {
    check: 'statement_fence' as const,
    detail: 'header fence: a.lean: theorem t: statement changed',
  };

  it('accepted: no finding, no failure, no operational stop of its own', () => {
    const f = { violations: [], handoff: solved, failure: null };
    expect(isAccepted(f)).toBe(true);
    expect(settleHandoff(dispatch, f, [])).toEqual({ outcome: 'accepted', handoff: solved, violations: [] });
  });

  it('refused: a protocol-error stop naming every finding and the restore notes', () => {
    const r = settleHandoff(dispatch, { violations: [custody], handoff: solved, failure: null }, [
      'owned files restored',
    ]);
    expect(r.outcome).toBe('refused');
    expect(r.handoff.stop_reason).toBe('protocol-error');
    expect(r.handoff.stop_detail).toBe('files_changed names non-owned file(s): /r/x; owned files restored');
    expect(r.violations).toEqual([custody]);
  });

  it('a statement-fence breach alone makes the target stuck; with another finding it is a protocol error', () => {
    expect(
      settleHandoff(dispatch, { violations: [fence], handoff: solved, failure: null }, []).handoff.status,
    ).toBe('stuck');
    expect(
      settleHandoff(dispatch, { violations: [fence, custody], handoff: solved, failure: null }, []).handoff
        .stop_reason,
    ).toBe('protocol-error');
  });

  it('a worker that failed after tampering is refused, with both reasons', () => {
    const r = settleHandoff(
      dispatch,
      {
        violations: [
          { check: 'outside_owned', detail: 'the worker wrote outside its owned files: README.md' },
        ],
        handoff: null,
        failure: { stop: 'operational-error', detail: 'the worker threw: boom' },
      },
      [],
    );
    expect(r.outcome).toBe('refused');
    expect(r.handoff.stop_detail).toBe(
      'the worker threw: boom; and the worker wrote outside its owned files: README.md',
    );
  });

  it('failed: a thrown worker, an aborted one, a worker that stopped on its own error', () => {
    const threw = settleHandoff(
      dispatch,
      {
        violations: [],
        handoff: null,
        failure: { stop: 'operational-error', detail: 'the worker threw: boom' },
      },
      [],
    );
    expect(threw).toMatchObject({ outcome: 'failed', handoff: { stop_reason: 'operational-error' } });
    const aborted = settleHandoff(
      dispatch,
      { violations: [], handoff: null, failure: { stop: 'user-stop', detail: 'aborted by the host' } },
      [],
    );
    expect(aborted).toMatchObject({
      outcome: 'failed',
      handoff: { stop_reason: 'user-stop', stop_detail: null },
    });
    const own = stoppedHandoff(dispatch, 'operational-error', 'rate limited');
    const stopped = settleHandoff(dispatch, { violations: [], handoff: own, failure: null }, []);
    expect(stopped).toMatchObject({
      outcome: 'failed',
      handoff: { stop_reason: 'operational-error', stop_detail: 'the worker stopped: rate limited' },
    });
  });
});

describe('canRelaunch: the rerun guard', () => {
  it('a first launch is allowed', () => {
    expect(canRelaunch(dispatch, null)).toMatchObject({ allowed: true, forbidden: false, branch: 'free' });
  });

  it('after an operational error, the same task needs an evidence_delta entry', () => {
    const prior = operationalErrorHandoff(dispatch, 'the model provider answered 503');
    expect(canRelaunch(dispatch, prior)).toMatchObject({ allowed: false, branch: 'operational' });
    expect(canRelaunch({ ...dispatch, evidence_delta: ['the provider is back'] }, prior).allowed).toBe(true);
  });

  it('after a blocker, the same blocker needs new evidence; a user stop never blocks', () => {
    const stuck = handoffFor(dispatch, {
      status: 'stuck',
      blocker_kind: 'capability',
      blocker_signature: 'src/a.ts:1:no network',
      new_evidence_required_for_rerun: 'network access',
      next_action: 'stop',
    });
    const again = { ...dispatch, prior_blocker: 'src/a.ts:1:no network' };
    expect(canRelaunch(again, stuck)).toMatchObject({ allowed: false, required_evidence: 'network access' });
    expect(canRelaunch({ ...again, evidence_delta: ['network granted'] }, stuck).allowed).toBe(true);
    expect(canRelaunch(dispatch, userStopHandoff(dispatch)).allowed).toBe(true);
  });
});

describe('checkDispatchRecord', () => {
  it('a valid dispatch is copied and frozen; an invalid one is refused with a protocol-error handoff', () => {
    const c = checkDispatchRecord(dispatch);
    expect(c.ok).toBe(true);
    if (c.ok) {
      expect(c.dispatch).toEqual(dispatch);
      expect(c.dispatch).not.toBe(dispatch);
      expect(Object.isFrozen(c.dispatch.owned_files)).toBe(true);
    }
    const bad = checkDispatchRecord({ ...dispatch, scope: 'galaxy' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.result.outcome).toBe('refused');
      expect(bad.result.violations[0]?.check).toBe('dispatch');
      expect(bad.result.handoff.stop_reason).toBe('protocol-error');
      expect(validateHandoff(bad.result.handoff).ok).toBe(true);
    }
  });
});

describe('withTurns', () => {
  it('calls sharing a key run one after another, in call order, even when one throws', async () => {
    const seen: string[] = [];
    const step =
      (name: string, fail = false) =>
      async () => {
        seen.push(`in ${name}`);
        await new Promise((r) => setTimeout(r, 5));
        seen.push(`out ${name}`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      withTurns(['/a'], step('one', true)),
      withTurns(['/b', '/a'], step('two')),
      withTurns(['/a'], step('three')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(seen).toEqual(['in one', 'out one', 'in two', 'out two', 'in three', 'out three']);
  });

  it('calls with no key in common overlap, and keys taken in sorted order never deadlock', async () => {
    let inside = 0;
    let most = 0;
    const step = async () => {
      inside += 1;
      most = Math.max(most, inside);
      await new Promise((r) => setTimeout(r, 10));
      inside -= 1;
    };
    await Promise.all([withTurns(['/x'], step), withTurns(['/y'], step)]);
    expect(most).toBe(2);
    await Promise.all([withTurns(['/p', '/q'], step), withTurns(['/q', '/p'], step)]);
  });
});
