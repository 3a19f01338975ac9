/**
 * The stat index's trust rules (src/runtime/racy-entry.ts) and the watch's change classification
 * (workspaceChanges, describeWorkspaceChanges), as pure functions.
 */
import { describe, expect, it } from 'vitest';
import { isRacy, needsHash, type StatStamp, stampChanged } from '../../src/runtime/racy-entry.js';
import { describeWorkspaceChanges, workspaceChanges } from '../../src/runtime/workspace-watch.js';

const stamp: StatStamp = { size: 10n, mtimeNs: 1_000n, ctimeNs: 1_000n, ino: 7n, mode: 0o100644n };

describe('the racy-entry rule', () => {
  it('an entry whose timestamps are not strictly older than when it was taken (minus the margin) is racy', () => {
    expect(isRacy(stamp, 1_000n, 0n)).toBe(true); // same tick
    expect(isRacy(stamp, 1_001n, 0n)).toBe(false); // strictly older
    expect(isRacy(stamp, 1_001n, 1n)).toBe(true); // within the margin
    expect(isRacy(stamp, 3_000n, 2_000n)).toBe(true);
    expect(isRacy(stamp, 3_001n, 2_000n)).toBe(false);
  });

  it('ctime counts: an mtime set back with utimes does not make a fresh change trusted', () => {
    expect(isRacy({ ...stamp, mtimeNs: 1n, ctimeNs: 5_000n }, 5_000n, 0n)).toBe(true);
    expect(isRacy({ ...stamp, mtimeNs: 5_000n, ctimeNs: 1n }, 5_000n, 0n)).toBe(true);
  });

  it('any compared field changed means a new hash; an unchanged, settled entry is reused', () => {
    for (const k of ['size', 'mtimeNs', 'ctimeNs', 'ino', 'mode'] as const) {
      expect(stampChanged(stamp, { ...stamp, [k]: stamp[k] + 1n })).toBe(true);
      expect(needsHash({ stamp, takenNs: 10_000n }, { ...stamp, [k]: stamp[k] + 1n }, 0n)).toBe(true);
    }
    expect(needsHash(undefined, stamp, 0n)).toBe(true);
    expect(needsHash({ stamp, takenNs: 10_000n }, stamp, 0n)).toBe(false);
    expect(needsHash({ stamp, takenNs: 1_000n }, stamp, 0n)).toBe(true); // racy: hashed again
  });
});

describe('change classification', () => {
  it('created, changed and removed keys, per zone, sorted; unchanged ones left out', () => {
    const a = new Map([
      ['project:b.ts', 'file:644:1'],
      ['project:a.ts', 'file:644:2'],
      ['project:gone.ts', 'file:644:3'],
      ['git:/r/.git/config', 'file:644:4'],
      ['store:runs/x', 'file:644:5'],
    ]);
    const b = new Map([
      ['project:b.ts', 'file:755:1'], // mode only
      ['project:a.ts', 'file:644:2'],
      ['project:new.ts', 'file:644:6'],
      ['git:/r/.git/config', 'file:644:4'],
      ['git:/r/sub/.git/', 'dir'],
      ['store:runs/x', 'file:644:7'],
    ]);
    const c = workspaceChanges(a, b);
    expect(c).toEqual({
      project: ['b.ts', 'gone.ts', 'new.ts'],
      git: ['/r/sub/.git/'],
      store: ['runs/x'],
    });
    expect(describeWorkspaceChanges(c)).toBe(
      'the worker wrote outside its owned files: b.ts, gone.ts, new.ts; the worker changed git state: /r/sub/.git/; the worker wrote into the run store: runs/x',
    );
    expect(workspaceChanges(a, a)).toEqual({ project: [], git: [], store: [] });
    expect(describeWorkspaceChanges(workspaceChanges(a, a))).toBeNull();
  });
});
