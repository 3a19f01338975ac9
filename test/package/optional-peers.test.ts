/**
 * `pg` and `fast-check` are optional peer dependencies: `pg` is loaded only by
 * `handoff-runtime/pg`, `fast-check` only by `handoff-runtime/conformance`. Each check imports the
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

describe('optional peers', () => {
  it('declares pg and fast-check as optional peers (and as dev dependencies for the tests), not as dependencies', () => {
    const p = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as Record<
      string,
      Record<string, unknown> | undefined
    >;
    for (const name of PEERS) {
      expect(p.dependencies?.[name], name).toBeUndefined();
      expect(p.peerDependencies?.[name], name).toBeDefined();
      expect(p.peerDependenciesMeta?.[name], name).toEqual({ optional: true });
      expect(p.devDependencies?.[name], name).toBeDefined();
    }
  });

  it('the root and every subpath but /pg and /conformance load neither pg nor fast-check', async () => {
    const others = subpaths.filter((s) => s !== './pg' && s !== './conformance');
    expect(others).toContain('.');
    // one process importing them all: if none is loaded together, none is loaded by any one of them
    const g = await graphOf(others.map(specifierOf));
    for (const name of PEERS) expect(g.packages[name], name).toBeUndefined();
  }, 60_000);

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
    for (const name of PEERS) expect(g.packages[name], name).toBeUndefined();
  }, 60_000);
});
