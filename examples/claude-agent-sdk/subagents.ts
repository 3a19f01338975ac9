/**
 * The example's scripted subagents — what a model with Read/Edit/Bash tools would do, played
 * offline: a route planner that answers a StageDelta, and an editor that fills a marker in the
 * files it owns, computes their sha256 as the prompt asks, and answers the handoff record (one
 * variant also rewrites a file it was not given).
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { initMessage, resultMessage, type ScriptStep } from './scripted-sdk.js';

/**
 * The marker the editor replaces.
 *
 * @example
 * ```ts
 * `export const greeting = '${MARKER}';`;
 * ```
 */
export const MARKER = 'TODO(agent)';

/**
 * A route planner whose final message is the route stage's delta: `depart_by` with its evidence.
 *
 * @example
 * ```ts
 * const query = scriptedQuery(routePlanner('18:00'));
 * ```
 */
export function routePlanner(departBy: string): ScriptStep[] {
  const delta = {
    facts: [{ key: 'depart_by', value: departBy, evidence_refs: ['maps://shanghai/route/42'] }],
    artifact_refs: [],
  };
  return [initMessage('/'), resultMessage(JSON.stringify(delta))];
}

interface Template {
  files_owned: string[];
  files_changed: string[];
  file_baseline: { files: { path: string; exists: boolean; sha256: string | null; size: number | null }[] };
}

/**
 * An editor: reads the handoff template at the end of its prompt (the adapter's default
 * `workerPrompt`), replaces the marker in each owned file with `word`, records each file's new
 * sha256 and size, and answers the filled-in template. With `overreach`, it also rewrites
 * `README.md` in `projectRoot`, which it was not given.
 *
 * @example
 * ```ts
 * const query = scriptedQuery(editor('hello', { projectRoot: '/app' }));
 * ```
 */
export function editor(word: string, o: { projectRoot: string; overreach?: boolean }): ScriptStep[] {
  return [
    initMessage(o.projectRoot),
    async (prompt) => {
      const h = JSON.parse(prompt.slice(prompt.indexOf('\n{') + 1)) as Template;
      for (const f of h.files_owned) {
        const bytes = Buffer.from((await readFile(f, 'utf8')).replaceAll(MARKER, word));
        await writeFile(f, bytes);
        const entry = h.file_baseline.files.find((e) => e.path === f);
        if (entry !== undefined) {
          entry.sha256 = createHash('sha256').update(bytes).digest('hex');
          entry.size = bytes.length;
        }
      }
      h.files_changed = [...h.files_owned];
      if (o.overreach === true)
        await writeFile(join(o.projectRoot, 'README.md'), 'Rewritten by the agent.\n');
      return resultMessage(JSON.stringify(h));
    },
  ];
}
