/**
 * The `query` docs/integrations/claude-agent-sdk.md runs with in the test suite, in place of the
 * SDK's own (which needs its platform binary and an API key): a scripted subagent that answers
 * a chain stage's prompt with its StageDelta, and a worker's prompt by filling the `TODO(agent)`
 * marker in its owned files and answering the handoff template with their new sha256 and size.
 * `maxTurns: 1` makes it run out of turns (an `error_max_turns` result).
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import type { ClaudeQuery } from '../../../src/adapters/claude-agent-sdk/index.js';
import { errorResult, initMessage, successResult } from './sdk-script.js';

interface Template {
  files_owned: string[];
  files_changed: string[];
  file_baseline: { files: { path: string; sha256: string | null; size: number | null }[] };
}

async function answer(prompt: string): Promise<string> {
  if (prompt.includes('\nStage: ')) {
    return JSON.stringify({
      facts: [{ key: 'depart_by', value: '18:00', evidence_refs: ['maps://shanghai/route/42'] }],
      artifact_refs: [],
    });
  }
  const h = JSON.parse(prompt.slice(prompt.indexOf('\n{') + 1)) as Template;
  for (const f of h.files_owned) {
    const bytes = Buffer.from((await readFile(f, 'utf8')).replaceAll('TODO(agent)', 'hello'));
    await writeFile(f, bytes);
    const entry = h.file_baseline.files.find((e) => e.path === f);
    if (entry !== undefined) {
      entry.sha256 = createHash('sha256').update(bytes).digest('hex');
      entry.size = bytes.length;
    }
  }
  h.files_changed = [...h.files_owned];
  return JSON.stringify(h);
}

/** The scripted stand-in for the SDK's `query`. */
export const query: ClaudeQuery = ({ prompt, options }) =>
  (async function* (): AsyncGenerator<SDKMessage> {
    yield initMessage(options?.cwd ?? '/');
    if (options?.maxTurns === 1) {
      yield { ...errorResult('error_max_turns'), num_turns: 1 };
      return;
    }
    yield successResult(await answer(prompt));
  })();
