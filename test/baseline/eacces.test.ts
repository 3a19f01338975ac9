/**
 * A permission denial while inspecting a file is an `error` entry (fail closed), never `absent`.
 * CI runs as root, where chmod cannot deny a read, so the denial is injected into node:fs here:
 * the one place a fault is simulated rather than produced.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const deny = (path: unknown) => {
    if (String(path).endsWith('denied.txt')) {
      throw Object.assign(new Error(`EACCES: permission denied, open '${String(path)}'`), { code: 'EACCES' });
    }
  };
  return {
    ...actual,
    openSync: ((path: Parameters<typeof actual.openSync>[0], ...rest: unknown[]) => {
      deny(path);
      return (actual.openSync as (...a: unknown[]) => number)(path, ...rest);
    }) as typeof actual.openSync,
  };
});

const { checkBaseline, recordBaseline } = await import('../../src/baseline/index.js');
const { makeTmp, removeTmp } = await import('./fixtures.js');

const dir = makeTmp();
afterAll(() => removeTmp(dir));

describe('permission denied while inspecting', () => {
  it('check reports error with EACCES in the detail and result error', async () => {
    writeFileSync(join(dir, 'ok.txt'), 'ok');
    writeFileSync(join(dir, 'denied.txt'), 'secret');
    const b = await recordBaseline(['ok.txt'], { cwd: dir });
    const withDenied = {
      ...b,
      files: [
        ...b.files,
        { ...b.files[0]!, path: join(dir, 'denied.txt'), realpath: join(dir, 'denied.txt') },
      ],
    };
    const r = await checkBaseline(withDenied);
    expect(r.result).toBe('error');
    expect(r.entries[1]).toMatchObject({
      path: join(dir, 'denied.txt'),
      status: 'error',
      detail: expect.stringContaining('EACCES'),
    });
    expect(r.entries[0]).toEqual({ path: join(dir, 'ok.txt'), status: 'unchanged' });
  });

  it('record refuses to invent an absent entry for an unreadable file', async () => {
    await expect(recordBaseline(['denied.txt'], { cwd: dir })).rejects.toMatchObject({ code: 'io_error' });
  });
});
