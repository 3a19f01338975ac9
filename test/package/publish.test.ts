/**
 * What `npm pack` publishes, checked as a consumer meets it (needs the build; `npm test` builds
 * first). No network: the tarball is made with `--ignore-scripts`, publint and
 * @arethetypeswrong/cli (devDependencies) read it locally, and the consumer project gets the
 * package's dependencies as links into this repository's node_modules — as `npm install` would
 * lay them out, without a registry.
 *
 * - publint (`--strict`: warnings fail too) and attw `--profile esm-only` pass on the tarball.
 * - The published .d.ts files type-check in a consumer with `skipLibCheck: false` that has only
 *   typescript, @types/node and the package's dependencies — no `pg`, no `@types/pg`, no
 *   `fast-check` — importing every entry point except `/pg` and `/conformance`. With `fast-check`
 *   added, `/conformance` type-checks; with `pg` and `@types/pg` added, `/pg` does (what
 *   docs/architecture.md § Public surface tells a consumer to install).
 * - Without the peers, every other entry point loads; `/pg` and `/conformance` fail naming the
 *   missing package; the CLI's `--pg`, `--ledger-pg` and `conformance worker` fail with a usage
 *   error (exit 2) naming the package to install, and `conformance --help` still answers.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec, installPacked, linkModule, OFFLINE, pkg, ROOT } from '../helpers/packed.js';

const BIN = join(ROOT, 'node_modules', '.bin');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const subpaths = Object.keys(pkg.exports).filter((s) => s !== './package.json');
const specifierOf = (sub: string) => (sub === '.' ? pkg.name : `${pkg.name}/${sub.slice(2)}`);
const PEER_ENTRIES: Record<string, string> = { './pg': 'pg', './conformance': 'fast-check' };
/** The entry points whose missing peer is named in one line (src/errors/missing-peer.ts). */
const GUARDED = ['./pg', './conformance', './langgraph', './openai-agents'];
/**
 * The framework adapters and the peer each one loads when imported (null: the Claude Agent SDK is
 * imported on first use only). Their declarations import their framework's types, so they are
 * type-checked with the frameworks installed: test/package/fresh-app.test.ts compiles every
 * adapter example in a fresh app.
 */
const ADAPTER_ENTRIES: Record<string, { loads: string | null }> = {
  './langgraph': { loads: '@langchain/langgraph' },
  './claude-agent-sdk': { loads: null },
  './openai-agents': { loads: '@openai/agents' },
};

let dir: string;
let tarball: string;
let consumer: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-publish-'));
  // the consumer: the package unpacked where npm would put it, its dependencies linked, no peers
  consumer = join(dir, 'consumer');
  tarball = await installPacked(dir, consumer, 'consumer');
}, 240_000);

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('passes publint --strict', async () => {
    const r = await exec(join(BIN, 'publint'), ['run', tarball, '--strict'], dir, OFFLINE);
    expect(r.out).not.toMatch(/Errors:|Warnings:|Suggestions:/);
    expect(r.code, r.out).toBe(0);
  }, 120_000);

  it('passes @arethetypeswrong/cli --profile esm-only', async () => {
    const r = await exec(
      join(BIN, 'attw'),
      [tarball, '--profile', 'esm-only', '--no-definitely-typed', '--format', 'json'],
      dir,
      OFFLINE,
    );
    expect(r.code, r.out).toBe(0);
  }, 240_000);

  it('the consumer has no pg, @types/pg, fast-check or agent framework', async () => {
    const installed = await readdir(join(consumer, 'node_modules'));
    expect(installed).not.toContain('pg');
    expect(installed).not.toContain('fast-check');
    for (const scope of ['@langchain', '@openai', '@anthropic-ai']) expect(installed).not.toContain(scope);
    expect(await readdir(join(consumer, 'node_modules', '@types'))).toEqual(['node']);
  });

  it('every entry point but /pg, /conformance, /langgraph and /openai-agents loads without the peers; those name the missing package', async () => {
    const script = `
      const out = {};
      for (const s of ${JSON.stringify(subpaths.map(specifierOf))}) {
        try { await import(s); out[s] = 'ok'; }
        catch (e) { out[s] = String(e.code) + ': ' + String(e.message).split('\\n')[0]; }
      }
      process.stdout.write(JSON.stringify(out));`;
    const r = await exec(process.execPath, ['--input-type=module', '-e', script], consumer);
    expect(r.code, r.out).toBe(0);
    const loaded = JSON.parse(r.stdout) as Record<string, string>;
    for (const sub of subpaths) {
      const peer = PEER_ENTRIES[sub] ?? ADAPTER_ENTRIES[sub]?.loads ?? undefined;
      if (peer === undefined) expect(loaded[specifierOf(sub)], sub).toBe('ok');
      else if (GUARDED.includes(sub))
        // one line naming the package to install, not node's resolution error
        expect(loaded[specifierOf(sub)], sub).toBe(
          `usage: ${specifierOf(sub)} needs the optional peer "${peer}": npm install ${peer}`,
        );
      else expect(loaded[specifierOf(sub)], sub).toContain(`Cannot find package '${peer}'`);
    }
  }, 60_000);

  it('the CLI names the missing peer when a verb needs it (exit 2) and answers --help without it', async () => {
    const cli = join(consumer, 'node_modules', pkg.name, 'dist', 'src', 'cli', 'bin.js');
    const store = await exec(
      process.execPath,
      [cli, 'store', 'list', '--pg', 'postgresql://127.0.0.1:9/x'],
      consumer,
    );
    expect(store.code, store.out).toBe(2);
    expect(store.stderr).toContain("needs the optional peer dependency 'pg'");
    const gate = await exec(
      process.execPath,
      [cli, 'gate', 'status', '--ledger-pg', 'postgresql://127.0.0.1:9/x', '--problem', 'p'],
      consumer,
    );
    expect(gate.code, gate.out).toBe(2);
    expect(gate.stderr).toContain("needs the optional peer dependency 'pg'");
    const help = await exec(process.execPath, [cli, 'conformance', '--help'], consumer);
    expect(help.code, help.out).toBe(0);
    expect(help.stdout).toContain('--runs N');
    const conf = await exec(
      process.execPath,
      [cli, 'conformance', 'worker', '--', process.execPath, '-e', '0'],
      consumer,
    );
    expect(conf.code, conf.out).toBe(2);
    expect(conf.stderr).toContain("needs the optional peer dependency 'fast-check'");
    // the file-system backends need no peer
    const fsList = await exec(
      process.execPath,
      [cli, 'store', 'list', '--root', join(dir, 'store')],
      consumer,
    );
    expect(fsList.code, fsList.out).toBe(0);
  }, 120_000);

  it('the .d.ts files type-check with skipLibCheck false: without peers all but /pg and /conformance; with them, those too', async () => {
    const plain = subpaths.filter((s) => PEER_ENTRIES[s] === undefined && ADAPTER_ENTRIES[s] === undefined);
    expect(plain.length).toBe(subpaths.length - 5);
    const importsOf = (subs: readonly string[]) =>
      `${subs.map((s, i) => `import * as m${i} from '${specifierOf(s)}';`).join('\n')}\nexport const all = [${subs.map((_, i) => `m${i}`).join(', ')}];\n`;
    const tsconfig = (files: readonly string[]) =>
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
        },
        files,
      });
    await writeFile(join(consumer, 'plain.ts'), importsOf(plain));
    await writeFile(join(consumer, 'tsconfig.json'), tsconfig(['plain.ts']));
    const without = await exec(process.execPath, [TSC, '-p', 'tsconfig.json'], consumer);
    expect(without.code, without.out).toBe(0);

    // what a consumer of the peer entry points installs: fast-check; pg and @types/pg
    await linkModule(consumer, 'fast-check');
    await linkModule(consumer, 'pg');
    await linkModule(consumer, '@types/pg');
    await writeFile(join(consumer, 'peers.ts'), importsOf(Object.keys(PEER_ENTRIES)));
    await writeFile(join(consumer, 'tsconfig.json'), tsconfig(['plain.ts', 'peers.ts']));
    const withPeers = await exec(process.execPath, [TSC, '-p', 'tsconfig.json'], consumer);
    expect(withPeers.code, withPeers.out).toBe(0);
  }, 240_000);
});
