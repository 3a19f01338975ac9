/**
 * advance (re-record only the named entries, carry the rest forward — drift on untouched files is
 * never blessed) and the custody helpers assertCustody / CustodyChain.
 */
import { mkdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  advanceBaseline,
  assertCustody,
  CustodyChain,
  checkBaseline,
  type FileBaseline,
  recordBaseline,
} from '../../src/baseline/index.js';
import { dirPerTest, rejection } from './fixtures.js';

let dir = '';
dirPerTest((d) => {
  dir = d;
});
const p = (name: string) => join(dir, name);

async function threeFiles(): Promise<FileBaseline> {
  for (const f of ['a', 'b', 'c']) writeFileSync(p(f), f);
  return recordBaseline(['a', 'b', 'c'], { cwd: dir });
}

describe('advance', () => {
  it('re-records only the changed entry and carries the drifted untouched entry forward', async () => {
    const b0 = await threeFiles();
    writeFileSync(p('a'), 'my accepted edit');
    writeFileSync(p('b'), 'external drift');
    const b1 = await advanceBaseline(b0, ['a'], { cwd: dir });
    expect(b1.files[0]).toMatchObject({ path: p('a'), size: 16 });
    expect(b1.files[0]?.sha256).not.toBe(b0.files[0]?.sha256);
    expect(b1.files.slice(1)).toEqual(b0.files.slice(1));
    expect(b1.files[1]).not.toBe(b0.files[1]);
    const c = await checkBaseline(b1);
    expect(c.result).toBe('drift');
    expect(c.entries.map((e) => e.status)).toEqual(['unchanged', 'modified', 'unchanged']);
  });
  it('checking the superseded baseline mistakes the own edit for drift', async () => {
    const b0 = await threeFiles();
    writeFileSync(p('c'), 'edit');
    await advanceBaseline(b0, ['c'], { cwd: dir });
    expect((await checkBaseline(b0)).entries[2]?.status).toBe('modified');
  });
  it('records creation and deletion of the changed entries; does not mutate its input', async () => {
    writeFileSync(p('old'), 'x');
    const b0 = await recordBaseline(['old', 'new'], { cwd: dir });
    const frozen = structuredClone(b0);
    unlinkSync(p('old'));
    writeFileSync(p('new'), 'fresh');
    const b1 = await advanceBaseline(b0, [p('old'), 'new', 'new'], { cwd: dir });
    expect(b1.files.map((f) => f.exists)).toEqual([false, true]);
    expect(b0).toEqual(frozen);
    expect((await checkBaseline(b1)).result).toBe('match');
  });
  it('refuses unknown paths (unknown_path, exit 2) and an empty list (usage)', async () => {
    const b0 = await threeFiles();
    const e = await rejection(advanceBaseline(b0, ['a', 'new-target'], { cwd: dir }));
    expect(e).toMatchObject({ code: 'unknown_path', exit: 2, details: { unknown: ['new-target'] } });
    expect((await rejection(advanceBaseline(b0, [], { cwd: dir }))).code).toBe('usage');
  });
  it('a changed target that is no longer a regular file is an operational error (exit 4)', async () => {
    const b0 = await threeFiles();
    unlinkSync(p('a'));
    mkdirSync(p('a'));
    const e = await rejection(advanceBaseline(b0, ['a'], { cwd: dir }));
    expect(e).toMatchObject({ code: 'io_error', exit: 4, details: { path: p('a') } });
  });
  it('refuses an advance that would give two entries one realpath (duplicate_path)', async () => {
    writeFileSync(p('t1'), '1');
    writeFileSync(p('a'), 'a');
    symlinkSync('t1', p('l'));
    const b0 = await recordBaseline(['a', 'l'], { cwd: dir });
    unlinkSync(p('l'));
    symlinkSync('a', p('l'));
    const e = await rejection(advanceBaseline(b0, ['l'], { cwd: dir }));
    expect(e).toMatchObject({ code: 'duplicate_path', exit: 2, details: { realpath: p('a') } });
  });
});

describe('assertCustody', () => {
  it('resolves with the match check', async () => {
    const b0 = await threeFiles();
    expect((await assertCustody(b0)).result).toBe('match');
  });
  it('throws drift (exit 3) with the check, the affected entries and the recommendations', async () => {
    const b0 = await threeFiles();
    unlinkSync(p('b'));
    const e = await rejection(assertCustody(b0));
    expect(e.code).toBe('drift');
    expect(e.exit).toBe(3);
    expect(e.details).toMatchObject({
      affected: [{ path: p('b'), status: 'deleted' }],
      recommendations: ['rerun', 'serialize', 'worktree'],
      check: { result: 'drift' },
    });
  });
  it('throws io_error (exit 4) for an error result, even with drift, and honours only', async () => {
    const b0 = await threeFiles();
    unlinkSync(p('a'));
    mkdirSync(p('a'));
    writeFileSync(p('b'), 'drift');
    const e = await rejection(assertCustody(b0));
    expect(e).toMatchObject({ code: 'io_error', exit: 4, details: { check: { result: 'error' } } });
    expect((await assertCustody(b0, { only: ['c'], cwd: dir })).unchecked).toEqual([p('a'), p('b')]);
  });
});

describe('CustodyChain', () => {
  it('check → write → advance; the current baseline moves with the writer and is frozen', async () => {
    const chain = new CustodyChain(await threeFiles(), { cwd: dir });
    const out = await chain.write(['a'], () => {
      writeFileSync(p('a'), 'edit 1');
      return 'done';
    });
    expect(out).toBe('done');
    await chain.write([p('a'), 'b'], () => writeFileSync(p('b'), 'edit 2'));
    expect((await chain.check()).result).toBe('match');
    expect(Object.isFrozen(chain.current.files[0])).toBe(true);
    expect(chain.broken).toBe(false);
  });
  it('refuses to write on drift and does not call mutate', async () => {
    const chain = new CustodyChain(await threeFiles(), { cwd: dir });
    writeFileSync(p('a'), 'external');
    let called = false;
    const e = await rejection(
      chain.write(['a'], () => {
        called = true;
      }),
    );
    expect(e.code).toBe('drift');
    expect(called).toBe(false);
    expect(chain.broken).toBe(false);
  });
  it('checks only the intended targets: drift elsewhere does not block, and is not blessed', async () => {
    const chain = new CustodyChain(await threeFiles(), { cwd: dir });
    writeFileSync(p('c'), 'external');
    await chain.write(['a'], () => writeFileSync(p('a'), 'mine'));
    expect((await rejection(chain.check())).code).toBe('drift');
  });
  it('a failed mutate is not advanced: its partial change surfaces as drift', async () => {
    const chain = new CustodyChain(await threeFiles(), { cwd: dir });
    await expect(
      chain.write(['a'], () => {
        writeFileSync(p('a'), 'half');
        throw new Error('tool failed');
      }),
    ).rejects.toThrow('tool failed');
    expect(chain.broken).toBe(false);
    expect((await rejection(chain.check(['a']))).code).toBe('drift');
  });
  it('after a failed advance the chain refuses everything (custody_violation)', async () => {
    const chain = new CustodyChain(await threeFiles(), { cwd: dir });
    const e = await rejection(
      chain.write(['a'], () => {
        unlinkSync(p('a'));
        mkdirSync(p('a'));
      }),
    );
    expect(e.code).toBe('io_error');
    expect(chain.broken).toBe(true);
    expect(chain.failure?.code).toBe('io_error');
    for (const attempt of [chain.check(), chain.advance(['b']), chain.write(['b'], () => undefined)]) {
      expect((await rejection(attempt)).code).toBe('custody_violation');
    }
  });
  it('serializes concurrent writes so each checks against the previous advance', async () => {
    const chain = new CustodyChain(await threeFiles(), { cwd: dir });
    const writes = Array.from({ length: 5 }, (_, i) =>
      chain.write(['a'], async () => {
        await new Promise((r) => setTimeout(r, 2));
        writeFileSync(p('a'), `v${i}`);
      }),
    );
    await Promise.all(writes);
    expect((await chain.check()).result).toBe('match');
    expect(chain.current.files[0]?.size).toBe(2);
  });
  it('refuses a malformed starting baseline and an empty target list', async () => {
    expect(() => new CustodyChain({ schema: 'file-baseline/v1', files: [] } as FileBaseline)).toThrow(
      /malformed baseline/,
    );
    const chain = new CustodyChain(await threeFiles(), { cwd: dir });
    expect((await rejection(chain.write([], () => undefined))).code).toBe('usage');
  });
});
