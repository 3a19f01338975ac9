/**
 * `handoff envelope build|validate|prefix` through the built binary (run `npm run build` first).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopePrefix, validateHandoffEnvelope } from '../../src/envelope/index.js';
import { runCli, stdoutJson } from '../helpers/cli.js';

const EX = fileURLToPath(new URL('../../examples/envelope/', import.meta.url));
const ENV = { CLAUDECODE: '' };
const NOW = ['--now', '2026-11-30T00:00:00Z'];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'envelope-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const build = (args: string[], opts: { input?: string; cwd?: string; env?: Record<string, string> } = {}) =>
  runCli(['envelope', 'build', ...args], {
    env: { ...ENV, ...opts.env },
    cwd: opts.cwd ?? dir,
    ...(opts.input === undefined ? {} : { input: opts.input }),
  });

describe('envelope build', () => {
  it('builds from a wrapped resolver file with every option', async () => {
    const r = await build([
      '--input',
      join(EX, 'resolver-issue-intake.json'),
      '--settings',
      join(EX, 'devloops.yaml'),
      '--gate-state',
      join(EX, 'gate-state.json'),
      '--overrides',
      '{"preferLocal":true,"mergeAuthorized":true}',
      '--sanctioned',
      join(EX, 'sanctioned-commands.json'),
      '--repo',
      'Other/Repo',
      '--repo-root',
      '/work/repo',
      ...NOW,
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const env = stdoutJson<
      Record<string, unknown> & { target: { repo: string }; gateState: Record<string, unknown> }
    >(r);
    expect(validateHandoffEnvelope(env).ok).toBe(true);
    expect(Object.keys(env).at(-1)).toBe('gateState');
    expect(env.target.repo).toBe('other/repo');
    expect(env.cwd).toBe('/work/repo/tmp/worktrees/dev-loops/issue-42');
    expect(env.maxCopilotRounds).toBe(2);
    expect(env.stopRules).toEqual(['merge']);
    expect(env.overrides).toEqual({ preferLocal: true, mergeAuthorized: false });
    expect(env.requireDraftFirst).toBe(true);
    expect(env.gateState).toEqual({
      derivedAt: '2026-11-30T00:00:00.000Z',
      currentHeadSha: '3f9c2a1e0b7d4c6a8e5f1b2d3c4a5e6f7a8b9c0d',
      ciStatus: 'pending',
      unresolvedThreadCount: 2,
      copilotRoundCount: 1,
    });
    expect(env.sanctionedCommands).toEqual(
      JSON.parse(readFileSync(join(EX, 'sanctioned-commands.json'), 'utf8')),
    );
  });

  it('injects the default sanctioned-command map when none is given (a mandatory default); --no-sanctioned leaves it out', async () => {
    const input = ['--input', join(EX, 'resolver-issue-intake.json'), ...NOW];
    const dflt = await build(input);
    expect(dflt.code, dflt.stderr).toBe(0);
    const example = readFileSync(join(EX, 'sanctioned-commands.json'), 'utf8');
    // delivered verbatim: the same keys in the same order as the map
    expect(JSON.stringify(stdoutJson<{ sanctionedCommands: unknown }>(dflt).sanctionedCommands)).toBe(
      JSON.stringify(JSON.parse(example)),
    );
    const none = await build([...input, '--no-sanctioned']);
    expect(none.code, none.stderr).toBe(0);
    expect('sanctionedCommands' in stdoutJson<object>(none)).toBe(false);
    expect(
      (await build([...input, '--no-sanctioned', '--sanctioned', join(EX, 'sanctioned-commands.json')])).code,
    ).toBe(2);
  });

  it('delivers a --sanctioned map verbatim, its key order kept at every level (the help text promises it)', async () => {
    const map = {
      reads: { 'z-last': 'z.mjs', 'a-first': 'a.mjs' },
      lifecycle: {},
      edits: { 'm-mid': 'm.mjs' },
      orchestratorOwned: ['gh pr merge'],
      forbidden: ['python -c', 'node -e'],
    };
    const file = join(dir, 'unsorted-map.json');
    await writeFile(file, JSON.stringify(map));
    const r = await build(['--input', join(EX, 'resolver-issue-intake.json'), '--sanctioned', file, ...NOW]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.stringify(stdoutJson<{ sanctionedCommands: unknown }>(r).sanctionedCommands)).toBe(
      JSON.stringify(map),
    );
  });

  it('reads the resolver output from stdin and discovers .devloops in --repo-root', async () => {
    const repo = await mkdtemp(join(dir, 'repo-'));
    await writeFile(
      join(repo, '.devloops.yml'),
      'refinement:\n  maxCopilotRounds: 1\nautonomy:\n  stopAt: [draft-pr]\n',
    );
    const r = await build(
      ['--input', '-', '--repo-root', repo, '--gate-state', '{"currentSubGate":"watch"}', ...NOW],
      {
        input: readFileSync(join(EX, 'resolver-copilot-bare.json'), 'utf8'),
      },
    );
    expect(r.code).toBe(0);
    const env = stdoutJson<Record<string, unknown>>(r);
    expect(env.currentGate).toBe('watch');
    expect(env.maxCopilotRounds).toBe(1);
    expect(env.stopRules).toEqual(['draft-pr']);
    expect(env.executionMode).toBe('durable_auto');
    expect(env.cwd).toBe(`${repo}/tmp/worktrees/dev-loops/pr-77`);
  });

  it('builds the terminal reconcile envelope; CLAUDECODE=1 relaxes async start', async () => {
    const r = await build(
      ['--input', join(EX, 'resolver-reconcile-wrapped.json'), '--no-extension-defaults', ...NOW],
      {
        env: { CLAUDECODE: '1' },
      },
    );
    expect(r.code).toBe(0);
    const env = stdoutJson<Record<string, unknown>>(r);
    expect([env.routeKind, env.selectedStrategy, env.worktreeRequired, env.stopRules]).toEqual([
      'needs_reconcile',
      null,
      false,
      ['reconcile'],
    ]);
    expect([env.asyncStartEffective, env.asyncStartRelaxedBy]).toEqual(['allowed', 'claude-harness']);
    const bare = await build([
      '--input',
      join(EX, 'resolver-reconcile-bare.json'),
      '--settings',
      join(EX, 'devloops.yaml'),
      ...NOW,
    ]);
    expect(stdoutJson<Record<string, unknown>>(bare).stopRules).toEqual(['reconcile', 'merge']);
  });

  it('refuses fail-closed input with exit 3 and a named cause on stderr', async () => {
    const bad = join(dir, 'bad-reconcile.json');
    await writeFile(
      bad,
      JSON.stringify({
        routeKind: 'needs_reconcile',
        selectedGate: 'fail_closed_reconcile',
        selectedStrategy: 'x',
      }),
    );
    const r = await build(['--input', bad, ...NOW]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ error: 'envelope_reconcile_tuple' });

    const noRepo = join(dir, 'no-repo.json');
    await writeFile(
      noRepo,
      JSON.stringify({ selectedStrategy: 'wait_watch', executionMode: 'bounded_handoff', nextAction: 'x' }),
    );
    expect(JSON.parse((await build(['--input', noRepo])).stderr)).toMatchObject({
      error: 'envelope_invalid_repo',
    });

    const notJson = join(dir, 'not.json');
    await writeFile(notJson, '{nope');
    const nj = await build(['--input', notJson]);
    expect(nj.code).toBe(3);
    expect(JSON.parse(nj.stderr).error).toBe('envelope_invalid_input');

    const badSettings = join(dir, 'bad.yaml');
    await writeFile(badSettings, 'autonomy:\n  humanMergeOnly: sometimes\n');
    const bs = await build(['--input', join(EX, 'resolver-issue-intake.json'), '--settings', badSettings]);
    expect(bs.code).toBe(3);
    expect(JSON.parse(bs.stderr).error).toBe('settings_invalid');
  });

  it('usage errors exit 2', async () => {
    expect((await build([])).code).toBe(2);
    expect((await build(['--input', join(EX, 'resolver-issue-intake.json'), '--bogus'])).code).toBe(2);
    expect((await build(['--input', join(dir, 'missing.json')])).code).toBe(2);
    expect(
      (await build(['--input', join(EX, 'resolver-issue-intake.json'), '--gate-state', '{oops'])).code,
    ).toBe(2);
    expect((await build(['--input', join(EX, 'resolver-issue-intake.json'), 'extra'])).code).toBe(2);
    expect((await runCli(['envelope', 'frobnicate'])).code).toBe(2);
    expect((await runCli(['envelope'])).code).toBe(2);
    const help = await runCli(['envelope', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('handoff envelope build');
  });
});

describe('envelope validate and prefix', () => {
  let envFile: string;
  let envFile2: string;
  beforeAll(async () => {
    const args = [
      '--input',
      join(EX, 'resolver-issue-intake.json'),
      '--sanctioned',
      join(EX, 'sanctioned-commands.json'),
    ];
    const a = await build([...args, '--gate-state', '{"currentHeadSha":"aaa","ciStatus":"pending"}', ...NOW]);
    const b = await build([
      ...args,
      '--gate-state',
      '{"currentHeadSha":"bbb","ciStatus":"success","copilotRoundCount":3}',
      '--now',
      '2026-12-01T09:00:00Z',
    ]);
    envFile = join(dir, 'env-a.json');
    envFile2 = join(dir, 'env-b.json');
    await writeFile(envFile, a.stdout);
    await writeFile(envFile2, b.stdout);
  });

  it('validate: 0 with {ok:true} for a built envelope, from a file and from stdin', async () => {
    const r = await runCli(['envelope', 'validate', envFile]);
    expect(r.code).toBe(0);
    expect(stdoutJson(r)).toEqual({ ok: true, errors: [] });
    const s = await runCli(['envelope', 'validate', '-'], { input: readFileSync(envFile) });
    expect(s.code).toBe(0);
  });

  it('validate: 3 with field errors for an invalid envelope or non-JSON text', async () => {
    const broken = join(dir, 'broken.json');
    await writeFile(
      broken,
      JSON.stringify({ handoffVersion: 0, target: { kind: 'issue', repo: 'A/B', issue: 1 } }),
    );
    const r = await runCli(['envelope', 'validate', broken]);
    expect(r.code).toBe(3);
    const body = stdoutJson<{ ok: boolean; errors: Array<{ field: string }> }>(r);
    expect(body.ok).toBe(false);
    expect(body.errors.map((e) => e.field)).toContain('handoffVersion');
    expect(body.errors.map((e) => e.field)).toContain('target.repo');
    const nj = await runCli(['envelope', 'validate', '-'], { input: 'not json' });
    expect(nj.code).toBe(3);
    expect(stdoutJson<{ errors: Array<{ field: string }> }>(nj).errors[0]?.field).toBe('_root');
  });

  it('validate: usage errors exit 2', async () => {
    expect((await runCli(['envelope', 'validate'])).code).toBe(2);
    expect((await runCli(['envelope', 'validate', envFile, envFile2])).code).toBe(2);
    expect((await runCli(['envelope', 'validate', join(dir, 'nope.json')])).code).toBe(2);
  });

  it('prefix: the same digest for two rounds with different gate state and clock, equal to the library', async () => {
    const a = await runCli(['envelope', 'prefix', envFile]);
    const b = await runCli(['envelope', 'prefix', envFile2]);
    expect(a.code).toBe(0);
    const pa = stdoutJson<{ digest: string; bytes: number }>(a);
    expect(pa).toEqual(stdoutJson(b));
    const lib = envelopePrefix(JSON.parse(readFileSync(envFile, 'utf8')));
    expect(pa).toEqual({ digest: lib.digest, bytes: lib.bytes });
    expect(readFileSync(envFile, 'utf8')).not.toBe(readFileSync(envFile2, 'utf8'));
    const t = stdoutJson<{ text: string }>(await runCli(['envelope', 'prefix', '--text', envFile]));
    expect(t.text).toBe(lib.text);
  });

  it('prefix: 3 for an invalid envelope or non-JSON text, 2 without a file', async () => {
    expect((await runCli(['envelope', 'prefix', '-'], { input: '{"handoffVersion":1}' })).code).toBe(3);
    expect((await runCli(['envelope', 'prefix', '-'], { input: '[' })).code).toBe(3);
    expect((await runCli(['envelope', 'prefix'])).code).toBe(2);
  });
});
