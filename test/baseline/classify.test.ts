/**
 * Pure custody rules: the status ordering of classifyEntry (including its ties), the overall
 * result, selector resolution and fail-closed baseline loading — no file system involved.
 */
import { describe, expect, it } from 'vitest';
import { checkEntryOf } from '../../src/baseline/classify.js';
import {
  BASELINE_ENTRY_STATUSES,
  BaselineCheckSchema,
  type BaselineEntry,
  baselineCheckExitCode,
  classifyEntry,
  type FileBaseline,
  type FileObservation,
  parseBaselineBytes,
  requireBaseline,
  resolveBaselineSelectors,
  summarizeBaselineStatuses,
} from '../../src/baseline/index.js';
import { isHandoffError } from '../../src/errors/index.js';
import { type Refusal, refusalOf } from './fixtures.js';

const H1 = 'a'.repeat(64);
const H2 = 'b'.repeat(64);

const present = (path: string, realpath = path, sha256 = H1, size = 3): BaselineEntry => ({
  path,
  realpath,
  exists: true,
  sha256,
  size,
});
const absent = (path: string, realpath = path): BaselineEntry => ({
  path,
  realpath,
  exists: false,
  sha256: null,
  size: null,
});
const nowPresent = (realpath: string, sha256 = H1, size = 3): FileObservation => ({
  kind: 'present',
  realpath,
  sha256,
  size,
});
const nowAbsent = (realpath: string): FileObservation => ({ kind: 'absent', realpath });
const nowError: FileObservation = { kind: 'error', detail: '/r/a: not a regular file' };

function thrown(f: () => unknown): Refusal {
  try {
    f();
  } catch (e) {
    if (isHandoffError(e)) return refusalOf(e);
    throw e;
  }
  throw new Error('expected a HandoffError');
}

describe('classifyEntry follows the spec order', () => {
  it('error first, whatever was stored, keeping the detail', () => {
    expect(classifyEntry(present('/r/a'), nowError)).toEqual({
      status: 'error',
      detail: '/r/a: not a regular file',
    });
    expect(classifyEntry(absent('/r/a'), nowError).status).toBe('error');
  });
  it('deleted: existed, now absent (a removed symlink is deleted, not retargeted)', () => {
    expect(classifyEntry(present('/r/a', '/r/t'), nowAbsent('/r/a'))).toEqual({ status: 'deleted' });
  });
  it('created: absent, now present at the same realpath', () => {
    expect(classifyEntry(absent('/r/a'), nowPresent('/r/a'))).toEqual({ status: 'created' });
  });
  it('retargeted before created: an absent path that now resolves elsewhere (reference v4.6.2+)', () => {
    expect(classifyEntry(absent('/r/a'), nowPresent('/r/elsewhere'))).toEqual({
      status: 'retargeted',
      detail: 'realpath /r/a -> /r/elsewhere',
    });
  });
  it('retargeted before the absent/absent short-circuit: a dangling link re-pointed to another missing target', () => {
    expect(classifyEntry(absent('/r/a', '/r/x'), nowAbsent('/r/y'))).toEqual({
      status: 'retargeted',
      detail: 'realpath /r/x -> /r/y',
    });
  });
  it('absent and still absent at the same realpath is unchanged', () => {
    expect(classifyEntry(absent('/r/a', '/r/x'), nowAbsent('/r/x'))).toEqual({ status: 'unchanged' });
  });
  it('retargeted wins over identical bytes and over modified bytes', () => {
    expect(classifyEntry(present('/r/a', '/r/x'), nowPresent('/r/y'))).toEqual({
      status: 'retargeted',
      detail: 'realpath /r/x -> /r/y',
    });
    expect(classifyEntry(present('/r/a', '/r/x'), nowPresent('/r/y', H2, 9)).status).toBe('retargeted');
  });
  it('modified: same realpath, other hash or other size', () => {
    expect(classifyEntry(present('/r/a'), nowPresent('/r/a', H2))).toEqual({ status: 'modified' });
    expect(classifyEntry(present('/r/a'), nowPresent('/r/a', H1, 4))).toEqual({ status: 'modified' });
  });
  it('same bytes at the same canonical path is unchanged', () => {
    expect(classifyEntry(present('/r/a'), nowPresent('/r/a'))).toEqual({ status: 'unchanged' });
  });
  it('every status is reachable', () => {
    const seen = new Set([
      classifyEntry(present('/a'), nowError).status,
      classifyEntry(present('/a'), nowAbsent('/a')).status,
      classifyEntry(absent('/a'), nowPresent('/a')).status,
      classifyEntry(present('/a'), nowPresent('/b')).status,
      classifyEntry(present('/a'), nowPresent('/a', H2)).status,
      classifyEntry(present('/a'), nowPresent('/a')).status,
    ]);
    expect([...seen].sort()).toEqual([...BASELINE_ENTRY_STATUSES].sort());
  });
});

describe('summarizeBaselineStatuses and exit codes', () => {
  it('match only when every entry is unchanged (and for no entries)', () => {
    expect(summarizeBaselineStatuses(['unchanged', 'unchanged'])).toBe('match');
    expect(summarizeBaselineStatuses([])).toBe('match');
  });
  it('any change is drift; any error is error, even together with drift', () => {
    for (const s of ['deleted', 'created', 'retargeted', 'modified'] as const) {
      expect(summarizeBaselineStatuses(['unchanged', s])).toBe('drift');
    }
    expect(summarizeBaselineStatuses(['modified', 'error', 'deleted'])).toBe('error');
  });
  it('exit codes 0 / 3 / 4', () => {
    expect([
      baselineCheckExitCode('match'),
      baselineCheckExitCode('drift'),
      baselineCheckExitCode('error'),
    ]).toEqual([0, 3, 4]);
  });
  it('checkEntryOf omits an absent detail; the check schema enforces result consistency', () => {
    expect(checkEntryOf('/a', { status: 'deleted' })).toEqual({ path: '/a', status: 'deleted' });
    const good = {
      schema: 'file-baseline-check/v1',
      result: 'error',
      entries: [
        { path: '/a', status: 'modified' },
        { path: '/b', status: 'error', detail: 'x' },
      ],
      unchecked: ['/c'],
    };
    expect(BaselineCheckSchema.safeParse(good).success).toBe(true);
    expect(BaselineCheckSchema.safeParse({ ...good, result: 'drift' }).success).toBe(false);
  });
});

describe('resolveBaselineSelectors', () => {
  const baseline: FileBaseline = {
    schema: 'file-baseline/v1',
    files: [present('/repo/a b', '/repo/a b'), absent('/repo/-x'), present('/repo/sub/c', '/repo/c2')],
  };
  it('exact stored path first, else absolute against cwd; baseline order, each once', () => {
    expect(resolveBaselineSelectors(baseline, ['sub/c', '/repo/a b', 'a b', '-x'], '/repo')).toEqual({
      selected: ['/repo/a b', '/repo/-x', '/repo/sub/c'],
      unknown: [],
    });
  });
  it('unknown selectors are reported in argument order; realpaths never match', () => {
    expect(resolveBaselineSelectors(baseline, ['/repo/c2', 'a b', 'nope'], '/elsewhere')).toEqual({
      selected: [],
      unknown: ['/repo/c2', 'a b', 'nope'],
    });
  });
});

describe('fail-closed baseline loading', () => {
  const ok: FileBaseline = { schema: 'file-baseline/v1', files: [present('/r/a')] };
  it('accepts a valid record', () => {
    expect(requireBaseline(ok)).toEqual(ok);
  });
  it.each([
    ['not an object', []],
    ['empty files', { schema: 'file-baseline/v1', files: [] }],
    ['wrong schema', { ...ok, schema: 'file-baseline/v2' }],
    ['relative path', { ...ok, files: [present('r/a', '/r/a')] }],
    ['relative realpath', { ...ok, files: [present('/r/a', 'r/a')] }],
    ['bad sha', { ...ok, files: [present('/r/a', '/r/a', 'A'.repeat(64))] }],
    ['negative size', { ...ok, files: [present('/r/a', '/r/a', H1, -1)] }],
    ['absent with hash', { ...ok, files: [{ ...absent('/r/a'), sha256: H1 }] }],
    ['duplicate path', { ...ok, files: [present('/r/a', '/r/x'), present('/r/a', '/r/y')] }],
    ['duplicate realpath', { ...ok, files: [present('/r/a', '/r/x'), present('/r/b', '/r/x')] }],
    [
      'a Windows drive path (valid as a record, not local on POSIX)',
      { ...ok, files: [present('C:\\r\\a', 'C:\\r\\a')] },
    ],
    [
      'a UNC path (valid as a record, not local on POSIX)',
      { ...ok, files: [present('\\\\srv\\share\\a', '\\\\srv\\share\\a')] },
    ],
    ['a local path whose realpath is a Windows path', { ...ok, files: [present('/r/a', 'D:/r/a')] }],
  ])('refuses %s as invalid_record with exit code 2', (_name, value) => {
    const e = thrown(() => requireBaseline(value));
    expect(e.code).toBe('invalid_record');
    expect(e.exit).toBe(2);
    expect(Array.isArray(e.details.issues)).toBe(true);
  });
  it('keeps unknown keys, at the root and in entries (the reference only checks the keys it knows)', () => {
    const extra = { ...ok, producer: 'lean4-skills 4.12', files: [{ ...present('/r/a'), inode: 7 }] };
    expect(requireBaseline(extra)).toEqual(extra);
  });
  it.skipIf(process.platform === 'win32')(
    'a Windows path is refused as not_local_path, never resolved against the cwd',
    () => {
      const e = thrown(() => requireBaseline({ ...ok, files: [present('C:\\r\\a', 'C:\\r\\a')] }));
      expect((e.details.issues as { code: string }[])[0]?.code).toBe('not_local_path');
    },
  );
  it('bytes: strict UTF-8 and strict JSON', () => {
    expect(parseBaselineBytes(Buffer.from(JSON.stringify(ok)))).toEqual(ok);
    expect(thrown(() => parseBaselineBytes(Buffer.from([0x7b, 0xff, 0x7d]))).code).toBe('invalid_record');
    expect(thrown(() => parseBaselineBytes(Buffer.from('{"schema":'))).code).toBe('invalid_record');
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(ok))]);
    expect(thrown(() => parseBaselineBytes(bom)).exit).toBe(2);
  });
});
