/**
 * The stat index at scale (src/runtime/stat-index.ts through snapshotWorkspace): a 20,000-file
 * project generated here; a second snapshot with nothing changed hashes nothing (counted through
 * the index's hash hook — the real assertion) and stays under a loose time bound; a snapshot after
 * three writes hashes exactly those three; a file still inside the racy window is hashed again
 * although its stat did not change (git's racy-entry rule).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStatIndex } from '../../src/runtime/stat-index.js';
import { snapshotWorkspace, type WatchZones, workspaceChanges } from '../../src/runtime/workspace-watch.js';

const FILES = 20_000;
let dir: string;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-scale-')));
  for (let i = 0; i < FILES; i++) {
    const d = join(dir, `d${Math.floor(i / 500)}`);
    if (i % 500 === 0) mkdirSync(d);
    writeFileSync(join(d, `f${i}.txt`), `${i}\n`);
  }
  await new Promise((r) => setTimeout(r, 20)); // every file strictly older than the first snapshot
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the stat index at 20,000 files', () => {
  it('hashes every file once, then only what changed', async () => {
    const zones: WatchZones = { projectRoot: dir, gitDirs: [], storeRoot: null };
    const hashed: string[] = [];
    const index = createStatIndex({ racyMarginNs: 0n, onHash: (p) => hashed.push(p) });
    const first = await snapshotWorkspace(zones, [], index);
    expect(first.size).toBe(FILES);
    expect(hashed).toHaveLength(FILES);

    hashed.length = 0;
    const t0 = performance.now();
    const second = await snapshotWorkspace(zones, [], index);
    const ms = performance.now() - t0;
    expect(hashed).toEqual([]);
    expect(workspaceChanges(first, second).project).toEqual([]);
    expect(ms).toBeLessThan(4_000); // loose: a loaded 2-core machine; the bench has the figures

    const changed = ['d0/f1.txt', 'd7/f3600.txt', 'd39/f19999.txt'];
    for (const f of changed) await writeFile(join(dir, f), 'changed by the worker\n');
    hashed.length = 0;
    const third = await snapshotWorkspace(zones, [], index);
    expect(hashed.map((p) => p.slice(dir.length + 1)).sort()).toEqual([...changed].sort());
    expect(workspaceChanges(second, third).project).toEqual([...changed].sort());
  }, 120_000);
});

describe('the racy-entry rule, on the disk', () => {
  it('a file written inside the racy window is hashed again though its stat is unchanged', async () => {
    const small = await realpath(await mkdtemp(join(tmpdir(), 'handoff-racy-')));
    try {
      await writeFile(join(small, 'fresh.txt'), 'just written\n');
      const zones: WatchZones = { projectRoot: small, gitDirs: [], storeRoot: null };
      let hashes = 0;
      const index = createStatIndex({ onHash: () => hashes++ }); // the default 2 s margin
      await snapshotWorkspace(zones, [], index);
      await snapshotWorkspace(zones, [], index);
      expect(hashes).toBe(2);
      const settled = createStatIndex({ racyMarginNs: -60_000_000_000n, onHash: () => hashes++ });
      hashes = 0;
      await snapshotWorkspace(zones, [], settled);
      await snapshotWorkspace(zones, [], settled);
      expect(hashes).toBe(1); // a margin far in the past: nothing is racy, one hash
    } finally {
      await rm(small, { recursive: true, force: true });
    }
  });
});
