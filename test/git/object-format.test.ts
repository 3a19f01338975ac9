/**
 * Git's object format, pure: ids computed as git computes them, trees and commit headers parsed
 * as git writes them (checked against a real git), malformed input refused without a throw.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { gitObjectId, parseCommitHeader, parseTree } from '../../src/git/index.js';
import {
  looseObjectIsAuthentic,
  looseObjectsSnapshot,
  newObjects,
  objectIdOfName,
  removePlantedObjects,
} from '../../src/git/loose-objects.js';

const git = (args: string[], input?: string) =>
  execFileSync('git', args, {
    input,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' },
  }).trim();

describe('gitObjectId', () => {
  it('is the id git gives the same bytes', () => {
    const text = 'theorem a : 1 = 1 := rfl\n';
    expect(gitObjectId('blob', Buffer.from(text))).toBe(git(['hash-object', '--stdin'], text));
    expect(gitObjectId('blob', Buffer.alloc(0))).toBe('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
    expect(gitObjectId('blob', Buffer.from('x'), 64)).toHaveLength(64);
  });
});

describe('parseTree', () => {
  it('reads mode, name and id of each entry, and refuses a truncated tree', () => {
    const id = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';
    const tree = Buffer.concat([
      Buffer.from('100644 A.lean\0'),
      Buffer.from(id, 'hex'),
      Buffer.from('40000 sub\0'),
      Buffer.from(id, 'hex'),
    ]);
    expect(parseTree(tree)).toEqual([
      { mode: '100644', name: 'A.lean', id },
      { mode: '40000', name: 'sub', id },
    ]);
    expect(parseTree(tree.subarray(0, tree.length - 3))).toBeNull();
    expect(parseTree(Buffer.from('garbage'))).toBeNull();
    expect(parseTree(Buffer.alloc(0))).toEqual([]);
  });
});

describe('parseCommitHeader', () => {
  it('reads the tree and parents, and refuses a commit without a tree line', () => {
    const c = Buffer.from('tree aa\nparent bb\nparent cc\nauthor x <y> 1 +0000\n\nparent dd\n');
    expect(parseCommitHeader(c)).toEqual({ tree: 'aa', parents: ['bb', 'cc'] });
    expect(parseCommitHeader(Buffer.from('author x\n\nmsg'))).toBeNull();
  });
});

describe('loose object names', () => {
  it('lists the names that appeared, and maps a loose name to its id', () => {
    expect(
      newObjects(new Set(['ab/01', 'pack/pack-1.pack']), new Set(['cd/02', 'ab/01', 'pack/pack-2.pack'])),
    ).toEqual(['cd/02', 'pack/pack-2.pack']);
    expect(objectIdOfName('ab/cdef')).toBe('abcdef');
    expect(objectIdOfName('pack/pack-1.pack')).toBeNull();
  });
});

describe('loose object authenticity', () => {
  it('a real loose object hashes to its name; a planted or corrupt one does not and is removed', async () => {
    const repo = await mkdtemp(join(tmpdir(), 'handoff-loose-'));
    try {
      execFileSync('git', ['init', '-q', repo]);
      const id = execFileSync('git', ['-C', repo, 'hash-object', '-w', '--stdin'], {
        input: 'honest\n',
        encoding: 'utf8',
      }).trim();
      const git = join(repo, '.git');
      const name = `${id.slice(0, 2)}/${id.slice(2)}`;
      expect(await looseObjectsSnapshot(git)).toEqual(new Set([name]));
      expect(await looseObjectIsAuthentic(git, name)).toBe(true);
      expect(await removePlantedObjects(git, [name])).toEqual({ removed: [], failed: [] });
      const planted = 'ab/'.padEnd(41, '0');
      await mkdir(join(git, 'objects', 'ab'), { recursive: true });
      await writeFile(join(git, 'objects', planted), deflateSync(Buffer.from('blob 5\0weak\n')));
      const corrupt = 'cd/'.padEnd(41, '1');
      await mkdir(join(git, 'objects', 'cd'), { recursive: true });
      await writeFile(join(git, 'objects', corrupt), 'not zlib');
      expect(await looseObjectIsAuthentic(git, planted)).toBe(false);
      expect(await removePlantedObjects(git, [name, planted, corrupt])).toEqual({
        removed: [planted, corrupt],
        failed: [],
      });
      expect(await looseObjectsSnapshot(git)).toEqual(new Set([name]));
    } finally {
      await rm(repo, { recursive: true, force: true });
    }
  });
});
