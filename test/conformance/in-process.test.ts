/**
 * runConformance with in-process workers (a function or an object with a `run` method, as
 * `delegate` takes it): an honest worker passes every check that applies and the report names the
 * process-only checks as not applicable; each misbehaving worker — the attacks the delegate tests
 * found (a thrown non-Error, a thenable whose `then` throws, a Proxy answer, getters, an answer
 * changed after it was returned, more searches than granted) — fails exactly the check that names
 * its flaw.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { advanceBaseline } from '../../src/baseline/index.js';
import {
  answerChange,
  CHECKS,
  ConformanceReportSchema,
  DEFECTS,
  formatReport,
  NOT_APPLICABLE,
  notPlainData,
  ROLE_CHECKS,
  runConformance,
} from '../../src/conformance/index.js';
import {
  type Dispatch,
  type Handoff,
  handoffFor,
  protocolErrorHandoff,
  validateDispatch,
} from '../../src/contract/index.js';
import type { DelegateContext, DelegateFn, DelegateWorker } from '../../src/delegate/index.js';
import { failedChecks } from './helpers.js';

/** The honest worker's answer to a valid dispatch: fill the target's hinted `sorry`, or stuck. */
async function solve(d: Dispatch): Promise<Handoff> {
  const file = d.owned_files[0] as string;
  const lineNo = Number(/:(\d+)$/.exec(d.target)?.[1] ?? '0');
  const lines = (await readFile(file, 'utf8')).split('\n');
  const line = lines[lineNo - 1] ?? '';
  const hint = /sorry\s*--\s*hint:\s*(.+)$/.exec(line)?.[1]?.trim();
  if (hint === undefined) {
    return handoffFor(d, {
      status: 'stuck',
      blocker_kind: 'proof',
      blocker_class: 'missing-library-lemma',
      blocker_signature: `${d.target}: no hint`,
      next_action: 'stop',
      new_evidence_required_for_rerun: 'a hint for the target line',
    });
  }
  lines[lineNo - 1] = line.replace(/sorry\s*--\s*hint:.*$/, hint);
  await writeFile(file, lines.join('\n'));
  const file_baseline = await advanceBaseline(d.file_baseline, [file]);
  return handoffFor(d, {
    files_changed: [file],
    file_baseline,
    evidence: { ...handoffFor(d).evidence, queries: ['q'] },
  });
}

/** An honest in-process worker; `flaw` replaces its answer to valid dispatches. */
function worker(flaw?: (d: Dispatch) => unknown): DelegateFn {
  return async (input) => {
    const v = validateDispatch(input);
    if (!v.ok) {
      const first = v.issues[0];
      return protocolErrorHandoff(input, `malformed dispatch: ${first?.path || '(root)'} ${first?.code}`);
    }
    // the flaw gets the dispatch as sent (deep-frozen by the harness)
    return flaw === undefined ? solve(v.value) : flaw(input as Dispatch);
  };
}

const trap = () => {
  throw new Error('trap');
};

const run = (w: DelegateWorker, over: { runs?: number; timeoutMs?: number } = {}) =>
  runConformance({
    worker: w,
    name: 'test',
    runs: over.runs ?? 4,
    seed: 3,
    timeoutMs: over.timeoutMs ?? 10_000,
  });

const IN_PROCESS_ONLY = NOT_APPLICABLE.command.map((n) => n.check);
const PROCESS_ONLY = NOT_APPLICABLE['in-process'].map((n) => n.check);

describe('an honest in-process worker', () => {
  it('passes every check that applies, over the whole defect catalogue; the process checks are listed as not applicable', async () => {
    const r = await runConformance({ worker: worker(), name: 'honest', runs: 18, seed: 1 });
    expect(failedChecks(r)).toEqual([]);
    expect(r.failed).toBe(0);
    expect(ConformanceReportSchema.safeParse(r).success).toBe(true);
    expect(r.worker).toEqual(['<in-process>', 'honest']);
    expect(r.worker_kind).toBe('in-process');
    expect(r.not_applicable?.map((n) => n.check)).toEqual(PROCESS_ONLY);
    expect(new Set(r.cases.flatMap((c) => (c.defect ? [c.defect] : [])))).toEqual(new Set(DEFECTS));
    // never silently passed: a check that does not apply has no finding at all
    const applied = new Set(r.findings.map((f) => f.check));
    const roleOnly = [...ROLE_CHECKS.repair, ...ROLE_CHECKS.falsify]; // a fill run
    expect(applied).toEqual(
      new Set(CHECKS.filter((c) => !PROCESS_ONLY.includes(c) && !roleOnly.includes(c))),
    );
    expect(r.cases.every((c) => c.exit_code === null)).toBe(true);
    expect(formatReport(r)).toContain(
      'not applicable to an in-process worker (not rated, not counted):\n  spawn:',
    );
  }, 60_000);

  it('as an object with a run method (called on the object)', async () => {
    const honest = worker();
    class Agent {
      calls = 0;
      async run(d: Dispatch, c: DelegateContext) {
        this.calls++;
        return honest(d, c);
      }
    }
    const agent = new Agent();
    const r = await run(agent);
    expect(failedChecks(r)).toEqual([]);
    expect(agent.calls).toBe(4);
  });

  it('an object whose run getter throws fails returned on every case', async () => {
    const r = await run(Object.defineProperty({}, 'run', { get: trap }) as DelegateWorker, { runs: 2 });
    expect(failedChecks(r)).toEqual(['returned']);
    expect(r.findings.filter((f) => f.check === 'returned').map((f) => f.detail)).toEqual([
      'the worker threw: trap',
      'the worker threw: trap',
    ]);
  });

  it('a command run lists the in-process checks as not applicable', () => {
    expect(IN_PROCESS_ONLY).toEqual(['returned', 'plain-answer', 'answer-stable']);
  });

  it('refuses both kinds of worker at once, and neither', async () => {
    await expect(runConformance({ worker: worker(), command: ['x'] })).rejects.toThrow(/not both/);
    await expect(runConformance({})).rejects.toThrow(/needs a worker command/);
    await expect(runConformance({ worker: 7 as never })).rejects.toThrow(/function or an object/);
  });
});

describe('misbehaving in-process workers fail exactly the check that names the flaw', () => {
  const proxyOf = (h: Handoff) => new Proxy(h, {});
  const cases: [name: string, flaw: (d: Dispatch) => unknown, failing: string[]][] = [
    [
      'throws an Error',
      () => {
        throw new Error('boom');
      },
      ['returned'],
    ],
    [
      'throws a string',
      () => {
        throw 'no';
      },
      ['returned'],
    ],
    [
      'throws undefined',
      () => {
        throw undefined;
      },
      ['returned'],
    ],
    [
      'throws a Proxy whose every trap throws',
      () => {
        throw new Proxy({}, { get: trap, getPrototypeOf: trap, has: trap });
      },
      ['returned'],
    ],
    [
      'returns a thenable whose then getter throws',
      () => Object.defineProperty({}, 'then', { get: trap }),
      ['returned'],
    ],
    [
      'tries to widen the frozen dispatch',
      (d) => (d.owned_files as string[]).push('/etc/passwd'),
      ['returned'],
    ],
    ['answers with a Proxy', async (d) => proxyOf(await solve(d)), ['plain-answer']],
    [
      'answers with a getter (the same value on every read)',
      async (d) => {
        const h = await solve(d);
        return Object.defineProperty({ ...h }, 'status', { get: () => h.status, enumerable: true });
      },
      ['plain-answer'],
    ],
    [
      'changes its answer after returning it',
      async (d) => {
        const h: Record<string, unknown> = { ...(await solve(d)) };
        setTimeout(() => {
          h.attempted_tools = ['rewritten later'];
        }, 0);
        return h;
      },
      ['answer-stable'],
    ],
    [
      'runs more searches than granted',
      async (d) => {
        const h = await solve(d);
        return { ...h, evidence: { ...h.evidence, queries: ['a', 'b', 'c'] } };
      },
      ['search-budget'],
    ],
    [
      'writes outside its owned files',
      async (d) => {
        const h = await solve(d);
        await writeFile(join(d.owned_files[0] as string, '..', '..', 'stray.txt'), 'x\n');
        return h;
      },
      ['unowned-unchanged'],
    ],
  ];
  it.each(cases)('%s', async (_name, flaw, failing) => {
    const r = await run(worker(flaw));
    expect(failedChecks(r)).toEqual(failing);
    expect(ConformanceReportSchema.safeParse(r).success).toBe(true);
  });

  it('names what was thrown, safely, and what changed later', async () => {
    const threw = await run(
      worker(() => {
        throw Symbol('x');
      }),
      { runs: 1 },
    );
    expect(threw.findings.find((f) => f.check === 'returned')?.detail).toBe('the worker threw: Symbol(x)');
    const proxy = await run(
      worker(() => {
        throw new Proxy({}, { get: trap, getPrototypeOf: trap, has: trap });
      }),
      { runs: 1 },
    );
    expect(proxy.findings.find((f) => f.check === 'returned')?.detail).toBe(
      'the worker threw: a value that could not be described',
    );
    const later = await run(
      worker(async (d) => {
        const h: Record<string, unknown> = { ...(await solve(d)) };
        setTimeout(() => Object.assign(h, { attempted_tools: ['x'], failed_avenues: ['y'] }), 0);
        return h;
      }),
      { runs: 1 },
    );
    expect(later.findings.find((f) => f.check === 'answer-stable')?.detail).toBe(
      'the worker changed its answer after returning it: attempted_tools, failed_avenues changed',
    );
  });

  it('a getter that answers differently on each read fails plain-answer; answer-stable is then not rated', async () => {
    const r = await run(
      worker(async (d) => {
        const h = await solve(d);
        let reads = 0;
        return Object.defineProperty({ ...h }, 'attempted_tools', {
          enumerable: true,
          get: () => (reads++ === 0 ? [] : ['changed']),
        });
      }),
      { runs: 1 },
    );
    expect(failedChecks(r)).toEqual(['plain-answer']);
    expect(r.findings.find((f) => f.check === 'plain-answer')?.detail).toBe(
      'attempted_tools is a getter (its value can change from one read to the next)',
    );
    expect(r.findings.some((f) => f.check === 'answer-stable')).toBe(false);
  });

  it('never settles: the timeout ends the case', async () => {
    const r = await run(
      worker(() => new Promise(() => {})),
      { runs: 1, timeoutMs: 100 },
    );
    expect(failedChecks(r)).toEqual(['timeout']);
  });

  it('answers with a function, a cycle or a Date inside: not JSON data, handoff-valid fails', async () => {
    for (const extra of [{ verify: () => true }, { at: new Date(0) }]) {
      const r = await run(
        worker(async (d) => ({ ...(await solve(d)), ...extra })),
        { runs: 1 },
      );
      expect(failedChecks(r)).toEqual(['handoff-valid']);
      expect(r.findings.find((f) => f.check === 'handoff-valid')?.detail).toMatch(
        /^invalid handoff record: not JSON data/,
      );
    }
  });
});

describe('the answer-shape rules', () => {
  it('notPlainData finds a Proxy or an accessor anywhere without calling it', () => {
    expect(notPlainData({ a: [1, { b: 'x' }], c: null })).toBeNull();
    expect(notPlainData(new Proxy({}, { get: trap, ownKeys: trap }))).toBe(
      'the answer is a Proxy (its traps can answer each read differently)',
    );
    expect(notPlainData({ evidence: { queries: [new Proxy({}, {})] } })).toMatch(
      /^evidence\.queries\.0 is a Proxy/,
    );
    expect(notPlainData({ a: Object.defineProperty({}, 'b', { get: trap }) })).toBe(
      'a.b is a getter (its value can change from one read to the next)',
    );
    expect(notPlainData(Object.defineProperty({}, 'x', { set: trap }))).toMatch(/^x is a setter/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(notPlainData(cyclic)).toBeNull();
  });

  it('answerChange names the changed members', () => {
    expect(answerChange({ ok: true, value: { a: 1, b: 2 } }, { ok: true, value: { a: 1, b: 2 } })).toBeNull();
    expect(answerChange({ ok: true, value: { a: 1, b: 2 } }, { ok: true, value: { a: 2, c: 2 } })).toBe(
      'a, b, c changed',
    );
    expect(answerChange({ ok: true, value: {} }, { ok: false, detail: 'not JSON data: x' })).toBe(
      'it can no longer be read: not JSON data: x',
    );
    expect(answerChange({ ok: false, detail: 'x' }, { ok: true, value: {} })).toBeNull();
  });
});
