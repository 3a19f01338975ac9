/**
 * docs/integrations/openai-agents.md runs as written: in a fresh folder, its shell blocks in order
 * (the install line names this package and its optional peer; other lines run in `sh`), its
 * TypeScript blocks as one module at the place of the first one (package imports resolved to the
 * sources, `console.log` collected), on the SDK's real Runner with the page's scripted models. The
 * module also type-checks (strict), and the page's check table names the adapter's own checks.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docBlocks, strictDiagnostics } from '../../helpers/doc-module.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOC = join(ROOT, 'docs', 'integrations', 'openai-agents.md');

/** The page's TypeScript as one module: package imports mapped to the sources, console collected. */
function pageModule(code: string, ext: '.ts' | '.js'): string {
  const src = (p: string) => `from '${join(ROOT, 'src', p)}${ext}'`;
  const mapped = code
    .replaceAll("from 'handoff-runtime/openai-agents'", src('adapters/openai-agents/index'))
    .replaceAll("from 'handoff-runtime'", src('index'));
  const shim =
    'const console = { log: (...args: unknown[]): void => { (globalThis as unknown as { docsLog: unknown[][] }).docsLog.push(args); } };\n';
  return `${shim}${mapped}\nexport {};\n`;
}

const doc = await readFile(DOC, 'utf8');
const all = docBlocks(doc);
const tsCode = all
  .filter((b) => b.lang === 'ts')
  .map((b) => b.code)
  .join('\n');

let project: string;
let moduleDir: string;
const previousCwd = process.cwd();
const log: unknown[][] = [];

beforeAll(async () => {
  project = await realpath(await mkdtemp(join(tmpdir(), 'openai-agents-docs-')));
  // inside the repository (ignored by git), so '@openai/agents' and 'zod' resolve as in an app
  await mkdir(join(ROOT, 'test-results'), { recursive: true });
  moduleDir = await mkdtemp(join(ROOT, 'test-results', 'openai-agents-docs-'));
  (globalThis as unknown as { docsLog: unknown[][] }).docsLog = log;
  process.chdir(project);
  let ranModule = false;
  for (const b of all) {
    if (b.lang === 'ts') {
      if (ranModule) continue;
      ranModule = true;
      const file = join(moduleDir, 'page.ts');
      await writeFile(file, pageModule(tsCode, '.ts'));
      await import(file);
      continue;
    }
    if (b.lang !== 'sh') continue;
    const script: string[] = [];
    for (const line of b.code.split('\n').filter((l) => l.trim() !== '')) {
      const install = /^npm install (\S+) (\S+)$/.exec(line);
      if (install !== null) {
        const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
          name: string;
          peerDependencies: Record<string, string>;
        };
        expect(install[1]).toBe(pkg.name); // the registry is not reachable from the suite
        expect(pkg.peerDependencies[install[2] ?? '']).toBeDefined();
        continue;
      }
      script.push(line);
    }
    if (script.length > 0) execFileSync('sh', ['-c', script.join('\n')], { cwd: project, stdio: 'ignore' });
  }
}, 120_000);

afterAll(async () => {
  process.chdir(previousCwd);
  await rm(project, { recursive: true, force: true });
  await rm(moduleDir, { recursive: true, force: true });
});

describe('docs/integrations/openai-agents.md', () => {
  it('the program runs and says what the page says', () => {
    const said = log.map((args) => args.map((a) => String(a)).join(' '));
    expect(said).toEqual([
      expect.stringMatching(/^accepted solved [0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}#1$/),
      'refused arguments protocol-error',
      expect.stringMatching(/^accepted 1 [0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}#1$/),
    ]);
  });

  it('the files end as the page says', async () => {
    expect(await readFile(join(project, 'src', 'greeting.ts'), 'utf8')).toBe(
      "export const greeting = 'hi';\n",
    );
    expect(await readFile(join(project, 'README.md'), 'utf8')).toBe('A demo project.\n');
  });

  it('the table of pre-dispatch checks names exactly the adapter’s own checks', () => {
    const section = doc.slice(doc.indexOf('## What is checked'), doc.indexOf('## Limits'));
    const rows = [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual(['arguments', 'rerun_guard']);
  });

  it('the page’s TypeScript type-checks (strict)', async () => {
    const file = join(moduleDir, 'typed.mts');
    await writeFile(file, pageModule(tsCode, '.js'));
    const diagnostics = strictDiagnostics(file, ROOT);
    expect(diagnostics).toEqual([]);
  }, 120_000);
});
