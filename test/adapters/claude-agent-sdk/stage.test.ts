/**
 * claudeStage in a real chain (the trip fixture: intent → route → pay, route played by a scripted
 * Claude subagent): an answer that is the stage's StageDelta commits; every other final message
 * is refused by the seam with its own code — stage_failed for runs without an answer (error
 * subtypes, no result, a throw, a time-out, oversized), invalid_stage_delta for text and forged
 * fields, promised_fact_missing / undeclared_fact for the wrong keys, the fact checks for wrong
 * values — and the checkpoint resumes with the same stage_run_id.
 */
import { describe, expect, it } from 'vitest';
import { claudeStage, stagePrompt } from '../../../src/adapters/claude-agent-sdk/index.js';
import { type BatonView, isSeamError, type SeamError } from '../../../src/chain/index.js';
import { goodStages, tripBaton, tripChain } from '../../chain/trip-fixture.js';
import {
  errorResult,
  hang,
  initMessage,
  type ScriptStep,
  scriptedQuery,
  successResult,
  toolUse,
} from './sdk-script.js';

const prompt = stagePrompt({ task: 'Pick the departure time for the trip.', provides: ['depart_by'] });

function delta(facts: unknown[], artifact_refs: unknown[] = []): string {
  return JSON.stringify({ facts, artifact_refs });
}

const departBy = (value: unknown, evidence: string[] = ['maps://route/42']) => ({
  key: 'depart_by',
  value,
  evidence_refs: evidence,
});

async function runRoute(
  steps: readonly ScriptStep[],
  o: { stageTimeoutMs?: number; maxResultChars?: number } = {},
) {
  const s = scriptedQuery(steps);
  const views: BatonView[] = [];
  const chain = tripChain({
    ...goodStages(),
    route: claudeStage({
      query: s.query,
      prompt,
      options: { model: 'haiku', maxTurns: 2 },
      ...(o.maxResultChars === undefined ? {} : { limits: { maxResultChars: o.maxResultChars } }),
      onRun: (_run, view) => views.push(view),
    }),
  });
  const b0 = tripBaton(chain);
  try {
    const r = await chain.run(b0, o.stageTimeoutMs === undefined ? {} : { stageTimeoutMs: o.stageTimeoutMs });
    return { s, chain, views, result: r, error: null };
  } catch (e) {
    if (!isSeamError(e)) throw e;
    return { s, chain, views, result: null, error: e as SeamError };
  }
}

describe('claudeStage commits the subagent delta', () => {
  it('a StageDelta as the final message is committed, with provenance and receipt', async () => {
    const { s, result, views } = await runRoute([
      initMessage(),
      toolUse('WebSearch', { query: 'Shanghai trains' }),
      successResult(delta([departBy('18:00')], ['doc://route-note'])),
    ]);
    expect(result?.baton.revision).toBe(3);
    const rec = result?.baton.records.find((r) => r.key === 'depart_by');
    expect(rec).toMatchObject({
      value: '18:00',
      producer_stage: 'route',
      evidence_refs: ['maps://route/42'],
    });
    expect(result?.baton.artifact_refs).toContain('doc://route-note');
    expect(result?.acceptance.decision).toBe('accepted');
    expect(views).toHaveLength(1);
    // the prompt carries the stage run id and the committed facts; the SDK gets the options
    const p = s.calls[0]?.prompt ?? '';
    expect(p).toContain(`stage_run_id ${rec?.stage_run_id}`);
    expect(p).toContain('"city":"Shanghai"');
    expect(p).toContain('Deliver exactly these keys, each once: "depart_by".');
    expect(s.calls[0]?.options).toMatchObject({ model: 'haiku', maxTurns: 2 });
    expect(s.controller()?.signal.aborted).toBe(true);
  });

  it('structured_output (outputFormat json_schema) is used when present', async () => {
    const { result } = await runRoute([
      successResult('Done.', { structured_output: { facts: [departBy('17:30')], artifact_refs: [] } }),
    ]);
    expect(result?.baton.records.find((r) => r.key === 'depart_by')?.value).toBe('17:30');
  });

  it('a fenced JSON answer is read; a result followed by another result keeps the first', async () => {
    const { s, result } = await runRoute([
      successResult(`\`\`\`json\n${delta([departBy('18:00')])}\n\`\`\``),
      successResult(delta([departBy('23:59')])),
    ]);
    expect(result?.baton.records.find((r) => r.key === 'depart_by')?.value).toBe('18:00');
    expect(s.yielded).toBe(1);
  });
});

describe('the seam refuses every other final message with its code', () => {
  it.each([
    [
      'error_max_turns',
      'stage_failed',
      /^ClaudeSubagentError: the subagent ended with error_max_turns after 5 turn\(s\): out of turns$/,
      [errorResult('error_max_turns', ['out of turns'])],
    ],
    [
      'error_during_execution',
      'stage_failed',
      /^ClaudeSubagentError: the subagent ended with error_during_execution/,
      [errorResult('error_during_execution')],
    ],
    [
      'no result message',
      'stage_failed',
      /^ClaudeSubagentError: the stream ended after 1 message\(s\) without a result message$/,
      [initMessage()],
    ],
    [
      'a query that throws mid-stream',
      'stage_failed',
      /^ClaudeSubagentError: the query threw after 1 message\(s\): Error: socket hang up$/,
      [
        initMessage(),
        () => {
          throw new Error('socket hang up');
        },
      ],
    ],
    [
      'prose instead of JSON',
      'invalid_stage_delta',
      /^the stage did not return a StageDelta: .*expected object, received string/,
      [successResult('The train leaves at 18:00.')],
    ],
    [
      'JSON that is not a delta',
      'invalid_stage_delta',
      /^the stage did not return a StageDelta: /,
      [successResult('{"depart_by": "18:00"}')],
    ],
    [
      'a forged producer and run id in a fact',
      'invalid_stage_delta',
      /Unrecognized key/,
      [
        successResult(
          delta([{ ...departBy('18:00'), producer_stage: 'intent', stage_run_id: 'trip-1::intent::r0::x' }]),
        ),
      ],
    ],
    [
      'an extra top-level field',
      'invalid_stage_delta',
      /Unrecognized key/,
      [
        successResult(
          JSON.stringify({ facts: [departBy('18:00')], artifact_refs: [], receipt_id: 'forged' }),
        ),
      ],
    ],
    [
      'a blank evidence ref',
      'invalid_stage_delta',
      /blank reference/,
      [successResult(delta([departBy('18:00', [' '])]))],
    ],
    [
      'no fact',
      'promised_fact_missing',
      /^did not deliver promised fact\(s\): depart_by$/,
      [successResult(delta([]))],
    ],
    [
      'a key the stage does not provide',
      'undeclared_fact',
      /^delivered undeclared fact\(s\): payment_id$/,
      [
        successResult(
          delta([departBy('18:00'), { key: 'payment_id', value: 'pay-forged', evidence_refs: ['bank://x'] }]),
        ),
      ],
    ],
    [
      'a committed key restated',
      'undeclared_fact',
      /^delivered undeclared fact\(s\): city$/,
      [successResult(delta([departBy('18:00'), { key: 'city', value: 'Paris', evidence_refs: ['x://y'] }]))],
    ],
    [
      'the wrong type',
      'fact_type_mismatch',
      /^'depart_by' has the wrong type/,
      [successResult(delta([departBy(1800)]))],
    ],
    [
      'no evidence',
      'fact_evidence_missing',
      /^'depart_by' requires evidence/,
      [successResult(delta([departBy('18:00', [])]))],
    ],
    [
      'a value the rule refuses',
      'fact_semantic_violation',
      /^'depart_by': departure 21:00 is later than 20:00/,
      [successResult(delta([departBy('21:00')]))],
    ],
  ] as const)('%s → %s', async (_name, code, detail, steps) => {
    const { error } = await runRoute(steps as readonly ScriptStep[]);
    expect(error?.code).toBe(code);
    expect(error?.stage).toBe('route');
    expect(error?.detail).toMatch(detail);
    expect(error?.checkpoint.revision).toBe(1);
    expect(error?.checkpoint.trace).toEqual(['intent']);
  });

  it('an oversized answer is stage_failed before it is parsed', async () => {
    const { error } = await runRoute([successResult(delta([departBy('18:00', ['x'.repeat(5000)])]))], {
      maxResultChars: 1000,
    });
    expect(error?.code).toBe('stage_failed');
    expect(error?.detail).toBe(
      'ClaudeSubagentError: the result text is 5087 characters, over the limit of 1000',
    );
  });

  it('a subagent that never ends is cut by the stage time limit, and the SDK controller is aborted', async () => {
    const { s, error } = await runRoute([initMessage(), hang, successResult(delta([departBy('18:00')]))], {
      stageTimeoutMs: 50,
    });
    expect(error?.code).toBe('stage_failed');
    expect(error?.detail).toBe('TimeoutError: stage exceeded 50 ms');
    await new Promise((r) => setTimeout(r, 10));
    expect(s.controller()?.signal.aborted).toBe(true);
  });

  it('a retry from the checkpoint asks the subagent again under the same stage_run_id', async () => {
    const first = await runRoute([errorResult('error_max_turns')]);
    expect(first.error?.code).toBe('stage_failed');
    const again = scriptedQuery([successResult(delta([departBy('18:00')]))]);
    const chain = tripChain({ ...goodStages(), route: claudeStage({ query: again.query, prompt }) });
    const r = await chain.run(first.error?.checkpoint ?? tripBaton(chain));
    expect(r.baton.revision).toBe(3);
    expect(again.calls[0]?.prompt).toBe(first.s.calls[0]?.prompt);
  });

  it('refuses a missing prompt function at creation', () => {
    expect(() => claudeStage({ prompt: 'hi' as unknown as () => string })).toThrow(
      'claudeStage needs a prompt function',
    );
  });
});
