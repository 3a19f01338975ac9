/**
 * Whole-buffer I/O, directory fsync and the error helpers of src/durable: short writes are looped,
 * a write that makes no progress is a StepFailure with the bytes written so far, reads stop at the
 * size seen, a final symlink is never followed, and `causeOf` hands back the Node error.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  causeOf,
  errnoOf,
  type FsLayer,
  fsyncDir,
  nodeFsLayer,
  O,
  readFileNoFollow,
  readRange,
  StepFailure,
  writeFully,
} from '../../src/durable/index.js';
import { faultyFs } from '../store/faulty-fs.js';
import { tempDir } from '../store/tmp.js';

const fsl = nodeFsLayer();

describe('writeFully', () => {
  it('loops over short writes until every byte is written', () => {
    const file = join(tempDir('durable-'), 'f');
    const oneByte: FsLayer = { ...fsl, write: (fd, b, o) => fsl.write(fd, b, o, 1) };
    const fd = fsl.open(file, O.O_WRONLY | O.O_CREAT, 0o644);
    try {
      writeFully(oneByte, fd, Buffer.from('hello\n'), 'write');
    } finally {
      fsl.close(fd);
    }
    expect(readFileNoFollow(fsl, file)?.toString()).toBe('hello\n');
  });

  it('a throwing or zero-progress write is a StepFailure with the bytes written before it', () => {
    const file = join(tempDir('durable-'), 'f');
    let calls = 0;
    const stalls: FsLayer = { ...fsl, write: (fd, b, o) => (calls++ === 0 ? fsl.write(fd, b, o, 2) : 0) };
    const fd = fsl.open(file, O.O_WRONLY | O.O_CREAT, 0o644);
    try {
      writeFully(stalls, fd, Buffer.from('abcdef'), 'append_write');
      throw new Error('did not throw');
    } catch (e) {
      expect(e).toBeInstanceOf(StepFailure);
      expect(e).toMatchObject({ code: 'io_error', step: 'append_write', bytesWritten: 2 });
    } finally {
      fsl.close(fd);
    }
  });
});

describe('readRange and readFileNoFollow', () => {
  it('reads from an offset up to the size seen', () => {
    const file = join(tempDir('durable-'), 'f');
    writeFileSync(file, '0123456789');
    const fd = openSync(file, 'r');
    try {
      expect(readRange(fsl, fd, 3, 7).toString()).toBe('3456');
      expect(readRange(fsl, fd, 8, 20).toString()).toBe('89'); // the file is shorter than the size asked
    } finally {
      closeSync(fd);
    }
  });

  it('null when absent; ELOOP for a final symlink; EISDIR for a directory', () => {
    const dir = tempDir('durable-');
    expect(readFileNoFollow(fsl, join(dir, 'none'))).toBeNull();
    writeFileSync(join(dir, 'real'), 'x');
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    expect(() => readFileNoFollow(fsl, join(dir, 'link'))).toThrow(
      expect.objectContaining({ code: 'ELOOP' }),
    );
    mkdirSync(join(dir, 'sub'));
    expect(() => readFileNoFollow(fsl, join(dir, 'sub'))).toThrow(
      expect.objectContaining({ code: 'EISDIR' }),
    );
  });

  it('maxBytes: a larger file is EFBIG and is not read; one at the bound is read whole', () => {
    const file = join(tempDir('durable-'), 'f');
    writeFileSync(file, '0123456789');
    expect(readFileNoFollow(fsl, file, { maxBytes: 10 })?.toString()).toBe('0123456789');
    expect(() => readFileNoFollow(fsl, file, { maxBytes: 9 })).toThrow(
      expect.objectContaining({ code: 'EFBIG' }),
    );
  });

  it('hostile: a FIFO at the path is EISDIR at once, never a wait for a writer (in a child with a deadline)', () => {
    const dir = tempDir('durable-fifo-');
    const fifo = join(dir, 'manifest.json');
    execFileSync('mkfifo', [fifo]);
    // a child (the built module: npm test builds first), so that a blocking open cannot hang the suite
    const built = pathToFileURL(join(process.cwd(), 'dist/src/durable/index.js')).href;
    const r = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const d = await import(${JSON.stringify(built)}); try { d.readFileNoFollow(d.nodeFsLayer(), ${JSON.stringify(fifo)}); console.log('read'); } catch (e) { console.log(e.code); }`,
      ],
      { encoding: 'utf8', timeout: 10_000, killSignal: 'SIGKILL' },
    );
    expect(r.signal).toBeNull(); // not killed at the deadline: the open did not wait
    expect(r.stdout).toBe('EISDIR\n');
  });
});

describe('fsyncDir', () => {
  it('fsyncs the directory (its new entries become durable); a failure is a StepFailure of the given step', () => {
    const dir = tempDir('durable-');
    const f = faultyFs();
    const fd = f.open(join(dir, 'new'), O.O_WRONLY | O.O_CREAT, 0o644);
    f.close(fd);
    expect(f.unsyncedEntries.has(join(dir, 'new'))).toBe(true);
    fsyncDir(f, dir, 'dir_fsync');
    expect(f.unsyncedEntries.has(join(dir, 'new'))).toBe(false);
    for (const at of [0, 1]) {
      const g = faultyFs();
      g.failAt = at;
      expect(() => fsyncDir(g, dir, 'runs_dir_fsync')).toThrow(
        expect.objectContaining({ step: 'runs_dir_fsync', code: 'io_error' }),
      );
    }
    expect(() => fsyncDir(fsl, join(dir, 'absent'), 'root_fsync')).toThrow(StepFailure);
  });
});

describe('errnoOf and causeOf', () => {
  it('errnoOf reads a string code, else empty; causeOf unwraps a StepFailure only', () => {
    const eio = Object.assign(new Error('boom'), { code: 'EIO' });
    expect(errnoOf(eio)).toBe('EIO');
    expect(errnoOf(new Error('x'))).toBe('');
    expect(errnoOf(null)).toBe('');
    expect(errnoOf({ code: 5 })).toBe('');
    const sf = new StepFailure('tmp_write', eio, 3);
    expect(causeOf(sf)).toBe(eio);
    expect(causeOf(eio)).toBe(eio);
    expect(sf.message).toBe('tmp_write failed: EIO');
    expect(sf.details).toEqual({ step: 'tmp_write', bytes_written: 3 });
  });
});
