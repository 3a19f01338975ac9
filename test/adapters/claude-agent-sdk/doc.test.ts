/**
 * docs/integrations/claude-agent-sdk.md runs as written: in a fresh folder, its shell blocks in
 * order (the install line names this package and the SDK; other lines run in `sh`), then its
 * TypeScript blocks as one module — the package's entry points mapped to their sources, the
 * SDK's `query` mapped to the shipped offline stand-in examples/claude-offline-query.ts (no binary, no key), `console.log`
 * collected. What the page says each block prints is what it prints, and the module type-checks
 * (strict).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docBlocks } from '../../helpers/doc-module.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOC = join(ROOT, 'docs', 'integrations', 'claude-agent-sdk.md');

const IMPORTS: readonly (readonly [string, string])[] = [
  ['@anthropic-ai/claude-agent-sdk', join(ROOT, 'examples', 'claude-offline-query.ts')],
  ['handoff-runtime/claude-agent-sdk', join(ROOT, 'src', 'adapters', 'claude-agent-sdk', 'index.ts')],
  ['handoff-runtime/chain', join(ROOT, 'src', 'chain', 'index.ts')],
  ['handoff-runtime/delegate', join(ROOT, 'src', 'delegate', 'index.ts')],
  ['handoff-runtime/runtime', join(ROOT, 'src', 'runtime', 'index.ts')],
  ['handoff-runtime', join(ROOT, 'src', 'index.ts')],
  ['zod', fileURLToPath(import.meta.resolve('zod'))],
];

/** The page's TypeScript as one module: imports mapped, console collected. */
function docModule(code: string, o: { mapZod: boolean } = { mapZod: true }): string {
  let mapped = code;
  for (const [name, path] of IMPORTS) {
    if (name === 'zod' && !o.mapZod) continue;
    mapped = mapped.replaceAll(`from '${name}'`, `from '${path}'`);
  }
  const shim =
    'const console = { log: (...args: unknown[]): void => { (globalThis as unknown as { claudeDocLog: unknown[][] }).claudeDocLog.push(args); } };\n';
  return `${shim}${mapped}\nexport {};\n`;
}

const doc = await readFile(DOC, 'utf8');
const all = docBlocks(doc);
const tsBlocks = all.filter((b) => b.lang === 'ts');

let project: string;
let moduleDir: string;
const previousCwd = process.cwd();
const log: unknown[][] = [];
const installs: string[] = [];

beforeAll(async () => {
  project = await realpath(await mkdtemp(join(tmpdir(), 'claude-doc-')));
  moduleDir = await mkdtemp(join(tmpdir(), 'claude-doc-module-'));
  (globalThis as unknown as { claudeDocLog: unknown[][] }).claudeDocLog = log;
  process.chdir(project);
  try {
    for (const b of all.filter((x) => x.lang === 'sh')) {
      const script: string[] = [];
      for (const line of b.code.split('\n').filter((l) => l.trim() !== '')) {
        if (line.startsWith('npm install ')) installs.push(line);
        else script.push(line);
      }
      if (script.length > 0) execFileSync('sh', ['-c', script.join('\n')], { cwd: project, stdio: 'ignore' });
    }
    const file = join(moduleDir, 'claude-doc.ts');
    await writeFile(file, docModule(tsBlocks.map((b) => b.code).join('\n')));
    await import(file);
  } finally {
    process.chdir(previousCwd);
  }
}, 120_000);

afterAll(async () => {
  await rm(project, { recursive: true, force: true });
  await rm(moduleDir, { recursive: true, force: true });
});

describe('docs/integrations/claude-agent-sdk.md', () => {
  it('has the blocks this test runs', () => {
    expect(tsBlocks).toHaveLength(5);
    expect(installs).toEqual(['npm install handoff-runtime @anthropic-ai/claude-agent-sdk']);
  });

  it('each block prints what the page says', () => {
    expect(log).toHaveLength(5);
    expect(log[0]).toEqual(['accepted', '18:00']);
    expect(log[1]).toEqual([
      'stage_failed',
      'route',
      1,
      'ClaudeSubagentError: the subagent ended with error_max_turns after 1 turn(s)',
    ]);
    expect(log[2]?.slice(0, 2)).toEqual(['accepted', 'solved']);
    expect(log[2]?.[2]).toMatch(/^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}#1$/);
    expect(log[3]).toEqual(['solved', 1]);
    expect(log[4]).toEqual(['function']);
  });

  it('the delegated and cycled files were edited, and the cycle committed a checkpoint', async () => {
    expect(await readFile(join(project, 'src', 'greeting.ts'), 'utf8')).toBe(
      "export const greeting = 'hello';\n",
    );
    expect(await readFile(join(project, 'src', 'farewell.ts'), 'utf8')).toBe(
      "export const farewell = 'hello';\n",
    );
    expect(execFileSync('git', ['log', '--format=%s', '-1'], { cwd: project, encoding: 'utf8' })).toMatch(
      /^checkpoint: cycle 1: src\/farewell\.ts:1 solved/,
    );
  });

  it('every comment that says what a line prints matches the log', () => {
    const said = [...doc.matchAll(/console\.log\([^;]*\);\s*\/\/ (.+)$/gm)].map((m) => m[1]);
    const printed = log.map((args) =>
      args.map((a) => String(a).replace(/^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}#1$/, '<run_id>#1')).join(' '),
    );
    expect(said).toEqual(printed);
  });

  it('the page’s TypeScript type-checks (strict)', async () => {
    // written beside this test (and removed), so that `zod` resolves from the repository's
    // node_modules exactly as the sources see it
    const typedDir = await mkdtemp(join(ROOT, 'test', 'adapters', 'claude-agent-sdk', '.doc-typecheck-'));
    try {
      const file = join(typedDir, 'typed.mts'); // an ES module whatever package.json is near
      const code = docModule(tsBlocks.map((b) => b.code).join('\n'), { mapZod: false });
      await writeFile(file, code.replaceAll(/from '(\/[^']+)\.ts'/g, "from '$1.js'"));
      const program = ts.createProgram([file], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        lib: ['lib.es2023.d.ts'],
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        skipLibCheck: true,
      });
      const diagnostics = ts
        .getPreEmitDiagnostics(program)
        .filter((d) => d.file?.fileName === file)
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(diagnostics).toEqual([]);
    } finally {
      await rm(typedDir, { recursive: true, force: true });
    }
  }, 240_000);
});
