/**
 * runSubagent: the first `result` message of a scripted SDK stream becomes the answer (structured
 * output, else the text as JSON, else the text), and every misbehaving stream — error subtypes,
 * no result, a throw, an abort, a flood, an oversized answer, messages after the result, hostile
 * message objects — ends as a ClaudeSubagentError value; the SDK's AbortController is the
 * adapter's own and is aborted once the run ends.
 */
import { query as sdkQuery } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import {
  type ClaudeQuery,
  ClaudeSubagentError,
  loadClaudeQuery,
  parseAnswerText,
  runSubagent,
  type SubagentOutcome,
} from '../../../src/adapters/claude-agent-sdk/index.js';
import {
  assistantText,
  errorResult,
  hang,
  hangUntilAborted,
  initMessage,
  SESSION,
  scriptedQuery,
  successResult,
  toolResult,
  toolUse,
} from './sdk-script.js';

const live = () => new AbortController().signal;

function failure(out: SubagentOutcome): ClaudeSubagentError {
  if (out.ok) throw new Error(`expected a failure, got ${JSON.stringify(out.run)}`);
  return out.error;
}

describe('the answer', () => {
  it('is the result text parsed as JSON, with what the result said about the run', async () => {
    const s = scriptedQuery([
      initMessage(),
      toolUse('Read', { file_path: '/project/a.ts' }),
      toolResult('export const a = 1;'),
      assistantText('{"ok": true}'),
      successResult('{"ok": true}'),
    ]);
    const out = await runSubagent({
      query: s.query,
      prompt: 'do it',
      options: { maxTurns: 3 },
      signal: live(),
    });
    expect(out).toEqual({
      ok: true,
      run: {
        answer: { ok: true },
        format: 'json',
        session_id: SESSION,
        num_turns: 2,
        total_cost_usd: 0.0123,
        messages: 5,
      },
    });
    expect(s.calls).toHaveLength(1);
    expect(s.calls[0]?.prompt).toBe('do it');
    expect(s.calls[0]?.options?.maxTurns).toBe(3);
    expect(s.closed).toBe(true);
  });

  it('prefers structured_output over the text, and reads it once into plain JSON', async () => {
    let reads = 0;
    const structured = {
      get ok() {
        reads += 1;
        return reads === 1;
      },
    };
    const s = scriptedQuery([successResult('not json at all', { structured_output: structured })]);
    const out = await runSubagent({ query: s.query, prompt: 'p', signal: live() });
    expect(out.ok && out.run).toMatchObject({ answer: { ok: true }, format: 'structured' });
  });

  it('accepts one fenced block; text around JSON, or no JSON, is the text itself', () => {
    expect(parseAnswerText('  ```json\n{"a": [1]}\n```  ')).toEqual({ format: 'json', value: { a: [1] } });
    expect(parseAnswerText('```\n[1, 2]\n```')).toEqual({ format: 'json', value: [1, 2] });
    expect(parseAnswerText('Here it is: {"a": 1}')).toEqual({
      format: 'text',
      value: 'Here it is: {"a": 1}',
    });
    expect(parseAnswerText('{"a": 1}\n{"b": 2}')).toMatchObject({ format: 'text' });
    expect(parseAnswerText('```json\n{"a": 1}\n```\nand more')).toMatchObject({ format: 'text' });
    expect(parseAnswerText('')).toEqual({ format: 'text', value: '' });
  });

  it('the first result ends the run: later messages are never read and the stream is closed', async () => {
    let wroteLate = false;
    const s = scriptedQuery([
      successResult('{"answer": 1}'),
      successResult('{"answer": 2}'),
      () => {
        wroteLate = true;
        return undefined;
      },
    ]);
    const out = await runSubagent({ query: s.query, prompt: 'p', signal: live() });
    expect(out.ok && out.run.answer).toEqual({ answer: 1 });
    expect(s.yielded).toBe(1);
    expect(s.closed).toBe(true);
    expect(wroteLate).toBe(false);
  });
});

describe('runs without an answer', () => {
  it.each([
    ['error_max_turns', ['Reached maximum number of turns (5)']],
    ['error_during_execution', ['tool crashed']],
    ['error_max_budget_usd', []],
    ['error_max_structured_output_retries', []],
  ] as const)('%s is error_result, naming the subtype and the errors', async (subtype, errors) => {
    const s = scriptedQuery([initMessage(), errorResult(subtype, [...errors])]);
    const e = failure(await runSubagent({ query: s.query, prompt: 'p', signal: live() }));
    expect(e).toBeInstanceOf(ClaudeSubagentError);
    expect(e.name).toBe('ClaudeSubagentError');
    expect(e.reason).toBe('error_result');
    expect(e.message).toBe(
      `the subagent ended with ${subtype} after 5 turn(s)${errors.length > 0 ? `: ${errors.join('; ')}` : ''}`,
    );
  });

  it('a success result with is_error (an API error) is error_result with its text', async () => {
    const s = scriptedQuery([successResult('API Error: 529 overloaded', { is_error: true })]);
    const e = failure(await runSubagent({ query: s.query, prompt: 'p', signal: live() }));
    expect(e.reason).toBe('error_result');
    expect(e.message).toBe(
      'the subagent ended with success with is_error after 2 turn(s): API Error: 529 overloaded',
    );
  });

  it('a stream that ends without a result is no_result', async () => {
    const s = scriptedQuery([initMessage(), assistantText('{"ok": true}')]);
    const e = failure(await runSubagent({ query: s.query, prompt: 'p', signal: live() }));
    expect(e.reason).toBe('no_result');
    expect(e.message).toBe('the stream ended after 2 message(s) without a result message');
  });

  it('a query that throws mid-stream, or when called, is threw', async () => {
    const s = scriptedQuery([
      initMessage(),
      () => {
        throw new Error('Claude Code process exited with code 1');
      },
    ]);
    const e = failure(await runSubagent({ query: s.query, prompt: 'p', signal: live() }));
    expect(e.reason).toBe('threw');
    expect(e.message).toBe(
      'the query threw after 1 message(s): Error: Claude Code process exited with code 1',
    );
    const broken: ClaudeQuery = () => {
      throw 'no binary';
    };
    expect(failure(await runSubagent({ query: broken, prompt: 'p', signal: live() })).message).toBe(
      'the query threw after 0 message(s): no binary',
    );
  });

  it('hostile message objects: a throwing getter is threw; unreadable or missing answers are bad_result', async () => {
    const trap = new Proxy(
      {},
      {
        get() {
          throw new Error('gotcha');
        },
      },
    );
    const asQuery = (messages: unknown[]): ClaudeQuery =>
      async function* () {
        for (const m of messages) yield m;
      } as unknown as ClaudeQuery;
    expect(failure(await runSubagent({ query: asQuery([trap]), prompt: 'p', signal: live() })).reason).toBe(
      'threw',
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const c = failure(
      await runSubagent({
        query: asQuery([successResult('x', { structured_output: cyclic })]),
        prompt: 'p',
        signal: live(),
      }),
    );
    expect(c.reason).toBe('bad_result');
    expect(c.message).toMatch(/^the structured output is not JSON: TypeError: /);
    const noText = { ...successResult('x'), result: 42 };
    expect(
      failure(await runSubagent({ query: asQuery([noText]), prompt: 'p', signal: live() })).message,
    ).toBe('the success result has no result text');
    // non-objects in the stream are counted and skipped
    const out = await runSubagent({
      query: asQuery([null, 7, successResult('[]')]),
      prompt: 'p',
      signal: live(),
    });
    expect(out.ok && out.run).toMatchObject({ answer: [], messages: 3, session_id: SESSION });
  });

  it('a flood of messages stops at maxMessages; an oversized answer is result_too_large', async () => {
    const flood = scriptedQuery(Array.from({ length: 50 }, () => assistantText('…')));
    const f = failure(
      await runSubagent({ query: flood.query, prompt: 'p', signal: live(), limits: { maxMessages: 5 } }),
    );
    expect(f.reason).toBe('too_many_messages');
    expect(f.message).toBe('more than 5 messages without a result');
    expect(flood.yielded).toBe(5);
    expect(flood.closed).toBe(true);

    const big = scriptedQuery([successResult(`{"x":"${'a'.repeat(200)}"}`)]);
    const b = failure(
      await runSubagent({ query: big.query, prompt: 'p', signal: live(), limits: { maxResultChars: 100 } }),
    );
    expect(b.reason).toBe('result_too_large');
    expect(b.message).toBe('the result text is 208 characters, over the limit of 100');
    const bigStructured = scriptedQuery([successResult('', { structured_output: { x: 'a'.repeat(200) } })]);
    expect(
      failure(
        await runSubagent({
          query: bigStructured.query,
          prompt: 'p',
          signal: live(),
          limits: { maxResultChars: 100 },
        }),
      ).message,
    ).toBe('the structured output is 208 characters, over the limit of 100');
  });

  it('refuses limits that are not positive integers', async () => {
    await expect(
      runSubagent({
        query: scriptedQuery([]).query,
        prompt: 'p',
        signal: live(),
        limits: { maxMessages: 0 },
      }),
    ).rejects.toMatchObject({ code: 'usage' });
  });
});

describe('abort', () => {
  it('a query that never ends is cut by the signal; the SDK controller is aborted and the stream closed', async () => {
    const s = scriptedQuery([initMessage(), hang, successResult('{}')]);
    const c = new AbortController();
    setTimeout(() => c.abort(), 20);
    const e = failure(await runSubagent({ query: s.query, prompt: 'p', signal: c.signal }));
    expect(e.reason).toBe('aborted');
    expect(e.message).toBe('aborted after 1 message(s), before a result');
    expect(s.controller()?.signal.aborted).toBe(true);
  });

  it('an SDK that honours its controller ends its stream when the signal aborts', async () => {
    const s = scriptedQuery([initMessage(), hangUntilAborted, successResult('{}')]);
    const c = new AbortController();
    setTimeout(() => c.abort(new Error('stop')), 20);
    const e = failure(await runSubagent({ query: s.query, prompt: 'p', signal: c.signal }));
    expect(e.reason).toBe('aborted');
    await new Promise((r) => setTimeout(r, 10));
    expect(s.closed).toBe(true);
  });

  it('an aborted signal never starts the query', async () => {
    const s = scriptedQuery([successResult('{}')]);
    const e = failure(await runSubagent({ query: s.query, prompt: 'p', signal: AbortSignal.abort() }));
    expect(e.message).toBe('aborted before the subagent started');
    expect(s.calls).toHaveLength(0);
  });

  it('the SDK gets the adapter controller, linked to yours, and aborted once the run ended', async () => {
    const mine = new AbortController();
    let seen: AbortController | undefined;
    const s = scriptedQuery([
      (o) => {
        seen = o.abortController;
        expect(o.abortController?.signal.aborted).toBe(false);
        return undefined;
      },
      successResult('{}'),
    ]);
    const out = await runSubagent({
      query: s.query,
      prompt: 'p',
      options: { abortController: mine },
      signal: live(),
    });
    expect(out.ok).toBe(true);
    expect(seen).toBeDefined();
    expect(seen).not.toBe(mine);
    expect(seen?.signal.aborted).toBe(true);
    expect(mine.signal.aborted).toBe(false);

    const stopper = new AbortController();
    const h = scriptedQuery([hangUntilAborted, successResult('{}')]);
    setTimeout(() => stopper.abort(), 20);
    const e = failure(
      await runSubagent({
        query: h.query,
        prompt: 'p',
        options: { abortController: stopper },
        signal: live(),
      }),
    );
    expect(e.reason).toBe('aborted'); // your controller stopped the run, whatever the SDK did then
    expect(e.message).toBe('aborted after 0 message(s), before a result');
    expect(h.controller()?.signal.aborted).toBe(true);

    // an SDK that ignores the controller does not keep the run waiting either
    const late = new AbortController();
    const deaf = scriptedQuery([initMessage(), hang, successResult('{}')]);
    setTimeout(() => late.abort(), 20);
    const d = failure(
      await runSubagent({
        query: deaf.query,
        prompt: 'p',
        options: { abortController: late },
        signal: live(),
      }),
    );
    expect(d.message).toBe('aborted after 1 message(s), before a result');

    // an already aborted controller of yours never starts the query
    const never = scriptedQuery([successResult('{}')]);
    const n = failure(
      await runSubagent({
        query: never.query,
        prompt: 'p',
        options: { abortController: late },
        signal: live(),
      }),
    );
    expect(n.message).toBe('aborted before the subagent started');
    expect(never.calls).toHaveLength(0);
  });
});

describe('loading the SDK', () => {
  it('the SDK query fits ClaudeQuery, and loadClaudeQuery finds it', async () => {
    const q: ClaudeQuery = sdkQuery;
    expect(await loadClaudeQuery()).toBe(q);
  });

  it('names the package when it is missing or has no query', async () => {
    await expect(
      loadClaudeQuery(async () => Promise.reject(new Error('Cannot find package'))),
    ).rejects.toThrow(
      'the Claude Agent SDK is not installed (npm install @anthropic-ai/claude-agent-sdk), and no query was injected: Cannot find package',
    );
    await expect(loadClaudeQuery(async () => ({}))).rejects.toThrow(
      '@anthropic-ai/claude-agent-sdk has no query function',
    );
  });
});
