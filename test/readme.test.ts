/**
 * README.md says what is true: the two quick-start commands work on a fresh clone (their scripts
 * build first; no install hook runs our build), the install section names this package and the
 * optional peers package.json declares, and its TypeScript example — the delegation API from the
 * root — runs as written in a fresh git project (`handoff-runtime` mapped to the sources,
 * `console.log` collected), journals the attempt where `handoff inspect` finds it, and
 * type-checks (strict).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as cli } from '../src/cli/main.js';
import { docBlocks } from './helpers/doc-module.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  scripts: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

const all = docBlocks(readme);
const example = all.find((b) => b.lang === 'ts' && b.code.includes('createDispatch'))?.code ?? '';

/** The example as a module: the package mapped to its source, console collected. */
function exampleModule(code: string): string {
  const mapped = code.replaceAll("from 'handoff-runtime'", `from '${join(ROOT, 'src', 'index.ts')}'`);
  const shim =
    'const console = { log: (...args: unknown[]): void => { (globalThis as unknown as { readmeLog: unknown[][] }).readmeLog.push(args); } };\n';
  return `${shim}${mapped}\nexport {};\n`;
}

let project: string;
let moduleDir: string;
const previousCwd = process.cwd();
const log: unknown[][] = [];

beforeAll(async () => {
  project = await realpath(await mkdtemp(join(tmpdir(), 'readme-example-')));
  moduleDir = await mkdtemp(join(tmpdir(), 'readme-example-module-'));
  await mkdir(join(project, 'src'));
  await writeFile(join(project, 'src', 'greeting.ts'), "export const greeting = 'TODO(agent)';\n");
  const git = (...args: string[]) => execFileSync('git', args, { cwd: project, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
  (globalThis as unknown as { readmeLog: unknown[][] }).readmeLog = log;
  process.chdir(project);
  try {
    const file = join(moduleDir, 'readme.ts');
    await writeFile(file, exampleModule(example));
    await import(file);
  } finally {
    process.chdir(previousCwd);
  }
}, 120_000);

afterAll(async () => {
  await rm(project, { recursive: true, force: true });
  await rm(moduleDir, { recursive: true, force: true });
});

describe('README.md', () => {
  it('the quick start is the two commands, and both scripts build before they need dist/', () => {
    const quick = all.find((b) => b.lang === 'sh' && b.code.includes('npm ci'))?.code ?? '';
    expect(
      quick
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.split('#')[0]?.trim()),
    ).toEqual(['npm ci && npm start', 'npm ci && npm test']);
    expect(pkg.scripts.start?.startsWith('npm run build && ')).toBe(true);
    expect(pkg.scripts.test?.startsWith('npm run build && ')).toBe(true);
    expect(pkg.scripts.prepare).toBeUndefined();
  });

  it('the install section names this package and exactly the optional peers', () => {
    expect(all.some((b) => b.lang === 'sh' && b.code.trim() === `npm install ${pkg.name}`)).toBe(true);
    const section = readme.slice(readme.indexOf('## Install in your project'), readme.indexOf('## CLI map'));
    // each bullet opens with a peer's name, and may name a companion peer: "- `a` (with `b`)"
    const peers = [...section.matchAll(/^- `([@a-z0-9/._-]+)`(?: \(with `([@a-z0-9/._-]+)`\))?/gm)].flatMap(
      (m) => (m[2] === undefined ? [m[1]] : [m[1], m[2]]),
    );
    expect([...peers].sort()).toEqual(Object.keys(pkg.peerDependencies).sort());
    for (const p of peers) expect(pkg.peerDependenciesMeta[p as string]?.optional).toBe(true);
  });

  it('the example runs as written: accepted, solved, journaled; the file changed', async () => {
    expect(example).toMatch(/from 'handoff-runtime';/);
    expect(log).toHaveLength(1);
    const [outcome, status, cite] = log[0] as [string, string, string];
    expect([outcome, status]).toEqual(['accepted', 'solved']);
    expect(cite).toMatch(/^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}#1$/);
    expect(await readFile(join(project, 'src', 'greeting.ts'), 'utf8')).toBe(
      "export const greeting = 'hi';\n",
    );

    let out = '';
    const code = await cli(['inspect', cite.split('#')[0] as string], {
      out: (t) => {
        out += t;
      },
      err: () => {},
      readStdin: async () => Buffer.alloc(0),
      env: {},
      cwd: project,
      isTTY: false,
    });
    expect(code).toBe(0);
    expect(out).toContain('src/greeting.ts:1 scope file mode autoprove');
  });

  it('the example type-checks (strict)', () => {
    const file = join(moduleDir, 'typed.mts');
    return writeFile(file, exampleModule(example).replaceAll(/from '(\/[^']+)\.ts'/g, "from '$1.js'")).then(
      () => {
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
      },
    );
  }, 120_000);
});
