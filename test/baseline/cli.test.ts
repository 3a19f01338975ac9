/**
 * `handoff baseline record|check|advance` through the BUILT binary (run `npm run build` first):
 * the exact CLI contract, exit codes 0/2/3/4, hostile file names that must round-trip as data,
 * and byte-exact baselines over stdin.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BaselineCheck, FileBaseline } from '../../src/baseline/index.js';
import { CLI_BIN, runCli, stdoutJson } from '../helpers/cli.js';
import { dirPerTest, mkfifo } from './fixtures.js';

let dir = '';
dirPerTest((d) => {
  dir = d;
}, 'handoff-baseline-cli-');

const HOSTILE = [
  'plain.txt',
  'with space.txt',
  '$HOME',
  '$(touch pwned-dollar)',
  '`touch pwned-tick`',
  `it's "quoted"`,
  '-rf',
  '--only',
  '--',
  'new\nline',
  'tab\tname',
  'ünïcødé 名前 🎉',
  '*',
  ';rm -rf x;',
];

function seed(names: readonly string[]): void {
  names.forEach((name, i) => {
    writeFileSync(join(dir, name), `content ${i}\n`);
  });
}

const cli = (args: string[], input?: string | Buffer) =>
  runCli(['baseline', ...args], input === undefined ? { cwd: dir } : { cwd: dir, input });

// Each CLI process takes ~0.2 s when idle and several seconds on a loaded 2-core machine; tests
// that spawn many get a budget far above vitest's default so load cannot make them flake.
const MANY_SPAWNS_MS = 180_000;

describe('baseline record', () => {
  it(
    'records hostile names after -- exactly and executes nothing',
    async () => {
      seed(HOSTILE);
      const r = await cli(['record', '--', ...HOSTILE]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const b = stdoutJson<FileBaseline>(r);
      expect(b.schema).toBe('file-baseline/v1');
      expect(b.files.map((f) => f.path)).toEqual(HOSTILE.map((name) => join(dir, name)));
      expect(b.files.map((f) => [f.exists, f.size, f.realpath])).toEqual(
        HOSTILE.map((name, i) => [true, `content ${i}\n`.length, join(dir, name)]),
      );
      expect(readdirSync(dir).sort()).toEqual([...HOSTILE].sort());
      expect(existsSync(join(dir, 'pwned-dollar'))).toBe(false);
    },
    MANY_SPAWNS_MS,
  );
  it(
    'exit 2 for no paths, an option-looking path without --, duplicates; exit 4 for a FIFO',
    async () => {
      seed(['a']);
      mkfifo(join(dir, 'fifo'));
      expect((await cli(['record'])).code).toBe(2);
      expect((await cli(['record', '--'])).code).toBe(2);
      expect((await cli(['record', '-rf'])).code).toBe(2);
      const dup = await cli(['record', '--', 'a', join(dir, 'a')]);
      expect(dup.code).toBe(2);
      expect(JSON.parse(dup.stderr)).toMatchObject({ error: 'duplicate_path' });
      const fifo = await cli(['record', '--', 'fifo']);
      expect(fifo.code).toBe(4);
      expect(fifo.stdout).toBe('');
      const refusal = JSON.parse(fifo.stderr);
      expect(refusal).toMatchObject({ error: 'io_error', details: { path: join(dir, 'fifo') } });
      expect(refusal.details).not.toHaveProperty('exit_code');
    },
    MANY_SPAWNS_MS,
  );
});

describe('baseline check and advance over stdin', () => {
  it(
    'round-trips the baseline bytes from stdin: match, then drift on the hostile file, exit 3',
    async () => {
      seed(HOSTILE);
      const rec = await cli(['record', '--', ...HOSTILE]);
      const match = await cli(['check', '--baseline', '-'], rec.stdout);
      expect(match.code).toBe(0);
      const c = stdoutJson<BaselineCheck>(match);
      expect(c).toMatchObject({ schema: 'file-baseline-check/v1', result: 'match', unchecked: [] });
      expect(c.entries.map((e) => e.path)).toEqual(HOSTILE.map((name) => join(dir, name)));

      writeFileSync(join(dir, 'new\nline'), 'drift');
      unlinkSync(join(dir, '$(touch pwned-dollar)'));
      const drift = await cli(['check', '--baseline', '-'], rec.stdout);
      expect(drift.code).toBe(3);
      const d = stdoutJson<BaselineCheck>(drift);
      expect(d.result).toBe('drift');
      expect(d.entries.filter((e) => e.status !== 'unchanged')).toEqual([
        { path: join(dir, '$(touch pwned-dollar)'), status: 'deleted' },
        { path: join(dir, 'new\nline'), status: 'modified' },
      ]);
    },
    MANY_SPAWNS_MS,
  );
  it(
    'accepts the same baseline compact, \\u-escaped, or as raw UTF-8 bytes from a file with a hostile name',
    async () => {
      seed(['ünï cødé']);
      const b = stdoutJson<FileBaseline>(await cli(['record', '--', 'ünï cødé']));
      const escaped = JSON.stringify(b).replace(
        /[^\x20-\x7e]/g,
        (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
      );
      expect(escaped).not.toContain('ü');
      expect((await cli(['check', '--baseline', '-'], escaped)).code).toBe(0);
      expect((await cli(['check', '--baseline', '-'], Buffer.from(JSON.stringify(b), 'utf8'))).code).toBe(0);
      writeFileSync(join(dir, '$ baseline `file`.json'), JSON.stringify(b));
      const fromFile = await cli(['check', '--baseline', '$ baseline `file`.json']);
      expect(fromFile.code).toBe(0);
    },
    MANY_SPAWNS_MS,
  );
  it(
    '--only selects (exact, relative, dash-leading via --only=) and lists the rest as unchecked',
    async () => {
      seed(['a', '-rf', 'new\nline']);
      const rec = await cli(['record', '--', 'a', '-rf', 'new\nline']);
      writeFileSync(join(dir, 'a'), 'drift');
      const r = await cli(
        ['check', '--baseline', '-', '--only=-rf', '--only', join(dir, 'new\nline')],
        rec.stdout,
      );
      expect(r.code).toBe(0);
      expect(stdoutJson<BaselineCheck>(r)).toEqual({
        schema: 'file-baseline-check/v1',
        result: 'match',
        entries: [
          { path: join(dir, '-rf'), status: 'unchanged' },
          { path: join(dir, 'new\nline'), status: 'unchanged' },
        ],
        unchecked: [join(dir, 'a')],
      });
      const a = await cli(['check', '--baseline', '-', '--only', 'a'], rec.stdout);
      expect(a.code).toBe(3);
    },
    MANY_SPAWNS_MS,
  );
  it(
    'exit 2: unknown --only path, positional paths, malformed / empty / non-UTF-8 baseline, missing --baseline',
    async () => {
      seed(['a']);
      const rec = await cli(['record', '--', 'a']);
      const unknown = await cli(['check', '--baseline', '-', '--only', 'zzz'], rec.stdout);
      expect(unknown.code).toBe(2);
      expect(unknown.stdout).toBe('');
      expect(JSON.parse(unknown.stderr)).toMatchObject({
        error: 'unknown_path',
        details: { unknown: ['zzz'] },
      });
      expect((await cli(['check', '--baseline', '-', '--', 'a'], rec.stdout)).code).toBe(2);
      expect((await cli(['check', '--baseline', '-'], '{"schema":"file-baseline/v1","files":[]}')).code).toBe(
        2,
      );
      expect((await cli(['check', '--baseline', '-'], 'not json')).code).toBe(2);
      expect((await cli(['check', '--baseline', '-'], '')).code).toBe(2);
      const bad = Buffer.concat([
        Buffer.from(rec.stdout.slice(0, 40)),
        Buffer.from([0xff]),
        Buffer.from(rec.stdout.slice(40)),
      ]);
      expect((await cli(['check', '--baseline', '-'], bad)).code).toBe(2);
      expect((await cli(['check'], rec.stdout)).code).toBe(2);
      expect((await cli(['check', '--baseline', 'no-such-file.json'])).code).toBe(2);
      expect((await cli(['frobnicate'])).code).toBe(2);
      expect((await cli([])).code).toBe(2);
    },
    MANY_SPAWNS_MS,
  );
  it(
    'exit 4 with the full per-entry report when errors come together with drift',
    async () => {
      seed(['a', 'b']);
      const rec = await cli(['record', '--', 'a', 'b']);
      unlinkSync(join(dir, 'a'));
      mkdirSync(join(dir, 'a'));
      writeFileSync(join(dir, 'b'), 'drift');
      const r = await cli(['check', '--baseline', '-'], rec.stdout);
      expect(r.code).toBe(4);
      expect(stdoutJson<BaselineCheck>(r).entries).toEqual([
        { path: join(dir, 'a'), status: 'error', detail: `${join(dir, 'a')}: not a regular file` },
        { path: join(dir, 'b'), status: 'modified' },
      ]);
    },
    MANY_SPAWNS_MS,
  );
  it(
    'advance re-records only the named hostile entry, carries external drift forward, refuses unknown paths',
    async () => {
      const names = ['-rf', '$(touch x)', 'other'];
      seed(names);
      const rec = await cli(['record', '--', ...names]);
      writeFileSync(join(dir, '-rf'), 'my edit');
      writeFileSync(join(dir, 'other'), 'external');
      const adv = await cli(['advance', '--baseline', '-', '--', '-rf'], rec.stdout);
      expect(adv.code).toBe(0);
      const next = stdoutJson<FileBaseline>(adv);
      const before = stdoutJson<FileBaseline>(rec);
      expect(next.files[0]?.size).toBe(7);
      expect(next.files.slice(1)).toEqual(before.files.slice(1));
      const c = await cli(['check', '--baseline', '-'], adv.stdout);
      expect(c.code).toBe(3);
      expect(stdoutJson<BaselineCheck>(c).entries.map((e) => e.status)).toEqual([
        'unchanged',
        'unchanged',
        'modified',
      ]);
      expect((await cli(['advance', '--baseline', '-', '--', 'new-file'], rec.stdout)).code).toBe(2);
      expect((await cli(['advance', '--baseline', '-', '--'], rec.stdout)).code).toBe(2);
    },
    MANY_SPAWNS_MS,
  );
  it(
    'help exits 0 and names every verb',
    async () => {
      const r = await cli(['--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('handoff baseline advance --baseline <FILE|-> -- <path>...');
      expect((await cli(['check', '--help'])).code).toBe(0);
      seed(['--help']);
      const rec = await cli(['record', '--', '--help']);
      expect(rec.code).toBe(0);
      expect(stdoutJson<FileBaseline>(rec).files[0]?.path).toBe(join(dir, '--help'));
    },
    MANY_SPAWNS_MS,
  );
  it(
    'help only for a real --help/-h option: a dash-leading option value is a usage error, never exit 0',
    async () => {
      seed(['a']);
      const rec = await cli(['record', '--', 'a']);
      for (const args of [
        ['check', '--baseline', '-', '--only', '-h'],
        ['check', '--baseline', '--help'],
        ['advance', '--baseline', '-h', '--', 'a'],
      ]) {
        const r = await cli(args, rec.stdout);
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stdout).toBe('');
        expect(JSON.parse(r.stderr)).toMatchObject({ error: 'usage' });
      }
      const help = await cli(['check', '-h']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('--only');
    },
    MANY_SPAWNS_MS,
  );
  it(
    'refuses --baseline given twice (exit 2) instead of silently using the last one',
    async () => {
      seed(['a']);
      writeFileSync(join(dir, 'b.json'), (await cli(['record', '--', 'a'])).stdout);
      const r = await cli(['check', '--baseline', 'b.json', '--baseline', 'b.json']);
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stderr)).toMatchObject({
        error: 'usage',
        details: { baseline: ['b.json', 'b.json'] },
      });
    },
    MANY_SPAWNS_MS,
  );
  it(
    'refuses a path argv could not carry intact (bytes that are not UTF-8 become U+FFFD), never records it as absent',
    async () => {
      const raw = Buffer.concat([Buffer.from('x'), Buffer.from([0xff])]);
      writeFileSync(join(dir, 'x'), 'placeholder');
      // xargs -0 passes the raw bytes as one argument (Node's spawn can only pass UTF-8 strings)
      const viaXargs = spawnSync('xargs', ['-0', process.execPath, CLI_BIN, 'baseline', 'record', '--'], {
        cwd: dir,
        input: raw,
        encoding: 'utf8',
        timeout: MANY_SPAWNS_MS,
      });
      expect(viaXargs.stdout).toBe('');
      expect(JSON.parse(viaXargs.stderr)).toMatchObject({
        error: 'usage',
        details: { paths: ['x\uFFFD'] },
      });
      expect(viaXargs.status).not.toBe(0);
      const literal = await cli(['record', '--', 'a', 'x\uFFFD']);
      expect(literal.code).toBe(2);
      expect(literal.stdout).toBe('');
      const b = stdoutJson<FileBaseline>(await cli(['record', '--', 'x']));
      expect((await cli(['check', '--baseline', '-', '--only', 'x\uFFFD'], JSON.stringify(b))).code).toBe(2);
      expect((await cli(['advance', '--baseline', '-', '--', 'x\uFFFD'], JSON.stringify(b))).code).toBe(2);
    },
    MANY_SPAWNS_MS,
  );
});
