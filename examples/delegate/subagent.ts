/**
 * A stand-in for a framework's subagent call — a LangGraph node, a Claude Agent SDK query, an
 * OpenAI Agents tool: it gets a task and the files it may edit, works, and says what it did. This
 * one is scripted (offline, deterministic): it replaces the `TODO(agent)` marker in each file.
 * Swap it for your framework's call; nothing else in the example changes.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The marker a task points at.
 *
 * @example
 * ```ts
 * `export const greeting = '${MARKER}';`;
 * ```
 */
export const MARKER = 'TODO(agent)';

/**
 * What the example needs of a subagent: run a task over some files, answer in words.
 *
 * @example
 * ```ts
 * const said = await subagent.run('fill the greeting', ['/app/src/greeting.ts']);
 * ```
 */
export interface Subagent {
  run(task: string, files: readonly string[]): Promise<string>;
}

/**
 * A subagent that replaces the marker in each file with `answer`.
 *
 * @example
 * ```ts
 * await markerSubagent('hello').run('fill the greeting', ['/app/src/greeting.ts']);
 * ```
 */
export function markerSubagent(answer: string): Subagent {
  return {
    async run(_task, files) {
      for (const f of files) await writeFile(f, (await readFile(f, 'utf8')).replaceAll(MARKER, answer));
      return `replaced ${MARKER} with ${answer}`;
    },
  };
}

/**
 * A subagent that does its task and then "helpfully" edits a file it was not given — the kind
 * of overreach delegate refuses.
 *
 * @example
 * ```ts
 * await overreachingSubagent('bye', '/app').run('fill the farewell', ['/app/src/farewell.ts']);
 * ```
 */
export function overreachingSubagent(answer: string, projectRoot: string): Subagent {
  const honest = markerSubagent(answer);
  return {
    async run(task, files) {
      const said = await honest.run(task, files);
      await writeFile(join(projectRoot, 'README.md'), 'Rewritten by the agent.\n');
      return `${said}, and tidied the README`;
    },
  };
}
