/**
 * record and check against real files: every status of the ordering (with its ties), symlinks,
 * duplicates, refusals, --only selectors, operational errors, and streamed hashing.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BaselineCheckSchema,
  checkBaseline,
  type FileBaseline,
  FileBaselineSchema,
  observePath,
  recordBaseline,
} from '../../src/baseline/index.js';
import { HASH_CHUNK_BYTES, SMALL_FILE_BYTES } from '../../src/baseline/observe.js';
import { dirPerTest, IS_ROOT, mkfifo, rejection } from './fixtures.js';

let dir = '';
dirPerTest((d) => {
  dir = d;
});

const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
const p = (name: string) => join(dir, name);

async function statuses(baseline: FileBaseline, only?: string[]) {
  const c = await checkBaseline(baseline, only === undefined ? { cwd: dir } : { only, cwd: dir });
  expect(BaselineCheckSchema.safeParse(c).success).toBe(true);
  return { result: c.result, by: Object.fromEntries(c.entries.map((e) => [e.path, e.status])), check: c };
}

describe('record', () => {
  it('records path, realpath, existence, sha256 and size of the exact bytes, in argument order', async () => {
    writeFileSync(p('a.txt'), 'dirty bytes\n');
    writeFileSync(p('empty'), '');
    const b = await recordBaseline(['a.txt', p('missing'), 'empty'], { cwd: dir });
    expect(FileBaselineSchema.safeParse(b).success).toBe(true);
    expect(b).toEqual({
      schema: 'file-baseline/v1',
      files: [
        { path: p('a.txt'), realpath: p('a.txt'), exists: true, sha256: sha('dirty bytes\n'), size: 12 },
        { path: p('missing'), realpath: p('missing'), exists: false, sha256: null, size: null },
        { path: p('empty'), realpath: p('empty'), exists: true, sha256: sha(''), size: 0 },
      ],
    });
  });
  it('makes relative paths absolute lexically (.. and trailing slashes normalized)', async () => {
    mkdirSync(p('sub'));
    writeFileSync(p('x'), 'x');
    const b = await recordBaseline(['sub/../x', `${dir}//sub/../missing/`], { cwd: dir });
    expect(b.files.map((f) => f.path)).toEqual([p('x'), p('missing')]);
  });
  it('symlinks: path keeps the link, realpath resolves it; dangling and looping links are absent', async () => {
    writeFileSync(p('target'), 'T');
    symlinkSync('target', p('link'));
    symlinkSync('nowhere/deeper', p('dangling'));
    symlinkSync('loop2', p('loop1'));
    symlinkSync('loop1', p('loop2'));
    mkdirSync(p('realdir'));
    writeFileSync(p('realdir/f'), 'F');
    symlinkSync('realdir', p('dirlink'));
    const b = await recordBaseline(['link', 'dangling', 'loop1', 'dirlink/f'], { cwd: dir });
    expect(b.files).toEqual([
      { path: p('link'), realpath: p('target'), exists: true, sha256: sha('T'), size: 1 },
      { path: p('dangling'), realpath: p('nowhere/deeper'), exists: false, sha256: null, size: null },
      expect.objectContaining({ path: p('loop1'), exists: false, sha256: null }),
      { path: p('dirlink/f'), realpath: p('realdir/f'), exists: true, sha256: sha('F'), size: 1 },
    ]);
  });
  it('a path below a regular file (ENOTDIR) is recorded as absent', async () => {
    writeFileSync(p('file'), 'f');
    const b = await recordBaseline(['file/below'], { cwd: dir });
    expect(b.files[0]).toEqual({
      path: p('file/below'),
      realpath: p('file/below'),
      exists: false,
      sha256: null,
      size: null,
    });
  });
  it('refuses an empty list, empty or NUL paths and a relative cwd (usage, exit 2)', async () => {
    for (const [paths, cwd] of [
      [[], dir],
      [[''], dir],
      [['a\0b'], dir],
      [['a'], 'rel'],
    ] as const) {
      const e = await rejection(recordBaseline(paths, { cwd }));
      expect(e.code).toBe('usage');
      expect(e.exit).toBe(2);
    }
  });
  it('refuses the same path twice, however spelled (duplicate_path, exit 2)', async () => {
    const e = await rejection(recordBaseline(['a', p('a'), 'b'], { cwd: dir }));
    expect(e).toMatchObject({ code: 'duplicate_path', exit: 2, details: { path: p('a') } });
  });
  it('refuses two paths resolving to one realpath (link and target; two dangling links to one name)', async () => {
    writeFileSync(p('t'), 't');
    symlinkSync('t', p('l'));
    symlinkSync('gone', p('d1'));
    symlinkSync('gone', p('d2'));
    const e = await rejection(recordBaseline(['t', 'l'], { cwd: dir }));
    expect(e).toMatchObject({
      code: 'duplicate_path',
      exit: 2,
      details: { realpath: p('t'), paths: [p('t'), p('l')] },
    });
    expect((await rejection(recordBaseline(['d1', 'd2'], { cwd: dir }))).code).toBe('duplicate_path');
  });
  it('refuses a directory, a FIFO and a link to a directory as operational errors (io_error, exit 4)', async () => {
    mkdirSync(p('d'));
    mkfifo(p('fifo'));
    symlinkSync('d', p('dl'));
    for (const name of ['d', 'fifo', 'dl']) {
      const e = await rejection(recordBaseline([name], { cwd: dir }));
      expect(e).toMatchObject({
        code: 'io_error',
        exit: 4,
        details: { path: p(name), detail: `${p(name)}: not a regular file` },
      });
    }
  });
});

describe('check: every status in the order', () => {
  it('unchanged for untouched files, including rewrites with the same bytes at a new inode', async () => {
    writeFileSync(p('a'), 'A');
    writeFileSync(p('b'), 'B');
    const b = await recordBaseline(['a', 'b', 'missing'], { cwd: dir });
    writeFileSync(p('tmp'), 'B');
    renameSync(p('tmp'), p('b'));
    const r = await statuses(b);
    expect(r.result).toBe('match');
    expect(r.check.entries).toEqual([
      { path: p('a'), status: 'unchanged' },
      { path: p('b'), status: 'unchanged' },
      { path: p('missing'), status: 'unchanged' },
    ]);
    expect(r.check.unchecked).toEqual([]);
  });
  it('modified: other bytes, also with the same size', async () => {
    writeFileSync(p('a'), 'AAAA');
    writeFileSync(p('b'), 'BBBB');
    const b = await recordBaseline(['a', 'b'], { cwd: dir });
    writeFileSync(p('a'), 'AAAB');
    writeFileSync(p('b'), 'BBBB and more');
    const r = await statuses(b);
    expect(r).toMatchObject({ result: 'drift', by: { [p('a')]: 'modified', [p('b')]: 'modified' } });
  });
  it('deleted, created, and created-then-deleted is unchanged', async () => {
    writeFileSync(p('gone'), 'x');
    const b = await recordBaseline(['gone', 'new', 'flicker'], { cwd: dir });
    unlinkSync(p('gone'));
    writeFileSync(p('new'), '');
    writeFileSync(p('flicker'), 'x');
    unlinkSync(p('flicker'));
    const r = await statuses(b);
    expect(r.by).toEqual({ [p('gone')]: 'deleted', [p('new')]: 'created', [p('flicker')]: 'unchanged' });
    expect(r.result).toBe('drift');
  });
  it('retargeted when the realpath changes, even with identical bytes, and before modified', async () => {
    writeFileSync(p('t1'), 'same');
    writeFileSync(p('t2'), 'same');
    writeFileSync(p('t3'), 'x');
    writeFileSync(p('t4'), 'other');
    symlinkSync('t1', p('l1'));
    symlinkSync('t3', p('l2'));
    const b = await recordBaseline(['l1', 'l2'], { cwd: dir });
    unlinkSync(p('l1'));
    symlinkSync('t2', p('l1'));
    unlinkSync(p('l2'));
    symlinkSync('t4', p('l2'));
    const r = await statuses(b);
    expect(r.by).toEqual({ [p('l1')]: 'retargeted', [p('l2')]: 'retargeted' });
    expect(r.check.entries[0]?.detail).toBe(`realpath ${p('t1')} -> ${p('t2')}`);
  });
  it('symlink cases: link removed → deleted; link made dangling → deleted; dangling target appears → created; target edited → modified', async () => {
    for (const t of ['t1', 't2', 't4']) writeFileSync(p(t), t);
    symlinkSync('t1', p('l1'));
    symlinkSync('t2', p('l2'));
    symlinkSync('t3', p('l3'));
    symlinkSync('t4', p('l4'));
    const b = await recordBaseline(['l1', 'l2', 'l3', 'l4'], { cwd: dir });
    expect(b.files[2]).toMatchObject({ exists: false, realpath: p('t3') });
    unlinkSync(p('l1'));
    unlinkSync(p('t2'));
    writeFileSync(p('t3'), 'now here');
    writeFileSync(p('t4'), 'edited');
    const r = await statuses(b);
    expect(r.by).toEqual({
      [p('l1')]: 'deleted',
      [p('l2')]: 'deleted',
      [p('l3')]: 'created',
      [p('l4')]: 'modified',
    });
  });
  it('a dangling link re-pointed to another missing target is retargeted, not unchanged (reference v4.6.2+ order)', async () => {
    symlinkSync('missing1', p('L'));
    const b = await recordBaseline(['L'], { cwd: dir });
    unlinkSync(p('L'));
    symlinkSync('missing2', p('L'));
    const r = await statuses(b);
    expect(r.by).toEqual({ [p('L')]: 'retargeted' });
    expect(r.check.result).toBe('drift');
  });
  it('an absent path that becomes a link to another file is retargeted, not created', async () => {
    writeFileSync(p('other'), 'x');
    const b = await recordBaseline(['absent'], { cwd: dir });
    symlinkSync('other', p('absent'));
    expect((await statuses(b)).by).toEqual({ [p('absent')]: 'retargeted' });
  });
  it('a regular file replaced by a link to identical bytes elsewhere is retargeted', async () => {
    writeFileSync(p('a'), 'same');
    writeFileSync(p('other'), 'same');
    const b = await recordBaseline(['a'], { cwd: dir });
    unlinkSync(p('a'));
    symlinkSync('other', p('a'));
    expect((await statuses(b)).by).toEqual({ [p('a')]: 'retargeted' });
  });
  it('error beats everything and wins over drift overall, with the full per-entry report', async () => {
    writeFileSync(p('a'), 'a');
    writeFileSync(p('b'), 'b');
    writeFileSync(p('c'), 'c');
    const b = await recordBaseline(['a', 'b', 'c', 'never'], { cwd: dir });
    unlinkSync(p('a'));
    mkdirSync(p('a'));
    unlinkSync(p('b'));
    mkfifo(p('b'));
    writeFileSync(p('c'), 'changed');
    mkdirSync(p('never'));
    const r = await statuses(b);
    expect(r.result).toBe('error');
    expect(r.check.entries).toEqual([
      { path: p('a'), status: 'error', detail: `${p('a')}: not a regular file` },
      { path: p('b'), status: 'error', detail: `${p('b')}: not a regular file` },
      { path: p('c'), status: 'modified' },
      { path: p('never'), status: 'error', detail: `${p('never')}: not a regular file` },
    ]);
  });
  it('chmod 000: error (EACCES) for a normal user; unchanged for root, who can still read it', async () => {
    writeFileSync(p('a'), 'a');
    const b = await recordBaseline(['a'], { cwd: dir });
    chmodSync(p('a'), 0);
    try {
      const r = await statuses(b);
      if (IS_ROOT) expect(r.by).toEqual({ [p('a')]: 'unchanged' });
      else
        expect(r.check.entries[0]).toMatchObject({
          status: 'error',
          detail: expect.stringContaining('EACCES'),
        });
    } finally {
      chmodSync(p('a'), 0o644);
    }
  });
});

describe('check --only', () => {
  it('checks the selected entries in baseline order and lists the rest as unchecked', async () => {
    for (const f of ['a', 'b', 'c']) writeFileSync(p(f), f);
    const b = await recordBaseline(['a', 'b', 'c'], { cwd: dir });
    writeFileSync(p('a'), 'drift that --only does not see');
    const r = await statuses(b, ['c', p('b'), 'c']);
    expect(r.check).toEqual({
      schema: 'file-baseline-check/v1',
      result: 'match',
      entries: [
        { path: p('b'), status: 'unchanged' },
        { path: p('c'), status: 'unchanged' },
      ],
      unchecked: [p('a')],
    });
    expect((await statuses(b, [])).result).toBe('drift');
  });
  it('refuses unknown selectors (unknown_path, exit 2), including a realpath that is not a stored path', async () => {
    writeFileSync(p('t'), 't');
    symlinkSync('t', p('l'));
    const b = await recordBaseline(['l'], { cwd: dir });
    const e = await rejection(checkBaseline(b, { only: ['l', p('t'), 'zzz'], cwd: dir }));
    expect(e).toMatchObject({ code: 'unknown_path', exit: 2, details: { unknown: [p('t'), 'zzz'] } });
  });
  it('a relative selector from another directory does not rebind', async () => {
    writeFileSync(p('a'), 'a');
    mkdirSync(p('other'));
    writeFileSync(p('other/a'), 'decoy');
    const b = await recordBaseline(['a'], { cwd: dir });
    expect((await rejection(checkBaseline(b, { only: ['a'], cwd: p('other') }))).code).toBe('unknown_path');
  });
  it('refuses a malformed baseline (invalid_record, exit 2) instead of matching', async () => {
    const e = await rejection(checkBaseline({ schema: 'file-baseline/v1', files: [] } as FileBaseline));
    expect(e).toMatchObject({ code: 'invalid_record', exit: 2 });
  });
});

describe('streamed hashing', () => {
  it.each([
    0,
    1,
    SMALL_FILE_BYTES,
    SMALL_FILE_BYTES + 1,
    HASH_CHUNK_BYTES - 1,
    HASH_CHUNK_BYTES,
    HASH_CHUNK_BYTES + 1,
    3 * HASH_CHUNK_BYTES + 12345,
  ])('hashes %i bytes exactly across chunk boundaries', async (size) => {
    const data = Buffer.alloc(size);
    for (let i = 0; i < size; i += 4093) data[i] = (i * 31) & 0xff;
    writeFileSync(p('f'), data);
    const o = await observePath(p('f'));
    expect(o).toEqual({ kind: 'present', realpath: p('f'), sha256: sha(data), size });
    rmSync(p('f'));
  });
});
