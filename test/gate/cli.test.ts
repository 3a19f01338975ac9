/**
 * The gate CLI against the built binary on real repositories: the whole lifecycle (`gate run`)
 * with a subprocess evaluator — initial attempt, ordinary repair, second round, lead packet — and
 * the refusals: a second run without a directive, a hard stop, an evaluator without its key.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, stdoutJson } from '../helpers/cli.js';
import { exampleContract, gitRepo, rm, tempDir } from './fixtures.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/gate/', import.meta.url));
const EVALUATOR = JSON.stringify([process.execPath, join(EXAMPLES, 'evaluator.mjs')]);
const WORKER = [process.execPath, join(EXAMPLES, 'worker.mjs')];

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rm(d);
});

/** `gate run` with the example evaluator and worker, registering the problem. */
function runArgs(repo: string, contractFile: string, ...extra: string[]): string[] {
  return [
    'gate',
    'run',
    '--repo',
    repo,
    '--contract',
    contractFile,
    '--evaluator',
    EVALUATOR,
    ...extra,
    '--register',
    '--',
    ...WORKER,
  ];
}

async function setup(): Promise<{ repo: string; contractFile: string }> {
  const repo = gitRepo({ 'README.md': 'demo\n', '.gitignore': '.handoff/\n' });
  dirs.push(repo);
  const bind = await runCli(['gate', 'bind', '--repo', repo]);
  expect(bind.code, bind.stderr).toBe(0);
  const contract = exampleContract(stdoutJson(bind));
  const side = tempDir('gate-cli-');
  dirs.push(side);
  const contractFile = join(side, 'contract.json');
  writeFileSync(contractFile, JSON.stringify(contract));
  return { repo, contractFile };
}

describe('handoff gate run', () => {
  it('drives the whole lifecycle on a real repo with a subprocess evaluator', async () => {
    const { repo, contractFile } = await setup();
    const args = runArgs(repo, contractFile);
    const r = await runCli(args);
    expect(r.code, r.stderr).toBe(0);
    const out = stdoutJson<{ outcome: string; path: string[]; lead: Record<string, unknown> }>(r);
    expect(out.outcome).toBe('lead-review');
    // initial attempt insufficient → ordinary repair → second gate round → ready for the lead
    expect(out.path).toEqual([
      'provisional',
      'collecting',
      'checking',
      'evaluating',
      'routing',
      'reserving',
      'continuing',
      'validating',
      'collecting',
      'checking',
      'evaluating',
      'routing',
      'leadReview',
    ]);
    expect(out.lead).toMatchObject({
      route: 'REVIEW_READY',
      what_changed: [{ path: 'src/greet.js', change: 'added', from: null }],
      grants: [{ slot: 'ordinary-repair', state: 'consumed' }],
    });
    expect((out.lead.criteria as { status: string }[]).map((c) => c.status)).toEqual([
      'satisfied',
      'satisfied',
    ]);

    const st = await runCli(['gate', 'status', '--repo', repo, '--problem', 'example-greet']);
    expect(st.code).toBe(0);
    expect(stdoutJson(st)).toMatchObject({
      used: { 'ordinary-repair': 1, 'gate-continuation': 0 },
      lead_handoffs: 1,
    });

    // a restart of the same job is not a new attempt: it needs a lead directive
    const again = await runCli(args);
    expect(again.code).toBe(5);
    expect(again.stderr).toContain('attempt_not_authorized');
  }, 90_000);

  it('an evaluator without its key goes to ordinary lead review, never a grant', async () => {
    const { repo, contractFile } = await setup();
    const r = await runCli(runArgs(repo, contractFile), {
      env: { GATE_EVALUATOR_REQUIRE_KEY: '1', GATE_EVALUATOR_KEY: '' },
    });
    expect(r.code, r.stderr).toBe(0);
    const out = stdoutJson<{
      path: string[];
      lead: { route: string; grants: unknown[]; assessment: { status: string; failure: { kind: string } } };
    }>(r);
    expect(out.path).not.toContain('reserving');
    expect(out.lead.route).toBe('LEAD_REVIEW');
    expect(out.lead.grants).toEqual([]);
    expect(out.lead.assessment).toMatchObject({ status: 'NOT_EVALUATED', failure: { kind: 'no-key' } });
  }, 60_000);

  it('a hard stop is STOP (exit 12) whatever the evaluator would say', async () => {
    const { repo, contractFile } = await setup();
    const authority = join(contractFile, '..', 'authority.json');
    writeFileSync(
      authority,
      JSON.stringify({
        schema: 'gate-authority/v1',
        actor: 'lead@example',
        lease_expires_at: null,
        hard_stop: 'incident freeze',
      }),
    );
    const r = await runCli(runArgs(repo, contractFile, '--authority', authority));
    expect(r.code, r.stderr).toBe(12);
    expect(stdoutJson<{ outcome: string; lead: { route: string } }>(r)).toMatchObject({
      outcome: 'stopped',
      lead: { route: 'STOP' },
    });
  }, 60_000);
});

describe('handoff gate verbs', () => {
  it('collect → evaluate → route, with documented exit codes', async () => {
    const { repo, contractFile } = await setup();
    writeFileSync(join(repo, 'stray.txt'), 'outside allowed_writes\n');
    const c = await runCli(['gate', 'collect', '--repo', repo, '--contract', contractFile]);
    expect(c.code, c.stderr).toBe(0);
    const packetFile = join(contractFile, '..', 'packet.json');
    writeFileSync(packetFile, c.stdout);
    const e = await runCli([
      'gate',
      'evaluate',
      '--contract',
      contractFile,
      '--packet',
      packetFile,
      '--evaluator',
      EVALUATOR,
    ]);
    expect(e.code, e.stderr).toBe(0);
    const asmFile = join(contractFile, '..', 'assessment.json');
    writeFileSync(asmFile, e.stdout);
    const r = await runCli([
      'gate',
      'route',
      '--contract',
      contractFile,
      '--packet',
      packetFile,
      '--assessment',
      asmFile,
    ]);
    expect(r.code).toBe(11);
    expect(stdoutJson<{ route: string; reasons: { code: string }[] }>(r).reasons[0]?.code).toBe(
      'scope_violation',
    );
    const bad = await runCli(['gate', 'route', '--contract', packetFile, '--packet', packetFile]);
    expect(bad.code).toBe(3);
    expect((await runCli(['gate', 'nope'])).code).toBe(2);
    expect((await runCli(['gate', 'status', '--ledger', join(repo, 'nowhere'), '--problem', 'x'])).code).toBe(
      5,
    );
  }, 60_000);
});
