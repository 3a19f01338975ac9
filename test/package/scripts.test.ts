/**
 * The package's lifecycle scripts and what its build ships (needs the build; `npm test` builds
 * first): installing the package runs none of our scripts (the build is on `prepack`, not
 * `prepare`); `npm start` and `npm test` build before they need `dist/`, so `npm ci && npm start`
 * and `npm ci && npm test` work on a fresh clone; the tarball holds no source maps and no
 * `sourceMappingURL` comment pointing at files it does not ship (docs/architecture.md).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

/** The files `npm pack` would publish (dry run, no scripts, no network). */
function packedFiles(): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      'npm',
      ['pack', '--dry-run', '--ignore-scripts', '--json'],
      {
        cwd: ROOT,
        env: { ...process.env, npm_config_offline: 'true', npm_config_registry: 'http://127.0.0.1:9/' },
        maxBuffer: 32 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        if (err !== null) return reject(new Error(`npm pack --dry-run failed: ${stderr}`));
        const [entry] = JSON.parse(stdout) as { files: { path: string }[] }[];
        resolve((entry?.files ?? []).map((f) => f.path));
      },
    );
  });
}

describe('lifecycle scripts', () => {
  it('no install-time hook runs our build; prepack builds a clean dist', () => {
    for (const hook of ['prepare', 'preinstall', 'install', 'postinstall'])
      expect(pkg.scripts[hook], hook).toBeUndefined();
    expect(pkg.scripts.prepack).toMatch(/rmSync\('dist'.*&& npm run build$/);
    expect(pkg.scripts.build).toBe('tsc -p tsconfig.build.json');
  });

  it('start, test, schemas and bench build before they use dist/', () => {
    for (const s of ['start', 'test', 'schemas', 'bench'])
      expect(pkg.scripts[s]?.startsWith('npm run build && '), s).toBe(true);
    expect(pkg.scripts.start).toContain('node dist/src/cli/bin.js demo');
  });
});

describe('no source maps in the package', () => {
  it('tsconfig.build.json turns them off', async () => {
    const text = await readFile(join(ROOT, 'tsconfig.build.json'), 'utf8');
    expect(text).toMatch(/"sourceMap":\s*false/);
    expect(text).not.toMatch(/"declarationMap":\s*true/);
  });

  it('the tarball has no .map file and no shipped .js names one', async () => {
    // outputs of the current sources only: a dev tree may hold stale outputs of removed modules,
    // which `prepack` clears before a real pack
    const current = (f: string) =>
      existsSync(join(ROOT, f.replace(/^dist\//, '').replace(/\.js(\.map)?$/, '.ts')));
    const files = (await packedFiles()).filter((f) => !f.startsWith('dist/') || current(f));
    expect(files).toContain('dist/src/cli/bin.js');
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    const js = files.filter((f) => f.endsWith('.js') && f.startsWith('dist/'));
    expect(js.length).toBeGreaterThan(100);
    const mapped: string[] = [];
    for (const f of js)
      if ((await readFile(join(ROOT, f), 'utf8')).includes('sourceMappingURL')) mapped.push(f);
    expect(mapped).toEqual([]);
  }, 60_000);
});
