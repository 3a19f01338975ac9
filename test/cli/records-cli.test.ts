import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateHandoff } from '../../src/contract/index.js';
import { canonicalDispatch, stuckHandoff } from '../contract/fixtures.js';
import { runCli, stdoutJson } from '../helpers/cli.js';

let dir: string;
const file = (name: string) => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-cli-'));
  await writeFile(file('dispatch.json'), JSON.stringify(canonicalDispatch()));
  await writeFile(
    file('relaunch.json'),
    JSON.stringify({ ...canonicalDispatch(), prior_blocker: stuckHandoff().blocker_signature }),
  );
  await writeFile(
    file('evidence.json'),
    JSON.stringify({
      ...canonicalDispatch(),
      prior_blocker: stuckHandoff().blocker_signature,
      evidence_delta: ['new lemma verified'],
    }),
  );
  await writeFile(file('stuck.json'), JSON.stringify(stuckHandoff()));
  await writeFile(file('broken.json'), '{"schema": "run-contract/v1", "target": "A.lean", "scope": "file"');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('handoff --help / --version', () => {
  it('prints the command map and the package version', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const verb of ['validate', 'dispatch', 'guard']) expect(help.stdout).toContain(verb);
    const version = await runCli(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const verbHelp = await runCli(['guard', '--help']);
    expect(verbHelp.code).toBe(0);
    expect(verbHelp.stdout).toContain('--prior');
  });

  it('refuses an unknown command with exit 2', async () => {
    const r = await runCli(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'frobnicate'");
  });
});

describe('handoff validate', () => {
  it('exit 0 and ok for a valid dispatch from a file', async () => {
    const r = await runCli(['validate', '--kind', 'dispatch', file('dispatch.json')]);
    expect(r.code).toBe(0);
    expect(stdoutJson(r)).toEqual({ ok: true, kind: 'dispatch', issues: [], warnings: [] });
  });

  it('exit 3 with issues for an invalid handoff from stdin', async () => {
    const r = await runCli(['validate', '--kind', 'handoff', '-'], {
      input: JSON.stringify({ ...stuckHandoff(), blocker_class: null }),
    });
    expect(r.code).toBe(3);
    const body = stdoutJson<{ ok: boolean; issues: { path: string; code: string }[] }>(r);
    expect(body.ok).toBe(false);
    expect(body.issues).toContainEqual(
      expect.objectContaining({ path: 'blocker_class', code: 'blocker_class_required' }),
    );
  });

  it('exit 3 for text that is not JSON', async () => {
    const r = await runCli(['validate', '--kind', 'baseline', file('broken.json')]);
    expect(r.code).toBe(3);
    expect(stdoutJson<{ issues: { code: string }[] }>(r).issues[0]?.code).toBe('not_json');
  });

  it('exit 2 for an unknown kind or an unreadable file', async () => {
    expect((await runCli(['validate', '--kind', 'manifesto', file('dispatch.json')])).code).toBe(2);
    const missing = await runCli(['validate', '--kind', 'dispatch', file('nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.json');
  });
});

describe('handoff dispatch check', () => {
  it('exit 0 and the normalized dispatch when valid', async () => {
    const r = await runCli(['dispatch', 'check', '-'], { input: JSON.stringify(canonicalDispatch()) });
    expect(r.code).toBe(0);
    expect(stdoutJson(r)).toEqual(canonicalDispatch());
  });

  it('exit 3 and a valid protocol-error handoff for a malformed dispatch', async () => {
    const r = await runCli(['dispatch', 'check', file('broken.json')]);
    expect(r.code).toBe(3);
    const h = stdoutJson(r);
    expect(validateHandoff(h).ok).toBe(true);
    expect(h).toMatchObject({ stop_reason: 'protocol-error', next_action: 'stop' });
    expect((h as { stop_detail: string }).stop_detail).toContain('not JSON');
  });

  it('echoes the parsed identity when the JSON is valid but the record is not', async () => {
    const r = await runCli(['dispatch', 'check', '-'], {
      input: JSON.stringify({ ...canonicalDispatch(), parameters: {} }),
    });
    expect(r.code).toBe(3);
    const h = stdoutJson<{ target: string; scope: string; stop_detail: string }>(r);
    expect(h.target).toBe('Mathlib/Foo.lean:42');
    expect(h.scope).toBe('sorry');
    expect(h.stop_detail).toContain('parameters');
  });
});

describe('handoff guard', () => {
  it('exit 3 when the relaunch is forbidden', async () => {
    const r = await runCli(['guard', '--dispatch', file('relaunch.json'), '--prior', file('stuck.json')]);
    expect(r.code).toBe(3);
    expect(stdoutJson(r)).toMatchObject({
      forbidden: true,
      branch: 'blocker',
      required_evidence: stuckHandoff().new_evidence_required_for_rerun,
    });
  });

  it('exit 0 when new evidence is supplied (prior read from stdin)', async () => {
    const r = await runCli(['guard', '--dispatch', file('evidence.json'), '--prior', '-'], {
      input: JSON.stringify(stuckHandoff()),
    });
    expect(r.code).toBe(0);
    expect(stdoutJson(r)).toMatchObject({ forbidden: false });
  });

  it('exit 2 naming the file and field when an input is not a valid record', async () => {
    const r = await runCli(['guard', '--dispatch', file('stuck.json'), '--prior', file('stuck.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('stuck.json');
    expect(r.stderr).toContain('record');
    expect((await runCli(['guard', '--dispatch', file('dispatch.json')])).code).toBe(2);
  });
});
