/**
 * The packed package as a consumer meets it, shared by the tests that install it
 * (test/package/publish.test.ts, test/package/fresh-app.test.ts): commands run without a shell and
 * without a registry, the tarball made with `npm pack --ignore-scripts` and unpacked into a
 * project's node_modules where npm would put it, and the project's other packages linked from
 * this repository's node_modules — as `npm install` would lay them out, offline.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A finished command. */
export interface Run {
  code: number;
  out: string;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command (argument array, no shell); never rejects.
 *
 * @example
 * ```ts
 * const r = await exec('tar', ['-tzf', tarball], dir);
 * ```
 */
export function exec(
  file: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd, env: { ...process.env, ...env }, maxBuffer: 32 * 1024 * 1024, timeout: 240_000 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, stdout, stderr, out: `${stdout}${stderr}` });
      },
    );
  });
}

/** No registry: any attempt to reach one fails fast instead of passing by luck. */
export const OFFLINE: NodeJS.ProcessEnv = {
  npm_config_registry: 'http://127.0.0.1:9/',
  npm_config_offline: 'true',
  HTTP_PROXY: 'http://127.0.0.1:9',
  HTTPS_PROXY: 'http://127.0.0.1:9',
  NO_COLOR: '1',
};

/** This repository's package.json (the fields the consumer tests read). */
export const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
};

/**
 * Links `name` from this repository's node_modules into `project`'s.
 *
 * @example
 * ```ts
 * await linkModule(consumer, 'fast-check');
 * ```
 */
export async function linkModule(project: string, name: string): Promise<void> {
  const to = join(project, 'node_modules', name);
  await mkdir(dirname(to), { recursive: true });
  await symlink(join(ROOT, 'node_modules', name), to, 'dir');
}

/**
 * Packs this repository into `dir` and installs the tarball into the new project `project`: the
 * package unpacked into its node_modules, its dependencies and `@types/node` linked, a module
 * `package.json` named `name`. Resolves to the tarball's path.
 *
 * @example
 * ```ts
 * const tarball = await installPacked(dir, join(dir, 'consumer'), 'consumer');
 * ```
 */
export async function installPacked(dir: string, project: string, name: string): Promise<string> {
  const packed = await exec(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', dir],
    ROOT,
    OFFLINE,
  );
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.out}`);
  const [entry] = JSON.parse(packed.stdout) as { filename: string }[];
  const tarball = join(dir, entry?.filename ?? '');
  await mkdir(join(project, 'node_modules'), { recursive: true });
  const untar = await exec('tar', ['-xzf', tarball, '-C', join(project, 'node_modules')], dir);
  if (untar.code !== 0) throw new Error(`tar failed:\n${untar.out}`);
  await rename(join(project, 'node_modules', 'package'), join(project, 'node_modules', pkg.name));
  for (const dep of Object.keys(pkg.dependencies)) await linkModule(project, dep);
  await linkModule(project, '@types/node');
  await writeFile(join(project, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  return tarball;
}
