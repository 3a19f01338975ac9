/**
 * docs/concepts.md says what is true: its field tables name every key of the dispatch, its
 * context and the handoff (run-contract/v1) and nothing else, its class table is the code
 * profile's and the proof phrases, and its TypeScript block runs as written in a fresh git
 * project (package names mapped to the sources, `console.log` collected) and ends solved.
 */
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BLOCKER_CLASS_PHRASES,
  DispatchContextSchema,
  DispatchSchema,
  HandoffSchema,
} from '../../src/contract/index.js';
import { CODE_BLOCKER_CLASSES } from '../../src/profile/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const doc = await readFile(join(ROOT, 'docs', 'concepts.md'), 'utf8');

function section(title: string): string {
  const start = doc.indexOf(`## ${title}`);
  const end = doc.indexOf('\n## ', start + 3);
  return doc.slice(start, end === -1 ? undefined : end);
}

/** The backticked names in the first column of a section's table rows. */
function firstColumnNames(text: string): Set<string> {
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    const cell = /^\| ([^|]+) \|/.exec(line)?.[1] ?? '';
    for (const m of cell.matchAll(/`([a-z_]+)`/g)) out.add(m[1] as string);
  }
  return out;
}

describe('docs/concepts.md', () => {
  it('the dispatch table names every dispatch field, and the context row every context field', () => {
    const s = section('The dispatch');
    expect(firstColumnNames(s)).toEqual(new Set(Object.keys(DispatchSchema.shape)));
    const contextRow = s.split('\n').find((l) => l.startsWith('| `context` |')) ?? '';
    for (const k of Object.keys(DispatchContextSchema.shape)) expect(contextRow).toContain(`\`${k}\``);
  });

  it('the handoff table names every handoff field', () => {
    expect(firstColumnNames(section('The handoff'))).toEqual(new Set(Object.keys(HandoffSchema.shape)));
  });

  it("the class table is the proof phrases and the code profile's phrases", () => {
    const rows = section('Domain profiles')
      .split('\n')
      .map((l) => /^\| `([a-z-]+)` \| ([^|]+) \| ([^|]+) \|$/.exec(l))
      .filter((m) => m !== null);
    expect(rows).toHaveLength(7);
    for (const [, cls, proof, code] of rows) {
      expect(BLOCKER_CLASS_PHRASES[(proof as string).trim()]).toBe(cls);
      expect(CODE_BLOCKER_CLASSES.phrases[(code as string).trim()]).toBe(cls);
    }
  });
});

describe('docs/concepts.md runs as written', () => {
  let project: string;
  let moduleDir: string;
  const log: unknown[][] = [];
  const previousCwd = process.cwd();

  beforeAll(async () => {
    project = await realpath(await mkdtemp(join(tmpdir(), 'concepts-doc-')));
    moduleDir = await mkdtemp(join(tmpdir(), 'concepts-doc-module-'));
    await mkdir(join(project, 'src'));
    await writeFile(
      join(project, 'src', 'answer.mjs'),
      'export function answer() {\n  return 0; // TODO(agent): return 42;\n}\n',
    );
    await writeFile(
      join(project, 'check.mjs'),
      "import { answer } from './src/answer.mjs';\nprocess.exit(answer() === 42 ? 0 : 1);\n",
    );
    await copyFile(join(ROOT, 'test', 'profile', 'fixtures', 'todo-worker.mjs'), join(project, 'worker.mjs'));
    execFileSync('git', ['init', '-q'], { cwd: project });
    execFileSync('git', ['add', '-A'], { cwd: project });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init'], {
      cwd: project,
    });
    // the page runs with target `src`, so worker.mjs and check.mjs are outside the work
    const code = /^```ts\n([\s\S]*?)^```$/m.exec(doc)?.[1] ?? '';
    const mapped = code
      .replaceAll("from 'handoff-runtime/runtime'", `from '${join(ROOT, 'src', 'runtime', 'index.ts')}'`)
      .replaceAll("from 'handoff-runtime'", `from '${join(ROOT, 'src', 'index.ts')}'`);
    (globalThis as unknown as { conceptsLog: unknown[][] }).conceptsLog = log;
    const shim =
      'const console = { log: (...args: unknown[]): void => { (globalThis as unknown as { conceptsLog: unknown[][] }).conceptsLog.push(args); } };\n';
    const file = join(moduleDir, 'concepts.ts');
    await writeFile(file, `${shim}${mapped}\nexport {};\n`);
    process.chdir(project);
    try {
      await import(file);
    } finally {
      process.chdir(previousCwd);
    }
  }, 90_000);

  afterAll(async () => {
    await rm(project, { recursive: true, force: true });
    await rm(moduleDir, { recursive: true, force: true });
  });

  it('solves the TODO(agent) line and commits one checkpoint', async () => {
    expect(log).toEqual([['solved', 1]]);
    expect(await readFile(join(project, 'src', 'answer.mjs'), 'utf8')).toContain('  return 42;\n');
  });
});
