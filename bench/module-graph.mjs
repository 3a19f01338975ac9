#!/usr/bin/env node
// Counts the modules `import(SPECIFIER)` loads, in a fresh process per specifier: every URL the
// ESM loader loads (a load hook on the hooks thread reports it: files and node: builtins), every
// CommonJS file required on the way (require.cache, e.g. the inside of `pg`) and every builtin
// those files require. Reproducible; run it against the build (`npx tsc -p tsconfig.build.json`).
//
//   node bench/module-graph.mjs [SPECIFIER…] [--json] [--list]
//
// A SPECIFIER may join several with commas (`handoff-runtime,handoff-runtime/store`): they are
// imported one after the other in the same process and counted together.
// Default specifier: handoff-runtime (resolved by self-reference through package.json "exports").
// Prints, per specifier: modules (files + builtins), files of this package, files under
// node_modules by package, builtins. --json prints one JSON object per specifier per line.
// The measuring process itself has loaded node:module and node:worker_threads before the import;
// those two are not seen (the library imports neither).
import Module, { createRequire, isBuiltin, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
import { resolveSelf } from './self-resolve.mjs';

const args = process.argv.slice(2);
const json = args.includes('--json');
const list = args.includes('--list');
const specifiers = args.filter((a) => !a.startsWith('--'));
const self = new URL(import.meta.url).pathname;

/** The package a node_modules path belongs to (`pg`, `@scope/name`), or null. */
function packageOf(path) {
  const i = path.lastIndexOf('/node_modules/');
  if (i < 0) return null;
  const parts = path.slice(i + '/node_modules/'.length).split('/');
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

/** Measures one import in this process (the child). */
async function measure(specifier) {
  const urls = new Set();
  const builtins = new Set();
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (m) => urls.add(m.url));
  port1.unref();
  register('./module-graph-hooks.mjs', import.meta.url, { data: { port: port2 }, transferList: [port2] });
  const load = Module._load;
  Module._load = function (request, ...rest) {
    if (isBuiltin(request)) builtins.add(request.replace(/^node:/, ''));
    return load.call(this, request, ...rest);
  };
  for (const one of specifier.split(',')) await import(resolveSelf(one));
  await new Promise((r) => setTimeout(r, 100)); // the hook thread's last messages
  Module._load = load;
  const files = new Set();
  for (const url of urls) {
    if (url.startsWith('node:')) builtins.add(url.slice(5));
    else if (url.startsWith('file:')) files.add(decodeURIComponent(new URL(url).pathname));
  }
  for (const path of Object.keys(createRequire(import.meta.url).cache)) files.add(path);
  files.delete(self);
  const packages = {};
  let own = 0;
  for (const f of files) {
    const p = packageOf(f);
    if (p === null) own++;
    else packages[p] = (packages[p] ?? 0) + 1;
  }
  return {
    specifier,
    modules: files.size + builtins.size,
    files: files.size,
    ownFiles: own,
    packages: Object.fromEntries(Object.entries(packages).sort(([a], [b]) => a.localeCompare(b))),
    builtins: [...builtins].sort(),
    ...(list ? { list: [...files].sort() } : {}),
  };
}

if (process.env.HANDOFF_MODULE_GRAPH_CHILD === '1') {
  process.stdout.write(`${JSON.stringify(await measure(specifiers[0]))}\n`);
} else {
  const { spawnSync } = await import('node:child_process');
  for (const specifier of specifiers.length > 0 ? specifiers : ['handoff-runtime']) {
    const r = spawnSync(process.execPath, [self, specifier, ...(list ? ['--list'] : [])], {
      env: { ...process.env, HANDOFF_MODULE_GRAPH_CHILD: '1' },
      encoding: 'utf8',
    });
    if (r.status !== 0) {
      process.stderr.write(r.stderr);
      process.exit(r.status ?? 1);
    }
    if (json) {
      process.stdout.write(r.stdout);
      continue;
    }
    const rep = JSON.parse(r.stdout);
    const deps = Object.entries(rep.packages)
      .map(([p, n]) => `${p} ${n}`)
      .join(', ');
    process.stdout.write(
      `${rep.specifier}: ${rep.modules} modules = ${rep.ownFiles} own files + ${rep.files - rep.ownFiles} dependency files (${deps || 'none'}) + ${rep.builtins.length} builtins (${rep.builtins.join(' ')})\n`,
    );
    if (list) for (const f of rep.list) process.stdout.write(`  ${f}\n`);
  }
}
