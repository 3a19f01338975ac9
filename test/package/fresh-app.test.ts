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
import { cp, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec, installPacked, linkModule, OFFLINE, pkg, ROOT } from '../helpers/packed.js';

const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** Each adapter: its example folder and the framework packages an app installs for it. */
const ADAPTERS: Readonly<Record<string, readonly string[]>> = {
  langgraph: ['@langchain/langgraph', '@langchain/core'],
  'claude-agent-sdk': ['@anthropic-ai/claude-agent-sdk'],
  'openai-agents': ['@openai/agents'],
};

/** The examples run offline: no registry, no model keys. */
const EXAMPLE_ENV: NodeJS.ProcessEnv = { ...OFFLINE, OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' };

let dir: string;
let app: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-fresh-app-'));
  app = join(dir, 'app');
  await installPacked(dir, app, 'app');
  for (const frameworks of Object.values(ADAPTERS)) for (const f of frameworks) await linkModule(app, f);
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
      const r = await exec(process.execPath, [join(app, 'out', adapter, 'run.js'), work], app, EXAMPLE_ENV);
      expect(r.code, r.out).toBe(0);
      expect(r.stdout.length, r.out).toBeGreaterThan(0);
    }, 120_000);
  }
});
