/**
 * The worker half: one delegation per subagent, the subagent adapted with `claudeWorker`. The
 * honest editor's handoff is accepted and journaled in the project's run store; the overreaching
 * one, which also rewrites README.md, is refused; its edit of the owned file and its README.md are put back.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ClaudeQuery, claudeWorker } from 'handoff-runtime/claude-agent-sdk';
import { createDispatch, delegate } from 'handoff-runtime/delegate';
import { createFsStore } from 'handoff-runtime/store';
import { MARKER } from './subagents.js';

/**
 * Writes the demo project (`src/greeting.ts` and `src/farewell.ts` with a marker, a README) into `dir` and commits it.
 *
 * @example
 * ```ts
 * await createDemoProject('/tmp/app');
 * ```
 */
export async function createDemoProject(dir: string): Promise<void> {
  await mkdir(join(dir, 'src'), { recursive: true });
  await writeFile(join(dir, 'src', 'greeting.ts'), `export const greeting = '${MARKER}';\n`);
  await writeFile(join(dir, 'src', 'farewell.ts'), `export const farewell = '${MARKER}';\n`);
  await writeFile(join(dir, 'README.md'), 'A demo project for handoff-runtime/claude-agent-sdk.\n');
  const git = (args: readonly string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git(['init', '-q']);
  git(['add', '-A']);
  git([
    '-c',
    'user.name=demo',
    '-c',
    'user.email=demo@example.invalid',
    'commit',
    '-q',
    '-m',
    'demo project',
  ]);
}

/**
 * One delegation's summary.
 *
 * @example
 * ```ts
 * const a: Attempt = { outcome: 'accepted', status: 'solved', violations: [], detail: null, cite: 'r#1', text: '…' };
 * ```
 */
export interface Attempt {
  readonly outcome: string;
  readonly status: string;
  readonly violations: readonly string[];
  readonly detail: string | null;
  readonly cite: string | null;
  /** The owned file's text after the delegation. */
  readonly text: string;
}

/**
 * Delegates "fill the marker in `src/<name>.ts`" in `dir` to the subagent behind `query`,
 * journaled in the project's run store.
 *
 * @example
 * ```ts
 * const a = await delegateEdit('/tmp/app', 'greeting', query); // query from '@anthropic-ai/claude-agent-sdk'
 * ```
 */
export async function delegateEdit(dir: string, name: string, query: ClaudeQuery): Promise<Attempt> {
  const file = join(dir, 'src', `${name}.ts`);
  const dispatch = await createDispatch({
    target: `src/${name}.ts:1`,
    scope: 'file',
    mode: 'autoprove',
    ownedFiles: [file],
  });
  const worker = claudeWorker({
    query,
    options: {
      cwd: dir,
      permissionMode: 'acceptEdits',
      tools: ['Read', 'Edit', 'Bash'], // what it can use
      allowedTools: ['Bash(sha256sum:*)', 'Bash(wc -c:*)'], // what runs without asking, besides edits
      maxTurns: 10,
    },
  });
  const r = await delegate(dispatch, worker, {
    store: createFsStore({ projectRoot: dir }),
    timeoutMs: 600_000,
  });
  return {
    outcome: r.outcome,
    status: r.handoff.status,
    violations: r.violations.map((v) => v.check),
    detail: r.handoff.stop_detail,
    cite: r.cite ?? null,
    text: await readFile(file, 'utf8'),
  };
}
