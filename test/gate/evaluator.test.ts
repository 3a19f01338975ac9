/**
 * Evaluator port: one request per frozen packet, no retry, one deadline; timeouts, missing keys,
 * invalid output and unavailability become recorded NOT_EVALUATED/INVALID assessments (function
 * ports and real subprocesses), and a stored assessment is returned without a second call.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  buildEvaluatorRequest,
  EvaluatorFailure,
  type EvaluatorPort,
  fsAssessmentStore,
  memoryAssessmentStore,
  runEvaluator,
  subprocessEvaluator,
} from '../../src/gate/index.js';
import { contract, packet, rm, T0, tempDir } from './fixtures.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/gate/evaluator.mjs', import.meta.url));
const c = contract();
const request = buildEvaluatorRequest(c, packet(c));
const now = () => T0;
const good = {
  claims: [{ criterion_id: 'reload-idempotent', raw_label: 'CONFIRMED', distribution: { CONFIRMED: 1 } }],
};

function counting(answer: (signal: AbortSignal) => Promise<unknown>): EvaluatorPort & { calls: number } {
  const port = {
    id: 'fn',
    calls: 0,
    evaluate: (_r: unknown, o: { signal: AbortSignal }) => {
      port.calls++;
      return answer(o.signal);
    },
  };
  return port;
}

describe('function evaluator port', () => {
  it('records an evaluated answer with the contract question, raw label and distribution', async () => {
    const a = await runEvaluator({ port: counting(async () => good), request, deadlineMs: 1000, now });
    expect(a.status).toBe('EVALUATED');
    expect(a.claims[0]).toMatchObject({
      raw_label: 'CONFIRMED',
      question: c.criteria[0]?.text,
      distribution: { CONFIRMED: 1 },
    });
  });

  it('a timeout is NOT_EVALUATED/timeout after one deadline, and the port saw an abort', async () => {
    let aborted = false;
    const port = counting(
      (signal) =>
        new Promise(() => {
          signal.addEventListener('abort', () => {
            aborted = true;
          });
        }),
    );
    const t = Date.now();
    const a = await runEvaluator({ port, request, deadlineMs: 50, now });
    expect(a.status).toBe('NOT_EVALUATED');
    expect(a.failure?.kind).toBe('timeout');
    expect(aborted).toBe(true);
    expect(Date.now() - t).toBeLessThan(2000);
    expect(port.calls).toBe(1);
  });

  it('missing key and unavailability are NOT_EVALUATED with their kind; no retry', async () => {
    const noKey = counting(async () => {
      throw new EvaluatorFailure('no-key', 'no API key');
    });
    expect((await runEvaluator({ port: noKey, request, deadlineMs: 1000, now })).failure?.kind).toBe(
      'no-key',
    );
    expect(noKey.calls).toBe(1);
    const boom = counting(async () => {
      throw new Error('connection refused');
    });
    const a = await runEvaluator({ port: boom, request, deadlineMs: 1000, now });
    expect(a).toMatchObject({ status: 'NOT_EVALUATED', failure: { kind: 'unavailable' } });
    expect(boom.calls).toBe(1);
    expect((await runEvaluator({ port: null, request, deadlineMs: 1000, now })).failure?.kind).toBe(
      'unavailable',
    );
  });

  it.each([
    ['wrong shape', { claims: 'x' }],
    [
      'unknown criterion',
      { claims: [{ criterion_id: 'zzz', raw_label: 'CONFIRMED', distribution: { CONFIRMED: 1 } }] },
    ],
    [
      'distribution not summing to 1',
      {
        claims: [
          { criterion_id: 'reload-idempotent', raw_label: 'CONFIRMED', distribution: { CONFIRMED: 0.5 } },
        ],
      },
    ],
    [
      'label without probability',
      {
        claims: [{ criterion_id: 'reload-idempotent', raw_label: 'REFUTED', distribution: { CONFIRMED: 1 } }],
      },
    ],
    ['required question unanswered', { claims: [] }],
  ])('invalid data (%s) is INVALID, not INSUFFICIENT', async (_n, answer) => {
    const a = await runEvaluator({ port: counting(async () => answer), request, deadlineMs: 1000, now });
    expect(a.status).toBe('INVALID');
    expect(a.failure?.kind).toBe('invalid-data');
    expect(a.claims).toEqual([]);
  });

  it('one request per frozen packet: a stored assessment is replayed, a begun request is not retried', async () => {
    const store = memoryAssessmentStore();
    const port = counting(async () => good);
    const a1 = await runEvaluator({ port, request, deadlineMs: 1000, now, store });
    const a2 = await runEvaluator({ port, request, deadlineMs: 1000, now, store });
    expect(a2).toEqual(a1);
    expect(port.calls).toBe(1);
    // a crash after begin() and before put(): the next run gets NOT_EVALUATED/budget, no second call
    const crashed = memoryAssessmentStore();
    await crashed.begin(request.packet_id);
    const a3 = await runEvaluator({ port, request, deadlineMs: 1000, now, store: crashed });
    expect(a3.failure?.kind).toBe('budget');
    expect(port.calls).toBe(1);
  });
});

describe('subprocess evaluator (real processes)', () => {
  const env = (extra: Record<string, string>) => ({ ...process.env, ...extra });

  it('answers through the example evaluator script', async () => {
    const port = subprocessEvaluator([process.execPath, EXAMPLE], { env: env({}) });
    const a = await runEvaluator({ port, request, deadlineMs: 10_000, now });
    expect(a.status).toBe('EVALUATED');
    expect(a.claims[0]?.raw_label).toBe('INSUFFICIENT');
  });

  it('kills a sleeping evaluator at the deadline: NOT_EVALUATED/timeout', async () => {
    const port = subprocessEvaluator([process.execPath, EXAMPLE], {
      env: env({ GATE_EXAMPLE_MODE: 'sleep' }),
    });
    const t = Date.now();
    const a = await runEvaluator({ port, request, deadlineMs: 300, now });
    expect(a.failure?.kind).toBe('timeout');
    expect(Date.now() - t).toBeLessThan(5000);
  });

  it('invalid stdout is INVALID; a crash and a missing binary are unavailable; a no-key answer is no-key', async () => {
    const run = async (argv: string[], extra: Record<string, string> = {}) =>
      runEvaluator({
        port: subprocessEvaluator(argv, { env: env(extra) }),
        request,
        deadlineMs: 10_000,
        now,
      });
    expect((await run([process.execPath, EXAMPLE], { GATE_EXAMPLE_MODE: 'invalid' })).status).toBe('INVALID');
    expect((await run([process.execPath, EXAMPLE], { GATE_EXAMPLE_MODE: 'crash' })).failure?.kind).toBe(
      'unavailable',
    );
    expect((await run(['/nonexistent/evaluator-binary'])).failure?.kind).toBe('unavailable');
    expect(
      (await run([process.execPath, EXAMPLE], { GATE_EVALUATOR_REQUIRE_KEY: '1', GATE_EVALUATOR_KEY: '' }))
        .failure?.kind,
    ).toBe('no-key');
    expect((await run([process.execPath, '-e', 'process.stdout.write("not json")'])).status).toBe('INVALID');
  });

  it('runs contained: a detached descendant holding stdout is swept, and env replaces the environment', async () => {
    // the evaluator answers, then leaves a detached child that keeps stdout open and sleeps
    const script = [
      "const { spawn } = require('node:child_process');",
      "const c = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { detached: true, stdio: ['ignore', 'inherit', 'ignore'] });",
      'c.unref();',
      'process.stdout.write(JSON.stringify({ pid: c.pid, seen: Object.keys(process.env).filter((k) => k.startsWith("EVAL_")) }));',
    ].join('\n');
    const port = subprocessEvaluator([process.execPath, '-e', script], {
      env: { PATH: process.env.PATH, EVAL_ONLY: '1' },
    });
    const answer = (await port.evaluate(request, { signal: new AbortController().signal })) as {
      pid: number;
      seen: string[];
    };
    expect(answer.seen).toEqual(['EVAL_ONLY']);
    // killed by the session sweep; an unreaped zombie counts as gone. SIGKILL is delivered when the
    // process next leaves the kernel (a loaded machine may take a moment): look for up to 10 s
    const gone = () => {
      try {
        return /^\d+ \(.*\) [ZX]/.test(readFileSync(`/proc/${answer.pid}/stat`, 'utf8'));
      } catch {
        return true;
      }
    };
    for (let i = 0; i < 100 && !gone(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(gone()).toBe(true);
  });

  it('the fs store keeps the one-request promise across processes and restarts', async () => {
    const dir = tempDir();
    try {
      const port = counting(async () => good);
      const a1 = await runEvaluator({ port, request, deadlineMs: 1000, now, store: fsAssessmentStore(dir) });
      const a2 = await runEvaluator({ port, request, deadlineMs: 1000, now, store: fsAssessmentStore(dir) });
      expect(a2).toEqual(a1);
      expect(port.calls).toBe(1);
    } finally {
      rm(dir);
    }
  });
});
