/**
 * An offline `query` for the Claude Agent SDK guide (docs/integrations/claude-agent-sdk.md): a
 * scripted stand-in for the SDK's own `query`, which needs its platform binary and an API key.
 * Pass it where the guide passes `query` to try every step without either; pass the SDK's `query`
 * (`import { query } from '@anthropic-ai/claude-agent-sdk'`) to run real subagents — nothing else
 * changes.
 *
 * The scripted subagent answers a chain stage's prompt with its StageDelta, and a worker's prompt
 * by filling the `TODO(agent)` marker in its owned files and answering the handoff template in the
 * prompt with their new sha256 and size. `maxTurns: 1` makes it run out of turns (an
 * `error_max_turns` result), as a real subagent that needs more turns would. The guide's code
 * blocks run with this very file in the test suite (test/adapters/claude-agent-sdk/doc.test.ts).
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import type { SDKMessage, SDKResultError } from '@anthropic-ai/claude-agent-sdk';
import type { ClaudeQuery } from 'handoff-runtime/claude-agent-sdk';
import { initMessage, resultMessage } from './claude-agent-sdk/scripted-sdk.js';

interface Template {
  files_owned: string[];
  files_changed: string[];
  file_baseline: { files: { path: string; sha256: string | null; size: number | null }[] };
}

/**
 * The scripted subagent's final answer to `prompt`.
 *
 * @example
 * ```ts
 * await offlineAnswer('…\nStage: plan\n…'); // '{"facts":[…],"artifact_refs":[]}'
 * ```
 */
export async function offlineAnswer(prompt: string): Promise<string> {
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

/**
 * The offline stand-in for the SDK's `query`.
 *
 * @example
 * ```ts
 * import { query } from './claude-offline-query.js'; // or the SDK's own: '@anthropic-ai/claude-agent-sdk'
 * const r = await delegate(dispatch, claudeWorker({ query }));
 * ```
 */
export const query: ClaudeQuery = ({ prompt, options }) =>
  (async function* (): AsyncGenerator<SDKMessage> {
    yield initMessage(options?.cwd ?? '/');
    if (options?.maxTurns === 1) {
      const success = resultMessage('');
      const { result: _result, ...rest } = success;
      const stopped: SDKResultError = {
        ...rest,
        subtype: 'error_max_turns',
        is_error: true,
        stop_reason: null,
        errors: [],
      };
      yield stopped;
      return;
    }
    yield resultMessage(await offlineAnswer(typeof prompt === 'string' ? prompt : ''));
  })();
