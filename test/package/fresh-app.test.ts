/**
 * The embedder's fresh app, as issue 16's "done when" describes it: a new project that installs the
 * packed tarball and the framework packages (LangGraph.js, the Claude Agent SDK, the OpenAI Agents
 * SDK), copies each adapter example's TypeScript sources (the files the tarball ships under
 * `examples/<adapter>/`) into its own `src/`, compiles them with `tsc --strict` and
 * `skipLibCheck: false`, and runs each compiled example offline (scripted models, no network).
 *
 * No registry: the tarball is made with `--ignore-scripts`, and the app's dependencies and
 * framework packages are links into this repository's node_modules, as `npm install` would lay
 * them out. Needs the build (`npm test` builds first).
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** Each adapter: its example folder and the framework packages an app installs for it. */
const ADAPTERS: Readonly<Record<string, readonly string[]>> = {
  langgraph: ['@langchain/langgraph', '@langchain/core'],
  'claude-agent-sdk': ['@anthropic-ai/claude-agent-sdk'],
  'openai-agents': ['@openai/agents'],
};

interface Run {
  code: number;
  stdout: string;
  out: string;
}

/** Runs a command (argument array, no shell); never rejects. */
function exec(file: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd, env: { ...process.env, ...env }, maxBuffer: 32 * 1024 * 1024, timeout: 240_000 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, stdout, out: `${stdout}${stderr}` });
      },
    );
  });
}

/** No registry: any attempt to reach one fails fast instead of passing by luck. */
const OFFLINE: NodeJS.ProcessEnv = {
  npm_config_registry: 'http://127.0.0.1:9/',
  npm_config_offline: 'true',
  HTTP_PROXY: 'http://127.0.0.1:9',
  HTTPS_PROXY: 'http://127.0.0.1:9',
  OPENAI_API_KEY: '',
  ANTHROPIC_API_KEY: '',
  NO_COLOR: '1',
};

const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  dependencies: Record<string, string>;
};

let dir: string;
let app: string;

/** Links `name` from this repository's node_modules into the app's. */
async function linkModule(name: string): Promise<void> {
  const to = join(app, 'node_modules', name);
  await mkdir(dirname(to), { recursive: true });
  await symlink(join(ROOT, 'node_modules', name), to, 'dir');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-fresh-app-'));
  const packed = await exec(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', dir],
    ROOT,
    OFFLINE,
  );
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.out}`);
  const [entry] = JSON.parse(packed.stdout) as { filename: string }[];
  app = join(dir, 'app');
  await mkdir(join(app, 'node_modules'), { recursive: true });
  const untar = await exec(
    'tar',
    ['-xzf', join(dir, entry?.filename ?? ''), '-C', join(app, 'node_modules')],
    dir,
  );
  if (untar.code !== 0) throw new Error(`tar failed:\n${untar.out}`);
  await rename(join(app, 'node_modules', 'package'), join(app, 'node_modules', pkg.name));
  for (const dep of Object.keys(pkg.dependencies)) await linkModule(dep);
  await linkModule('@types/node');
  for (const frameworks of Object.values(ADAPTERS)) for (const f of frameworks) await linkModule(f);
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  // each adapter example's sources, as shipped in the tarball, become the app's own code
  for (const adapter of Object.keys(ADAPTERS)) {
    const from = join(app, 'node_modules', pkg.name, 'examples', adapter);
    await cp(from, join(app, 'src', adapter), {
      recursive: true,
      filter: (p) => !p.endsWith('.md'),
    });
  }
  await writeFile(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: false,
        outDir: 'out',
        rootDir: 'src',
        types: ['node'],
      },
      include: ['src'],
    }),
  );
}, 240_000);

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('a fresh app with the packed tarball and the framework packages', () => {
  it('ships every adapter example in the tarball', async () => {
    for (const adapter of Object.keys(ADAPTERS)) {
      const files = await readdir(join(app, 'src', adapter));
      expect(files, adapter).toContain('run.ts');
    }
  });

  it('compiles the examples with tsc --strict and skipLibCheck false', async () => {
    const r = await exec(process.execPath, [TSC, '-p', 'tsconfig.json'], app);
    expect(r.code, r.out).toBe(0);
  }, 240_000);

  for (const adapter of Object.keys(ADAPTERS)) {
    it(`runs the ${adapter} example offline`, async () => {
      const work = join(dir, `work-${adapter}`);
      const r = await exec(process.execPath, [join(app, 'out', adapter, 'run.js'), work], app, OFFLINE);
      expect(r.code, r.out).toBe(0);
      expect(r.stdout.length, r.out).toBeGreaterThan(0);
    }, 120_000);
  }
});
