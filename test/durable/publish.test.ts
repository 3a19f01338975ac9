/**
 * Atomic publication (src/durable/publish.ts): the target is replaced whole or not at all, the
 * temp file never outlives a call, every step failure names `<label>_<step>` and says which side
 * of the rename it is on, and `sync` decides what is fsync'd (checked with the faulty layer's
 * durability model).
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeFsLayer, publishFile, publishNewFile, StepFailure } from '../../src/durable/index.js';
import { faultyFs } from '../store/faulty-fs.js';
import { tempDir } from '../store/tmp.js';

const fsl = nodeFsLayer();
const bytes = (text: string) => Buffer.from(text, 'utf8');

function stepOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StepFailure);
    return (e as StepFailure).step;
  }
  throw new Error('did not throw');
}

describe('publishFile', () => {
  it('creates and then replaces the target whole, leaving only the target behind', () => {
    const dir = tempDir('durable-');
    const target = join(dir, 'state.json');
    publishFile(fsl, target, bytes('one\n'));
    expect(readFileSync(target, 'utf8')).toBe('one\n');
    publishFile(fsl, target, bytes('two\n'), { label: 'state' });
    expect(readFileSync(target, 'utf8')).toBe('two\n');
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('replaces a symlink planted at the target instead of writing through it', () => {
    const dir = tempDir('durable-');
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'keep');
    const target = join(dir, 'file');
    symlinkSync(victim, target);
    publishFile(fsl, target, bytes('new'));
    expect(lstatSync(target).isSymbolicLink()).toBe(false);
    expect(readFileSync(target, 'utf8')).toBe('new');
    expect(readFileSync(victim, 'utf8')).toBe('keep');
  });

  it('exactMode sets the mode with fchmod, whatever the umask', () => {
    const dir = tempDir('durable-');
    const target = join(dir, 'script.sh');
    const old = process.umask(0o077);
    try {
      publishFile(fsl, target, bytes('#!/bin/sh\n'), { mode: 0o755, exactMode: true, sync: 'none' });
      publishFile(fsl, join(dir, 'masked'), bytes('x'), { mode: 0o755 });
    } finally {
      process.umask(old);
    }
    expect(lstatSync(target).mode & 0o777).toBe(0o755);
    expect(lstatSync(join(dir, 'masked')).mode & 0o777).toBe(0o700);
  });

  it('a given temp path is created exclusively unless reuseTmp (a temp left by a crash)', () => {
    const dir = tempDir('durable-');
    const target = join(dir, 'handoff.json');
    const tmpPath = `${target}.tmp`;
    writeFileSync(tmpPath, 'left by a crashed writer');
    expect(stepOf(() => publishFile(fsl, target, bytes('a'), { label: 'cache', tmpPath }))).toBe(
      'cache_tmp_open',
    );
    expect(readFileSync(tmpPath, 'utf8')).toBe('left by a crashed writer'); // not ours: not removed
    publishFile(fsl, target, bytes('a'), { label: 'cache', tmpPath, reuseTmp: true });
    expect(readFileSync(target, 'utf8')).toBe('a');
    expect(readdirSync(dir)).toEqual(['handoff.json']);
  });

  it('every failing step before the rename leaves the target untouched and removes the temp file', () => {
    const dir = tempDir('durable-');
    const target = join(dir, 'manifest.json');
    writeFileSync(target, 'old');
    const clean = faultyFs();
    publishFile(clean, target, bytes('new'), { label: 'manifest', tmpPath: join(dir, 't.tmp') });
    writeFileSync(target, 'old');
    const renameAt = clean.trace.findIndex((c) => c.startsWith('rename '));
    expect(renameAt).toBeGreaterThan(0);
    const steps: string[] = [];
    for (let i = 0; i <= renameAt; i++) {
      const f = faultyFs();
      f.failAt = i;
      steps.push(
        stepOf(() =>
          publishFile(f, target, bytes('new'), { label: 'manifest', tmpPath: join(dir, 't.tmp') }),
        ),
      );
      expect(readFileSync(target, 'utf8'), f.failed ?? '').toBe('old');
      expect(readdirSync(dir), f.failed ?? '').toEqual(['manifest.json']);
    }
    expect(steps).toEqual([
      'manifest_tmp_open',
      'manifest_tmp_write',
      'manifest_tmp_fsync',
      'manifest_tmp_close',
      'manifest_rename',
    ]);
  });

  it('a failing directory fsync is reported after the rename (dir_fsync: replaced, not known durable)', () => {
    const dir = tempDir('durable-');
    const target = join(dir, 'f');
    const clean = faultyFs();
    publishFile(clean, target, bytes('x'));
    const after = clean.trace.slice(clean.trace.findIndex((c) => c.startsWith('rename ')) + 1);
    expect(after).toEqual([`open ${dir}`, `fsync ${dir}`, `close ${dir}`]);
    for (const k of [0, 1]) {
      const f = faultyFs();
      f.failAt = clean.trace.length - 3 + k;
      expect(stepOf(() => publishFile(f, target, bytes('y'), { label: 'cache' }))).toBe('cache_dir_fsync');
      expect(readFileSync(target, 'utf8')).toBe('y');
    }
  });

  it("sync 'all' leaves nothing unsynced; 'dir-best-effort' ignores a refused directory fsync but not EIO; 'none' fsyncs nothing", () => {
    const dir = tempDir('durable-');
    const target = join(dir, 'f');
    const all = faultyFs();
    publishFile(all, target, bytes('x'));
    expect([...all.unsyncedContent, ...all.unsyncedEntries].filter((p) => p.startsWith(dir))).toEqual([]);

    const best = faultyFs();
    best.mode = 'einval';
    best.failAt = all.trace.indexOf(`fsync ${dir}`);
    publishFile(best, target, bytes('y'), { sync: 'dir-best-effort' });
    expect(best.failed).toBe(`fsync ${dir}`);
    expect(readFileSync(target, 'utf8')).toBe('y');

    // a real I/O failure of the directory fsync is not "unsupported": it surfaces
    const eio = faultyFs();
    eio.failAt = all.trace.indexOf(`fsync ${dir}`);
    expect(
      stepOf(() => publishFile(eio, target, bytes('w'), { label: 'cache', sync: 'dir-best-effort' })),
    ).toBe('cache_dir_fsync');
    expect(readFileSync(target, 'utf8')).toBe('w');

    const none = faultyFs();
    publishFile(none, target, bytes('z'), { sync: 'none' });
    expect(none.trace.filter((c) => c.startsWith('fsync '))).toEqual([]);
    expect(readFileSync(target, 'utf8')).toBe('z');
  });
});

describe('publishNewFile', () => {
  it('the first publisher wins; a later one gets false and changes nothing; temps never remain', () => {
    const dir = tempDir('durable-');
    const tmpDir = join(dir, 'tmp');
    mkdirSync(tmpDir);
    const target = join(dir, '00000001.json');
    expect(publishNewFile(fsl, target, bytes('first'), { tmpPath: join(tmpDir, 'a') })).toBe(true);
    expect(publishNewFile(fsl, target, bytes('second'), { tmpPath: join(tmpDir, 'b') })).toBe(false);
    expect(publishNewFile(fsl, target, bytes('third'))).toBe(false);
    expect(readFileSync(target, 'utf8')).toBe('first');
    expect(readdirSync(tmpDir)).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(['00000001.json', 'tmp']);
  });

  it('a link failure other than EEXIST is a StepFailure <label>_link, with the temp removed', () => {
    const dir = tempDir('durable-');
    const clean = faultyFs();
    publishNewFile(clean, join(dir, 'x'), bytes('x'), { label: 'ledger' });
    const f = faultyFs();
    f.failAt = clean.trace.findIndex((c) => c.startsWith('link '));
    expect(stepOf(() => publishNewFile(f, join(dir, 'y'), bytes('y'), { label: 'ledger' }))).toBe(
      'ledger_link',
    );
    expect(readdirSync(dir)).toEqual(['x']);
  });

  it('the published entry is durable after the call (content and directory entry)', () => {
    const dir = tempDir('durable-');
    const f = faultyFs();
    const target = join(dir, 'e.json');
    publishNewFile(f, target, bytes('{}'));
    expect(f.unsyncedContent.has(target) || f.unsyncedEntries.has(target)).toBe(false);
  });
});
