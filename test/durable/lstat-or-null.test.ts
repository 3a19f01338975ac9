/**
 * `lstatOrNull`: a missing path is null (on a node layer without building an error), any other
 * error is thrown, and a layer spread from a node layer — a fault-injecting wrapper — is asked
 * through its own `lstat`, so its faults still apply.
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FsLayer, lstatOrNull, nodeFsLayer } from '../../src/durable/index.js';

const dir = mkdtempSync(join(tmpdir(), 'lstat-or-null-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lstatOrNull', () => {
  it('null for a missing path, the stat of what is there (a symlink itself, never its target)', () => {
    const fsl = nodeFsLayer();
    expect(lstatOrNull(fsl, join(dir, 'absent'))).toBeNull();
    writeFileSync(join(dir, 'f'), 'x');
    expect(lstatOrNull(fsl, join(dir, 'f'))?.isFile()).toBe(true);
    symlinkSync(join(dir, 'f'), join(dir, 'link'));
    expect(lstatOrNull(fsl, join(dir, 'link'))?.isSymbolicLink()).toBe(true);
  });

  it('other errors are thrown (a path through a file: ENOTDIR)', () => {
    writeFileSync(join(dir, 'plain'), 'x');
    expect(() => lstatOrNull(nodeFsLayer(), join(dir, 'plain', 'below'))).toThrow(
      expect.objectContaining({ code: 'ENOTDIR' }),
    );
  });

  it('a wrapper spread from a node layer is asked through its own lstat: its faults apply', () => {
    const calls: string[] = [];
    const eio = Object.assign(new Error('injected'), { code: 'EIO' });
    const faulty: FsLayer = {
      ...nodeFsLayer(),
      lstat: (p) => {
        calls.push(p);
        throw eio;
      },
    };
    expect(() => lstatOrNull(faulty, join(dir, 'absent'))).toThrow(eio);
    const missing: FsLayer = {
      ...nodeFsLayer(),
      lstat: (p) => {
        calls.push(p);
        throw Object.assign(new Error('gone'), { code: 'ENOENT' });
      },
    };
    expect(lstatOrNull(missing, join(dir, 'f'))).toBeNull(); // its ENOENT, though the file exists
    expect(calls).toEqual([join(dir, 'absent'), join(dir, 'f')]);
  });
});
