/**
 * Exclusive lock and marker files (src/durable/exclusive-file.ts): exactly one creator wins, a
 * planted symlink is never followed, a half-made file is removed again (unless kept), and removal
 * reports instead of throwing.
 */
import { existsSync, lstatSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createExclusiveFile, errnoOf, nodeFsLayer, removeExclusiveFile } from '../../src/durable/index.js';
import { faultyFs } from '../store/faulty-fs.js';
import { tempDir } from '../store/tmp.js';

const fsl = nodeFsLayer();
const body = Buffer.from('{"host":"h","pid":1}\n');

describe('createExclusiveFile', () => {
  it('creates the file with its body; a second creation finds it taken', () => {
    const lock = join(tempDir('durable-'), '.lock');
    expect(createExclusiveFile(fsl, lock, body)).toEqual({ ok: true });
    expect(readFileSync(lock, 'utf8')).toBe(body.toString());
    const again = createExclusiveFile(fsl, lock, Buffer.from('other'));
    expect(again).toMatchObject({ ok: false, reason: 'exists' });
    expect(readFileSync(lock, 'utf8')).toBe(body.toString());
  });

  it('an empty marker; a symlink at the path (even dangling) counts as taken and is not followed', () => {
    const dir = tempDir('durable-');
    expect(createExclusiveFile(fsl, join(dir, 'p.begun'), new Uint8Array(0)).ok).toBe(true);
    expect(readFileSync(join(dir, 'p.begun')).length).toBe(0);
    const link = join(dir, 'planted');
    symlinkSync(join(dir, 'elsewhere'), link);
    expect(createExclusiveFile(fsl, link, body)).toMatchObject({ ok: false, reason: 'exists' });
    expect(existsSync(join(dir, 'elsewhere'))).toBe(false);
  });

  it('create_failed carries the Node error (a missing directory: ENOENT)', () => {
    const r = createExclusiveFile(fsl, join(tempDir('durable-'), 'no', '.lock'), body);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toBe('create_failed');
      expect(errnoOf(r.cause)).toBe('ENOENT');
    }
  });

  it('a body that cannot be written frees the path again (init_failed), or stays with keepOnFailure', () => {
    const dir = tempDir('durable-');
    for (const mode of ['eio', 'partial', 'enospc-nothing'] as const) {
      const f = faultyFs();
      f.failAt = 1; // open, then the write
      f.mode = mode;
      const lock = join(dir, `.lock-${mode}`);
      const r = createExclusiveFile(f, lock, body);
      expect(r, mode).toMatchObject({ ok: false, reason: 'init_failed' });
      if (!r.ok) expect(errnoOf(r.cause), mode).toBe(mode === 'enospc-nothing' ? 'ENOSPC' : 'EIO');
      expect(existsSync(lock), mode).toBe(false);
    }
    const f = faultyFs();
    f.failAt = 1;
    const kept = join(dir, 'state.json');
    expect(createExclusiveFile(f, kept, body, { keepOnFailure: true }).ok).toBe(false);
    expect(existsSync(kept)).toBe(true);
  });

  it('sync fsyncs the body before close; mode is applied (before the umask)', () => {
    const dir = tempDir('durable-');
    const f = faultyFs();
    const file = join(dir, 'state.json');
    expect(createExclusiveFile(f, file, body, { sync: true, mode: 0o600 }).ok).toBe(true);
    expect(f.trace).toEqual([`open ${file}`, `write ${file}`, `fsync ${file}`, `close ${file}`]);
    expect(f.unsyncedContent.has(file)).toBe(false);
    expect(lstatSync(file).mode & 0o777).toBe(0o600);
    const g = faultyFs();
    g.failAt = 2;
    expect(createExclusiveFile(g, join(dir, 'b'), body, { sync: true })).toMatchObject({
      ok: false,
      reason: 'init_failed',
    });
  });
});

describe('removeExclusiveFile', () => {
  it('removes the file; a failure is reported with its cause, never thrown', () => {
    const dir = tempDir('durable-');
    const lock = join(dir, '.lock');
    writeFileSync(lock, '');
    expect(removeExclusiveFile(fsl, lock)).toEqual({ ok: true });
    expect(existsSync(lock)).toBe(false);
    const r = removeExclusiveFile(fsl, lock);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(errnoOf(r.cause)).toBe('ENOENT');
  });
});
