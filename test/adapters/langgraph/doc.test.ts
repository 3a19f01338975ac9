/**
 * docs/integrations/langgraph.md runs as written: its TypeScript blocks as one module in a fresh
 * folder (`handoff-runtime`, `handoff-runtime/chain` and `handoff-runtime/langgraph` mapped to the
 * sources, `@langchain/langgraph` and `zod` to the installed packages, `console.log` collected),
 * and what it logs is what the page's comments say. The module also type-checks (strict), and the
 * page's table of verdicts is exactly DELEGATION_VERDICTS.
 */
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELEGATION_VERDICTS } from '../../../src/adapters/langgraph/index.js';
import { strictDiagnostics } from '../../helpers/doc-module.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOC = join(ROOT, 'docs', 'integrations', 'langgraph.md');
const require = createRequire(join(ROOT, 'package.json'));

/** An installed package's ESM entry, as an absolute path. */
function entryOf(pkg: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  const json = require(manifest) as { exports: { '.': { import: string | { default: string } } } };
  const imp = json.exports['.'].import;
  return join(dirname(manifest), typeof imp === 'string' ? imp : imp.default);
}

function tsBlocks(markdown: string): string[] {
  const out: string[] = [];
  const fence = /^```(\w*)\n([\s\S]*?)^```$/gm;
  for (let m = fence.exec(markdown); m !== null; m = fence.exec(markdown))
    if (m[1] === 'ts') out.push(m[2] ?? '');
  return out;
}

/** The page's TypeScript as one module: imports mapped, console collected. */
function pageModule(code: string): string {
  const mapped = code
    .replaceAll(
      "from 'handoff-runtime/langgraph'",
      `from '${join(ROOT, 'src', 'adapters', 'langgraph', 'index.ts')}'`,
    )
    .replaceAll("from 'handoff-runtime/chain'", `from '${join(ROOT, 'src', 'chain', 'index.ts')}'`)
    .replaceAll("from 'handoff-runtime'", `from '${join(ROOT, 'src', 'index.ts')}'`)
    .replaceAll("from '@langchain/langgraph'", `from '${entryOf('@langchain/langgraph')}'`)
    .replaceAll("from 'zod'", `from '${entryOf('zod')}'`);
  const shim =
    'const console = { log: (...args: unknown[]): void => { (globalThis as unknown as { langgraphDocLog: unknown[][] }).langgraphDocLog.push(args); } };\n';
  return `${shim}${mapped}\nexport {};\n`;
}

const doc = await readFile(DOC, 'utf8');
const code = tsBlocks(doc).join('\n');
const log: unknown[][] = [];
let project: string;
let moduleDir: string;
const previousCwd = process.cwd();

beforeAll(async () => {
  project = await realpath(await mkdtemp(join(tmpdir(), 'langgraph-doc-')));
  moduleDir = await mkdtemp(join(tmpdir(), 'langgraph-doc-module-'));
  (globalThis as unknown as { langgraphDocLog: unknown[][] }).langgraphDocLog = log;
  process.chdir(project);
  try {
    const file = join(moduleDir, 'page.ts');
    await writeFile(file, pageModule(code));
    await import(file);
  } finally {
    process.chdir(previousCwd);
  }
}, 120_000);

afterAll(async () => {
  await rm(project, { recursive: true, force: true });
  await rm(moduleDir, { recursive: true, force: true });
});

describe('docs/integrations/langgraph.md', () => {
  it('the program runs and logs what the page says', () => {
    const said = log.map((args) =>
      args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '),
    );
    const cite = '[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}';
    expect(said).toEqual([
      expect.stringMatching(new RegExp(`^solved solved ${cite}#1$`)),
      'refused ["task_echo"]',
      'stuck relaunch_forbidden blocker',
      expect.stringMatching(
        new RegExp(`^accepted \\["notes","publish"\\] \\["(${cite})#manifest","\\1#1","\\1#2"\\]$`),
      ),
      'stopped undeclared_fact 0',
    ]);
  });

  it('the files end as the page says', async () => {
    expect(await readFile(join(project, 'src', 'greeting.ts'), 'utf8')).toBe(
      "export const greeting = 'hello';\n",
    );
  });

  it('the table of verdicts lists exactly DELEGATION_VERDICTS, in order', () => {
    const section = doc.slice(
      doc.indexOf('### Verdict → edge'),
      doc.indexOf('A worker that answers for a task'),
    );
    const rows = [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual([...DELEGATION_VERDICTS]);
  });

  it('the page’s TypeScript type-checks (strict)', async () => {
    const file = join(moduleDir, 'typed.mts');
    // zod's types are its .d.cts (what the sources resolve): name that file's .cjs twin, or the
    // page would meet a second copy of zod's declarations
    const typed = pageModule(code)
      .replaceAll(/from '(\/[^']+)\.ts'/g, "from '$1.js'")
      .replaceAll(`from '${entryOf('zod')}'`, `from '${entryOf('zod').replace(/\.js$/, '.cjs')}'`);
    await writeFile(file, typed);
    const diagnostics = strictDiagnostics(file, ROOT);
    expect(diagnostics).toEqual([]);
  }, 120_000);
});
