/**
 * `pg`, `fast-check` and the agent frameworks are optional peer dependencies: `pg` is loaded only
 * by `handoff-runtime/pg`, `fast-check` only by `handoff-runtime/conformance`, LangGraph only by
 * `handoff-runtime/langgraph`, the OpenAI Agents SDK only by `handoff-runtime/openai-agents`, and
 * the Claude Agent SDK by no entry point at import time (`handoff-runtime/claude-agent-sdk` imports
 * it on first use when no `query` is injected), and `pdfjs-dist` by none either (the PDF claim
 * extractor imports it on first use). Each check imports the
 * built entry points in a fresh node process and lists every module it loaded
 * (bench/module-graph.mjs: an ESM load hook plus require.cache), so a static import of either
 * package anywhere below another entry point — or below a CLI command module — fails here.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  name: string;
  exports: Record<string, unknown>;
};

interface Graph {
  specifier: string;
  modules: number;
  packages: Record<string, number>;
  builtins: string[];
}

/** Imports the comma-joined specifiers in one fresh process; what it loaded. */
async function graphOf(specifiers: readonly string[]): Promise<Graph> {
  const { stdout } = await run(process.execPath, ['bench/module-graph.mjs', specifiers.join(','), '--json'], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Graph;
}

const specifierOf = (sub: string) => (sub === '.' ? pkg.name : `${pkg.name}/${sub.slice(2)}`);
const subpaths = Object.keys(pkg.exports).filter((s) => s !== './package.json');
const PEERS = ['pg', 'fast-check'];
/** Framework packages, and the one entry point allowed to load each (null: none at import time). */
const FRAMEWORKS: Readonly<Record<string, string | null>> = {
  '@langchain/langgraph': './langgraph',
  '@langchain/core': './langgraph',
  '@openai/agents': './openai-agents',
  '@openai/agents-core': './openai-agents',
  openai: './openai-agents',
  '@anthropic-ai/claude-agent-sdk': null,
  // PDF claim sources: imported on first use by the synthesis loop's PDF extractor, never at import time
  'pdfjs-dist': null,
};
const ADAPTERS = ['./langgraph', './claude-agent-sdk', './openai-agents'];

describe('optional peers', () => {
  it('declares pg and fast-check as optional peers (and as dev dependencies for the tests), not as dependencies', () => {
    const p = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as Record<
      string,
      Record<string, unknown> | undefined
    >;
    for (const name of [
      ...PEERS,
      '@langchain/langgraph',
      '@openai/agents',
      '@anthropic-ai/claude-agent-sdk',
      'pdfjs-dist',
    ]) {
      expect(p.dependencies?.[name], name).toBeUndefined();
      expect(p.peerDependencies?.[name], name).toBeDefined();
      expect(p.peerDependenciesMeta?.[name], name).toEqual({ optional: true });
      expect(p.devDependencies?.[name], name).toBeDefined();
    }
  });

  it('the root and every subpath but /pg, /conformance and the adapters load no optional peer', async () => {
    const others = subpaths.filter((s) => s !== './pg' && s !== './conformance' && !ADAPTERS.includes(s));
    expect(others).toContain('.');
    // one process importing them all: if none is loaded together, none is loaded by any one of them
    const g = await graphOf(others.map(specifierOf));
    for (const name of [...PEERS, ...Object.keys(FRAMEWORKS)]) expect(g.packages[name], name).toBeUndefined();
  }, 60_000);

  for (const adapter of ADAPTERS) {
    it(`handoff-runtime/${adapter.slice(2)} loads its own framework only (no pg, no fast-check)`, async () => {
      const g = await graphOf([specifierOf(adapter)]);
      for (const name of PEERS) expect(g.packages[name], name).toBeUndefined();
      for (const [name, owner] of Object.entries(FRAMEWORKS)) {
        if (owner === adapter) expect(g.packages[name], name).toBeGreaterThan(0);
        else expect(g.packages[name], name).toBeUndefined();
      }
    }, 60_000);
  }

  it('handoff-runtime/conformance loads fast-check but not pg', async () => {
    const g = await graphOf([specifierOf('./conformance')]);
    expect(g.packages['fast-check']).toBeGreaterThan(0);
    expect(g.packages.pg).toBeUndefined();
  }, 60_000);

  it('handoff-runtime/pg loads pg (the probe sees it) but not fast-check', async () => {
    const g = await graphOf([specifierOf('./pg')]);
    expect(g.packages.pg).toBeGreaterThan(0);
    expect(g.packages['fast-check']).toBeUndefined();
  }, 60_000);

  it('no CLI command module loads pg or fast-check until a verb needs it', async () => {
    const cliDir = new URL('dist/src/cli/', root);
    const modules = readdirSync(cliDir)
      .filter((f) => f.endsWith('.js') && f !== 'bin.js')
      .map((f) => pathToFileURL(fileURLToPath(new URL(f, cliDir))).href);
    expect(modules.length).toBeGreaterThan(10);
    const g = await graphOf(modules);
    for (const name of [...PEERS, ...Object.keys(FRAMEWORKS)]) expect(g.packages[name], name).toBeUndefined();
  }, 60_000);
});
