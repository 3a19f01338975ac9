/**
 * The dispatch baseline carried over (src/runtime/workspace-watch.ts `snapshotForDispatch`): one
 * project walk per dispatch. What tells a carried baseline from a fresh walk is a write that
 * lands between the last look and the dispatch: carried, it is part of the dispatch's change (a
 * late writer is caught, not absorbed); after a process start or a restore the baseline is walked
 * again, so a legitimate write of that process is not charged to the worker. The runtime's own
 * writes to files some snapshot left out (owned files, committed or restored) are never charged.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runContained } from '../../src/process/index.js';
import { createStatIndex } from '../../src/runtime/stat-index.js';
import {
  captureZoneBytes,
  restoreWorkspace,
  snapshotForDispatch,
  snapshotWorkspace,
  type WatchZones,
  workspaceChanges,
} from '../../src/runtime/workspace-watch.js';

let dir: string;
let zones: WatchZones;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-carry-')));
  mkdirSync(join(dir, 'src'));
  for (const f of ['A.lean', 'B.lean', 'src/C.ts']) writeFileSync(join(dir, f), `${f}\n`);
  zones = { projectRoot: dir, gitDirs: [], storeRoot: null };
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const A = () => join(dir, 'A.lean');

describe('the dispatch baseline', () => {
  it('is carried over: a write after the last look is charged to the dispatch, nothing is hashed again', async () => {
    const hashed: string[] = [];
    const index = createStatIndex({ racyMarginNs: 0n, onHash: (p) => hashed.push(p) });
    await snapshotWorkspace(zones, [A()], index); // the previous dispatch's after-walk
    writeFileSync(join(dir, 'B.lean'), 'a late write\n');
    hashed.length = 0;
    const before = snapshotForDispatch(zones, [A()], index);
    // only the paths a snapshot left out are looked at again (A.lean: owned now, not hashed)
    expect(hashed).toEqual([]);
    const after = await snapshotWorkspace(zones, [A()], index);
    expect(workspaceChanges(before, after).project).toEqual(['B.lean']);
  });

  it('re-reads what earlier dispatches owned: the runtime writing them between dispatches is no change', async () => {
    const index = createStatIndex({ racyMarginNs: 0n });
    await snapshotWorkspace(zones, [A()], index);
    writeFileSync(A(), 'committed by the checkpoint\n'); // the runtime's own write of the old owned file
    const before = snapshotForDispatch(zones, [join(dir, 'B.lean')], index); // the next target owns B
    expect(before.get('project:A.lean')).toMatch(/^file:/);
    const after = await snapshotWorkspace(zones, [join(dir, 'B.lean')], index);
    expect(workspaceChanges(before, after).project).toEqual([]);
    writeFileSync(A(), 'written by the worker\n');
    const later = await snapshotWorkspace(zones, [join(dir, 'B.lean')], index);
    expect(workspaceChanges(before, later).project).toEqual(['A.lean']);
  });

  it('is walked again after a process start: what that process wrote is the baseline', async () => {
    const index = createStatIndex({ racyMarginNs: 0n });
    await snapshotWorkspace(zones, [A()], index);
    writeFileSync(join(dir, 'src/C.ts'), 'written by a check command\n');
    const r = await runContained([process.execPath, '-e', '0'], '', { cwd: dir, timeoutMs: 30_000 });
    expect(r.code).toBe(0);
    const before = snapshotForDispatch(zones, [A()], index);
    const after = await snapshotWorkspace(zones, [A()], index);
    expect(workspaceChanges(before, after).project).toEqual([]);
  });

  it('is walked again after a restore, and a carried baseline restores the late write too', async () => {
    const index = createStatIndex({ racyMarginNs: 0n });
    await snapshotWorkspace(zones, [A()], index);
    writeFileSync(join(dir, 'B.lean'), 'a late write\n');
    const before = snapshotForDispatch(zones, [A()], index);
    const kept = await captureZoneBytes(zones, before);
    writeFileSync(join(dir, 'NEW.txt'), 'the worker\n');
    const after = await snapshotWorkspace(zones, [A()], index);
    const changes = workspaceChanges(before, after);
    expect(changes.project).toEqual(['B.lean', 'NEW.txt']);
    const report = await restoreWorkspace(zones, kept, changes);
    expect(report.failed).toEqual([]);
    // B.lean is back to the bytes of the last look; the restore forces a fresh walk next time
    expect(readFileSync(join(dir, 'B.lean'), 'utf8')).toBe('B.lean\n');
    expect(existsSync(join(dir, 'NEW.txt'))).toBe(false);
    writeFileSync(join(dir, 'src/C.ts'), 'between restore and dispatch\n');
    const next = snapshotForDispatch(zones, [A()], index);
    const end = await snapshotWorkspace(zones, [A()], index);
    expect(workspaceChanges(next, end).project).toEqual([]);
  });

  it('falls back to a walk for zones it never saw, and keeps the git zone fresh', async () => {
    const index = createStatIndex({ racyMarginNs: 0n });
    const git = join(dir, '.git');
    mkdirSync(join(git, 'hooks'), { recursive: true });
    writeFileSync(join(git, 'config'), '[core]\n');
    const z: WatchZones = { projectRoot: dir, gitDirs: [git], storeRoot: null };
    const first = snapshotForDispatch(z, [A()], index); // no last look: a full walk
    expect(first.get('project:B.lean')).toMatch(/^file:/);
    writeFileSync(join(git, 'config'), '[core]\n\tbare = false\n'); // the checkpoint's own git write
    const before = snapshotForDispatch(z, [A()], index);
    writeFileSync(join(git, 'hooks', 'pre-commit'), '#!/bin/sh\n');
    const after = await snapshotWorkspace(z, [A()], index);
    expect(workspaceChanges(before, after).git).toEqual([join(git, 'hooks', 'pre-commit')]);
  });
});
