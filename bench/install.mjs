#!/usr/bin/env node
// Installs the packages only the benchmarks need (bench/package.json: LangGraph.js's SQLite
// checkpointer and better-sqlite3, for durable-cycle.bench.mjs) into bench/node_modules, from
// bench/package-lock.json, when they are missing or older than the lockfile. `npm run bench` runs it
// before bench/run.mjs; the root `npm ci` (tests, demo, CI) never installs them.
// Their peers (@langchain/core, @langchain/langgraph-checkpoint) are not installed here
// (bench/.npmrc: legacy-peer-deps): Node resolves them upward from bench/node_modules to the root
// node_modules, so the bench runs against the one LangGraph the tests use.
//
//   node bench/install.mjs [--check]   (--check: exit 1 if an install is needed, install nothing)
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bench = fileURLToPath(new URL('.', import.meta.url));
const lock = `${bench}package-lock.json`;
// npm writes this file last in an install; it is the installed tree's own lockfile
const installed = `${bench}node_modules/.package-lock.json`;

const fresh = existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs;
if (fresh) process.exit(0);
if (process.argv.includes('--check')) {
  process.stderr.write('bench/node_modules is missing or older than bench/package-lock.json\n');
  process.exit(1);
}
process.stderr.write('installing the benchmark-only packages into bench/node_modules (npm ci)…\n');
// under `npm run`, npm_execpath is npm's own CLI script: run it with this node, no shell
const npmCli = process.env.npm_execpath;
const [cmd, pre] = npmCli?.endsWith('.js') ? [process.execPath, [npmCli]] : ['npm', []];
const r = spawnSync(cmd, [...pre, 'ci', '--no-audit', '--no-fund'], { cwd: bench, stdio: 'inherit' });
if (r.status !== 0) {
  process.stderr.write(`npm ci in bench/ failed (exit ${r.status ?? r.signal})\n`);
  process.exit(r.status ?? 1);
}
