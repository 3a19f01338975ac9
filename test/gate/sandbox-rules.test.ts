/**
 * The gate's sandbox rules, pure: what a sandboxed worker may take out of its layer
 * (`allowed_writes`, never `.git/` or `.handoff/`), and every discarded write a `scope_violation`
 * of the exact checks though it never reached the tree. And the CLI's flags: a bad value and
 * `--sandbox on` where the sandbox cannot run are usage errors naming why, before any worker runs.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exactChecks, ownerAuthority } from '../../src/gate/index.js';
import { gateWorkerMay } from '../../src/gate/sandbox-scope.js';
import { cliMain } from '../helpers/cli-main.js';
import { contract, git, packet, rm, T0, tempDir } from './fixtures.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rm(d);
});

describe('gateWorkerMay', () => {
  it('follows allowed_writes and never lets .git or .handoff out', () => {
    expect(gateWorkerMay(['src/**'], 'src/a/b.ts')).toBe(true);
    expect(gateWorkerMay(['src/**'], 'README.md')).toBe(false);
    expect(gateWorkerMay(['**'], 'README.md')).toBe(true);
    expect(gateWorkerMay(['**'], '.git/config')).toBe(false);
    expect(gateWorkerMay(['**'], '.git')).toBe(false);
    expect(gateWorkerMay(['**'], '.handoff/gate/ledger/x')).toBe(false);
    expect(gateWorkerMay(['**'], '.gitignore')).toBe(true);
  });
});

describe('exactChecks with discarded writes', () => {
  const c = contract();
  const base = { contract: c, packet: packet(c), authority: ownerAuthority(c.owner), now: Date.parse(T0) };
  it('passes with none, and makes each discarded write a scope_violation', () => {
    expect(exactChecks({ ...base, discarded: [] }).ok).toBe(true);
    const r = exactChecks({ ...base, discarded: ['.git/config', '~/.bashrc'] });
    expect(r.ok).toBe(false);
    expect(r.stop).toBe(false);
    expect(r.failures).toEqual([
      {
        code: 'scope_violation',
        detail: '.git/config was written outside allowed_writes (discarded by the sandbox)',
        path: '.git/config',
      },
      {
        code: 'scope_violation',
        detail: '~/.bashrc was written outside allowed_writes (discarded by the sandbox)',
        path: '~/.bashrc',
      },
    ]);
  });
});

describe('handoff gate run --sandbox', () => {
  function repoAt(name: string): { repo: string; contractFile: string } {
    const dir = tempDir('gate-sandbox-cli-');
    dirs.push(dir);
    const repo = join(dir, name);
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'README.md'), 'x\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
    const contractFile = join(dir, 'contract.json');
    writeFileSync(contractFile, JSON.stringify(contract()));
    return { repo, contractFile };
  }

  it('refuses a value outside auto|on|off', async () => {
    const { repo, contractFile } = repoAt('r');
    const r = await cliMain(
      ['gate', 'run', '--repo', repo, '--contract', contractFile, '--sandbox', 'yes', '--', 'true'],
      repo,
    );
    expect(r.code).toBe(2);
    expect(r.err).toContain("--sandbox must be auto|on|off, got 'yes'");
  });

  it('--sandbox on refuses a repository the overlay cannot carry, naming why, and runs nothing', async () => {
    const { repo, contractFile } = repoAt('a,b');
    const marker = join(repo, '..', 'ran');
    const r = await cliMain(
      [
        'gate',
        'run',
        '--repo',
        repo,
        '--contract',
        contractFile,
        '--register',
        '--sandbox',
        'on',
        '--',
        '/bin/sh',
        '-c',
        'touch "$0"',
        marker,
      ],
      repo,
    );
    expect(r.code).toBe(2);
    expect(r.err).toContain('--sandbox on: the sandbox cannot run here: the path');
    expect(r.err).toContain("contains ','");
    expect(existsSync(marker)).toBe(false);
  });
});
