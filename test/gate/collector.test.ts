/**
 * The collector on real temporary git repositories: staged, unstaged, untracked, renamed (with and
 * without `git mv`), removed and committed-since-base changes; a candidate binding that tells dirty
 * trees apart; artifacts resolved or omitted with a reason; the gate's own state ignored.
 */
import { renameSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectEvidence, currentCandidate, type EvidencePacket } from '../../src/gate/index.js';
import { contract, git, gitRepo, rm, T0, tempDir, write } from './fixtures.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rm(d);
});

function repo(files: Record<string, string>): string {
  const d = gitRepo(files);
  dirs.push(d);
  return d;
}

const byPath = (p: EvidencePacket) => Object.fromEntries(p.changeset.map((c) => [c.path, c]));

describe('collector', () => {
  it('enumerates staged, unstaged, untracked, renamed and removed changes', async () => {
    const dir = repo({
      'src/keep.ts': 'keep\n',
      'src/staged.ts': 'one\n',
      'src/both.ts': 'one\n',
      'src/old name.ts': 'moved by git mv\n',
      'src/moved-by-hand.ts': 'moved without git mv\n',
      'src/gone.ts': 'bye\n',
      'src/gone-staged.ts': 'bye staged\n',
    });
    const base = await currentCandidate(dir);
    write(dir, 'src/staged.ts', 'two\n');
    git(dir, 'add', 'src/staged.ts');
    write(dir, 'src/both.ts', 'two\n');
    git(dir, 'add', 'src/both.ts');
    write(dir, 'src/both.ts', 'three\n');
    git(dir, 'mv', 'src/old name.ts', 'src/new name.ts');
    renameSync(join(dir, 'src/moved-by-hand.ts'), join(dir, 'src/hand-moved.ts'));
    unlinkSync(join(dir, 'src/gone.ts'));
    git(dir, 'rm', '-q', 'src/gone-staged.ts');
    write(dir, 'src/untracked/new.ts', 'brand new\n');
    write(dir, '.handoff/gate/ledger/x/log/00000001.json', '{}');

    const c = contract({ candidate: base });
    const p = await collectEvidence({ repo: dir, contract: c, now: () => T0 });
    const m = byPath(p);
    expect(Object.keys(m).sort()).toEqual([
      'src/both.ts',
      'src/gone-staged.ts',
      'src/gone.ts',
      'src/hand-moved.ts',
      'src/new name.ts',
      'src/staged.ts',
      'src/untracked/new.ts',
    ]);
    expect(m['src/staged.ts']).toMatchObject({ change: 'modified', staged: true, unstaged: false });
    expect(m['src/both.ts']).toMatchObject({ change: 'modified', staged: true, unstaged: true });
    expect(m['src/new name.ts']).toMatchObject({ change: 'renamed', from: 'src/old name.ts', staged: true });
    expect(m['src/hand-moved.ts']).toMatchObject({
      change: 'renamed',
      from: 'src/moved-by-hand.ts',
      staged: false,
      untracked: true,
    });
    expect(m['src/gone.ts']).toMatchObject({
      change: 'removed',
      staged: false,
      unstaged: true,
      sha256: null,
    });
    expect(m['src/gone-staged.ts']).toMatchObject({ change: 'removed', staged: true, sha256: null });
    expect(m['src/untracked/new.ts']).toMatchObject({ change: 'added', untracked: true, staged: false });
    expect(m['src/untracked/new.ts']?.sha256).toMatch(/^[0-9a-f]{64}$/);
    // the changed (non-removed) files are resolved artifacts with their content
    expect(p.artifacts.find((a) => a.ref === 'src/both.ts')).toMatchObject({
      role: 'changed',
      content: 'three\n',
    });
    expect(p.base).toEqual(base);
    expect(p.candidate.commit).toBe(base.commit);
    expect(p.candidate.tree_digest).not.toBe(base.tree_digest);
  });

  it('tells two dirty trees on the same commit apart, and is stable for the same bytes', async () => {
    const dir = repo({ 'a.txt': 'a\n' });
    const clean = await currentCandidate(dir);
    write(dir, 'a.txt', 'b\n');
    const dirty1 = await currentCandidate(dir);
    write(dir, 'a.txt', 'c\n');
    const dirty2 = await currentCandidate(dir);
    write(dir, 'a.txt', 'b\n');
    expect(await currentCandidate(dir)).toEqual(dirty1);
    expect(new Set([clean.tree_digest, dirty1.tree_digest, dirty2.tree_digest]).size).toBe(3);
    expect(dirty1.commit).toBe(clean.commit);
    write(dir, 'a.txt', 'a\n');
    write(dir, 'untracked.txt', 'u\n');
    expect((await currentCandidate(dir)).tree_digest).not.toBe(clean.tree_digest);
    write(dir, '.handoff/state.json', '{}');
    const withInternal = await currentCandidate(dir);
    unlinkSync(join(dir, '.handoff/state.json'));
    expect(await currentCandidate(dir)).toEqual(withInternal);
  });

  it('includes changes committed since the base candidate', async () => {
    const dir = repo({ 'src/a.ts': '1\n' });
    const base = await currentCandidate(dir);
    write(dir, 'src/b.ts', 'new\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'worker commit');
    const p = await collectEvidence({ repo: dir, contract: contract({ candidate: base }), now: () => T0 });
    expect(p.changeset.map((c) => [c.path, c.change])).toEqual([['src/b.ts', 'added']]);
    expect(p.candidate.commit).not.toBe(base.commit);
  });

  it('resolves artifacts to permitted content or lists them under omitted with the reason', async () => {
    const outside = tempDir();
    dirs.push(outside);
    write(outside, 'secret.txt', 'secret\n');
    const dir = repo({ 'README.md': 'readme\n', 'big.bin': 'x'.repeat(2048), 'private/key.pem': 'k\n' });
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'escape.txt'));
    const base = await currentCandidate(dir);
    const c = contract({ candidate: base, required_artifacts: ['README.md', 'docs/missing.md'] });
    const p = await collectEvidence({
      repo: dir,
      contract: c,
      artifacts: ['big.bin', '../outside.txt', 'private/key.pem', 'escape.txt', '.git/config'],
      permittedReads: ['README.md', 'big.bin', 'escape.txt', 'docs/**', '.git/**'],
      maxArtifactBytes: 1024,
      now: () => T0,
    });
    expect(p.artifacts.map((a) => [a.ref, a.role])).toEqual([['README.md', 'required']]);
    expect(p.artifacts[0]?.content).toBe('readme\n');
    const reasons = Object.fromEntries(p.omitted.map((o) => [o.ref, o.reason]));
    expect(reasons).toEqual({
      'docs/missing.md': 'unresolved',
      'big.bin': 'too-large',
      '../outside.txt': 'not-permitted',
      'private/key.pem': 'not-permitted',
      'escape.txt': 'not-permitted',
      '.git/config': 'not-permitted',
    });
  });

  it('keeps executions as evidence only when bound to this candidate, and claims as claims', async () => {
    const dir = repo({ 'a.txt': 'a\n' });
    const base = await currentCandidate(dir);
    write(dir, 'a.txt', 'changed\n');
    const cand = await currentCandidate(dir);
    const exec = (digest: string) => ({
      runner: 'ci',
      command: ['npm', 'test'],
      exit_code: 0,
      operations: ['test:unit'],
      provenance: { runner_id: 'ci-7', trusted: true, candidate_digest: digest },
    });
    const p = await collectEvidence({
      repo: dir,
      contract: contract({ candidate: base, allowed_writes: ['**'] }),
      executions: [exec(cand.tree_digest), exec(base.tree_digest)],
      claims: [{ criterion_id: 'reload-idempotent', text: 'all tests pass' }],
      now: () => T0,
    });
    expect(p.executions.map((e) => e.counted)).toEqual([true, false]);
    expect(p.operations_observed).toEqual(['test:unit']);
    expect(p.worker_claims).toEqual([
      { criterion_id: 'reload-idempotent', text: 'all tests pass', verified: false },
    ]);
  });

  it('works in a repository without commits', async () => {
    const dir = tempDir('gate-empty-');
    dirs.push(dir);
    git(dir, 'init', '-q');
    write(dir, 'x.ts', 'x\n');
    const c0 = await currentCandidate(dir);
    expect(c0.commit).toBeNull();
    const p = await collectEvidence({ repo: dir, contract: contract({ candidate: c0 }), now: () => T0 });
    expect(p.changeset.map((c) => [c.path, c.change, c.untracked])).toEqual([['x.ts', 'added', true]]);
  });
});
