/**
 * docs/tutorial-embed.md runs as written: in a fresh folder, its shell blocks in order (the
 * install line names this package; `npx handoff …` lines run the CLI in-process, with `<run-id>`
 * the run the page journaled; other lines run in `sh`), its TypeScript blocks as one module at the
 * place of the first one (`handoff-runtime` and `handoff-runtime/delegate` mapped to the sources,
 * `console.log` collected). The module also type-checks, and the page's table of checks is
 * exactly DELEGATE_CHECKS.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as cli } from '../../src/cli/main.js';
import { DELEGATE_CHECKS } from '../../src/delegate/index.js';
import { docBlocks, strictDiagnostics } from '../helpers/doc-module.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOC = join(ROOT, 'docs', 'tutorial-embed.md');

/** The page's TypeScript as one module: package imports mapped to the sources, console collected. */
function tutorialModule(code: string): string {
  const mapped = code
    .replaceAll("from 'handoff-runtime/delegate'", `from '${join(ROOT, 'src', 'delegate', 'index.ts')}'`)
    .replaceAll("from 'handoff-runtime'", `from '${join(ROOT, 'src', 'index.ts')}'`);
  const shim =
    'const console = { log: (...args: unknown[]): void => { (globalThis as unknown as { tutorialLog: unknown[][] }).tutorialLog.push(args); } };\n';
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
const cliRuns: { args: string[]; code: number; out: string; err: string }[] = [];

beforeAll(async () => {
  project = await realpath(await mkdtemp(join(tmpdir(), 'tutorial-embed-')));
  moduleDir = await mkdtemp(join(tmpdir(), 'tutorial-embed-module-'));
  (globalThis as unknown as { tutorialLog: unknown[][] }).tutorialLog = log;
  process.chdir(project);
  let ranModule = false;
  let runId = '';
  for (const b of all) {
    if (b.lang === 'ts') {
      if (ranModule) continue;
      ranModule = true;
      const file = join(moduleDir, 'tutorial.ts');
      await writeFile(file, tutorialModule(tsCode));
      await import(file);
      const cite = log
        .flat()
        .find((v) => typeof v === 'string' && /^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}#[0-9]+$/.test(v));
      runId = typeof cite === 'string' ? (cite.split('#')[0] ?? '') : '';
      continue;
    }
    if (b.lang !== 'sh') continue;
    const script: string[] = [];
    for (const line of b.code.split('\n').filter((l) => l.trim() !== '')) {
      const install = /^npm install (\S+)$/.exec(line);
      if (install !== null) {
        const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { name: string };
        expect(install[1]).toBe(pkg.name); // the registry is not reachable from the suite
        continue;
      }
      if (line.startsWith('npx handoff ')) {
        const args = line.slice('npx handoff '.length).replaceAll('<run-id>', runId).split(/\s+/);
        let out = '';
        let err = '';
        const code = await cli(args, {
          out: (t) => {
            out += t;
          },
          err: (t) => {
            err += t;
          },
          readStdin: async () => Buffer.alloc(0),
          env: {},
          cwd: project,
          isTTY: false,
        });
        cliRuns.push({ args, code, out, err });
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

describe('docs/tutorial-embed.md', () => {
  it('the program runs and says what the page says', () => {
    const said = log.map((args) =>
      args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '),
    );
    expect(said).toEqual([
      JSON.stringify([join(project, 'src', 'greeting.ts')]),
      'accepted solved []',
      'refused [{"check":"outside_owned","detail":"the worker wrote outside its owned files: README.md"}]',
      'the worker wrote outside its owned files: README.md; owned files restored to their pre-dispatch bytes; restored outside the owned files: README.md',
      'true',
      expect.stringMatching(/^accepted [0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}#1$/),
      'src/farewell.ts:1 handoff',
      expect.stringMatching(
        /^false an evidence_delta entry saying how this was resolved: the worker wrote outside its owned files: README\.md; /,
      ),
      'accepted',
      'operational-error false',
    ]);
  });

  it('the files end as the page says', async () => {
    expect(await readFile(join(project, 'src', 'greeting.ts'), 'utf8')).toBe(
      "export const greeting = 'hello';\n",
    );
    expect(await readFile(join(project, 'src', 'farewell.ts'), 'utf8')).toBe(
      "export const farewell = 'hello';\n",
    );
  });

  it('the terminal commands work on the journaled run', () => {
    expect(cliRuns.map((r) => [r.args[0], r.code, r.err])).toEqual([
      ['inspect', 0, ''],
      ['store', 0, ''],
      ['audit', 0, ''],
    ]);
    expect(cliRuns[0]?.out).toMatch(
      /first dispatch \(.*#manifest\): src\/farewell\.ts:1 scope file mode autoprove/,
    );
    expect(cliRuns[0]?.out).toContain('path over the delegation machine (finished)');
    expect(cliRuns[2]?.out).toMatch(/: ok — 4 recorded transitions in 1 journal writes, every one allowed/);
    expect(JSON.parse(cliRuns[1]?.out ?? '{}')).toMatchObject({
      schema: 'run-store-load/v1',
      events: [{ seq: 1, kind: 'handoff' }],
    });
  });

  it('the table of checks lists exactly DELEGATE_CHECKS, in order', () => {
    const section = doc.slice(doc.indexOf('### What is checked'), doc.indexOf('## 4.'));
    const rows = [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual([...DELEGATE_CHECKS]);
  });

  it('the page’s TypeScript type-checks (strict)', async () => {
    const file = join(moduleDir, 'typed.mts'); // an ES module whatever package.json is near
    await writeFile(file, tutorialModule(tsCode).replaceAll(/from '(\/[^']+)\.ts'/g, "from '$1.js'"));
    const diagnostics = strictDiagnostics(file, ROOT);
    expect(diagnostics).toEqual([]);
  }, 120_000);
});
