/**
 * The layer reader on a plain directory standing in for an overlay's upper layer (whiteouts and
 * opaque directories exist only on a real overlay: test/sandbox/run-sandboxed.test.ts covers them):
 * regular files, links never followed, non-UTF-8 names escaped, deep paths, owned bytes read.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLayer } from '../../src/sandbox/index.js';

let dir: string;
let upper: string;
let lower: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbox-layer-'));
  upper = join(dir, 'upper');
  lower = join(dir, 'lower');
  await mkdir(upper);
  await mkdir(join(lower, 'src'), { recursive: true });
  await writeFile(join(lower, 'src', 'kept.ts'), 'k');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readLayer', () => {
  it('lists files, links (not followed), escaped names, deep paths and new empty folders', async () => {
    const deep = join(upper, ...Array.from({ length: 40 }, (_, i) => `d${i}`));
    await mkdir(deep, { recursive: true });
    await writeFile(join(deep, 'stash'), 'x');
    await mkdir(join(upper, 'src'));
    await writeFile(join(upper, 'src', 'A.ts'), 'new A');
    await symlink(lower, join(upper, 'to-lower'));
    await writeFile(Buffer.from(`${upper}/bad-\xff`, 'latin1'), 'y');
    await mkdir(join(upper, 'empty'));
    const seen: string[][] = [];
    const r = await readLayer(upper, {
      owned: new Set(['src/A.ts', 'to-lower']),
      lower,
      opaque: async (c) => {
        seen.push(c.map((x) => `${x.dir}:${x.witness}`));
        return new Set();
      },
    });
    expect(r.changes.written).toEqual([
      'bad-\\xff',
      `${Array.from({ length: 40 }, (_, i) => `d${i}`).join('/')}/stash`,
      'empty/',
      'src/A.ts',
    ]);
    expect(r.changes.specials).toEqual([{ path: 'to-lower', kind: 'symlink' }]);
    expect(r.changes.deleted).toEqual([]);
    expect([...r.files.keys()]).toEqual(['src/A.ts']);
    expect(r.files.get('src/A.ts')?.bytes.toString()).toBe('new A');
    // src exists below with an entry the layer does not shadow: a candidate for an opaque check
    expect(seen).toEqual([['src:kept.ts']]);
  });

  it('an empty layer has no changes and asks nothing', async () => {
    let asked = false;
    const r = await readLayer(upper, {
      lower,
      opaque: async () => {
        asked = true;
        return new Set();
      },
    });
    expect(r.changes).toEqual({ written: [], deleted: [], opaqueDirs: [], specials: [] });
    expect(asked).toBe(false);
  });
});
