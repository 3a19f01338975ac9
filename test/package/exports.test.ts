/**
 * The published entry points resolve through package.json `exports` (self-reference by package
 * name, as a consumer would import them), and the names each one exports are exactly the ones in
 * test/package/export-names.json: a new public name is a reviewed diff of that file, regenerated
 * with `node bench/export-names.mjs --snapshot > test/package/export-names.json` (then
 * `npx biome format --write` on it) after the build.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  name: string;
  exports: Record<string, unknown>;
  bin: Record<string, string>;
};

type Names = Record<string, { values: string[]; types: string[] }>;
const committed = JSON.parse(readFileSync(new URL('test/package/export-names.json', root), 'utf8')) as Names;

/** The root's budget (issue 12: "at most 80 names"), values and types together. */
const ROOT_BUDGET = 80;

let actual: Names;
beforeAll(async () => {
  const { stdout } = await run(process.execPath, ['bench/export-names.mjs', '--snapshot'], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  });
  actual = JSON.parse(stdout) as Names;
}, 120_000);

describe('package exports', () => {
  it('every subpath has a types entry first, and the snapshot lists exactly the subpaths', () => {
    const subpaths = Object.keys(pkg.exports).filter((s) => s !== './package.json');
    for (const sub of subpaths) expect(Object.keys(pkg.exports[sub] as object)[0], sub).toBe('types');
    expect(Object.keys(actual).sort()).toEqual(subpaths.sort());
    expect(Object.keys(committed).sort()).toEqual(subpaths.sort());
  });

  it.each(Object.keys(committed))('the names of %s are the committed ones', (sub) => {
    // a failure here is a change of the public surface: review it, then regenerate the snapshot
    expect(actual[sub], sub).toEqual(committed[sub]);
  });

  it(`the root stays within ${ROOT_BUDGET} names and carries no internals`, () => {
    const r = actual['.'];
    expect(r).toBeDefined();
    const all = [...(r?.values ?? []), ...(r?.types ?? [])];
    expect(all.length).toBeLessThanOrEqual(ROOT_BUDGET);
    for (const internal of [
      'nodeFsLayer',
      'errnoOf',
      'fastCanonicalJson',
      'ADVISORY_HELD_SQL',
      'createPgStore',
    ]) {
      expect(all).not.toContain(internal);
    }
    // the embedding API is there
    for (const name of [
      'validateDispatch',
      'validateHandoff',
      'protocolErrorHandoff',
      'rerunGuard',
      'recordBaseline',
      'checkBaseline',
      'advanceBaseline',
      'createFsStore',
      'createMemoryStore',
      'Store',
      'PersistController',
      'runProject',
      'runCycle',
      'createChain',
      'runGate',
      'HandoffError',
      'isHandoffError',
      'canonicalJson',
    ]) {
      expect(all, name).toContain(name);
    }
  });

  it('no index file re-exports with export * (every public name is listed)', () => {
    const barrels = [
      new URL('src/index.ts', root),
      new URL('machines/index.ts', root),
      ...readdirSync(new URL('src/', root), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => new URL(`src/${d.name}/index.ts`, root)),
    ];
    const offenders: string[] = [];
    for (const url of barrels) {
      let text: string;
      try {
        text = readFileSync(url, 'utf8');
      } catch {
        continue;
      }
      const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
      if (/export\s+(type\s+)?\*/.test(code)) offenders.push(url.pathname);
    }
    expect(offenders).toEqual([]);
  });

  it("tsconfig's paths map exactly the entry points of exports, each to the source of its build", () => {
    const text = readFileSync(new URL('tsconfig.json', root), 'utf8');
    const parsed = ts.parseConfigFileTextToJson('tsconfig.json', text);
    const paths = (parsed.config as { compilerOptions: { paths: Record<string, string[]> } }).compilerOptions
      .paths;
    const expected: Record<string, string[]> = {};
    for (const [sub, target] of Object.entries(pkg.exports)) {
      if (typeof target === 'string') continue;
      const built = (target as { import: string }).import;
      expected[sub === '.' ? pkg.name : `${pkg.name}/${sub.slice(2)}`] = [
        built.replace(/^\.\/dist\//, './').replace(/\.js$/, '.ts'),
      ];
    }
    expect(paths).toEqual(expected);
  });

  it('examples import the package by its entry points, as a user would (one documented exception)', () => {
    const dir = fileURLToPath(new URL('examples/', root));
    const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => /\.(ts|mjs)$/.test(f));
    expect(files.length).toBeGreaterThan(3);
    const sourceImports = files.flatMap((f) =>
      [...readFileSync(join(dir, f), 'utf8').matchAll(/from '((?:\.\.\/)+(?:src|machines)\/[^']*)'/g)].map(
        (m) => `${f}: ${m[1]}`,
      ),
    );
    // only the file payment rail borrows internals (the durable JSON-lines helper; see its comment)
    expect(sourceImports.filter((i) => !i.startsWith('payroll/payment-rail.ts: '))).toEqual([]);
  });

  it('the machines entry exposes every protocol machine', () => {
    for (const name of ['cycleMachine', 'chainMachine', 'gateMachine']) {
      expect(actual['./machines']?.values).toContain(name);
    }
  });

  it('the bin points at the built CLI', () => {
    expect(pkg.bin.handoff).toBe('./dist/src/cli/bin.js');
  });
});
