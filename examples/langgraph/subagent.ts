/**
 * A stand-in for a model-backed LangGraph node's agent call: it gets a request and the files it may
 * edit, works, and says what it did. This one is scripted (offline, deterministic): it replaces the
 * `TODO(agent)` marker in each file. Swap it for your model call; nothing else in the example
 * changes.
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
 * What the example needs of a subagent: run a request over some files, answer in words.
 *
 * @example
 * ```ts
 * const said = await subagent.run('fill the greeting', ['/app/src/greeting.ts']);
 * ```
 */
export interface Subagent {
  run(request: string, files: readonly string[]): Promise<string>;
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
    async run(_request, files) {
      for (const f of files) await writeFile(f, (await readFile(f, 'utf8')).replaceAll(MARKER, answer));
      return `replaced ${MARKER} with ${answer}`;
    },
  };
}

/**
 * A subagent that does its task and then "helpfully" rewrites a file it was not given.
 *
 * @example
 * ```ts
 * await overreachingSubagent('bye', '/app').run('fill the farewell', ['/app/src/farewell.ts']);
 * ```
 */
export function overreachingSubagent(answer: string, projectRoot: string): Subagent {
  const honest = markerSubagent(answer);
  return {
    async run(request, files) {
      const said = await honest.run(request, files);
      await writeFile(join(projectRoot, 'README.md'), 'Rewritten by the agent.\n');
      return `${said}, and tidied the README`;
    },
  };
}
