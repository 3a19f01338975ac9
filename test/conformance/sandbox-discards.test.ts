/**
 * What a sandboxed worker tried, as the checks report it (pure): the layer plan's discarded names
 * sorted into git control files, the run store, owned-path swaps and everything else; and
 * evaluateCase failing the check each belongs to with `writes outside the owned files (discarded
 * by the sandbox): …` — valid cases under `unowned-unchanged`, malformed ones under
 * `no-file-changed` — while a sandboxed case that discarded nothing passes them all.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CaseObservation, evaluateCase } from '../../src/conformance/checks.js';
import { arbDispatch } from '../../src/conformance/index.js';
import {
  classifyDiscards,
  discardedDetail,
  NO_DISCARDS,
  type SandboxDiscards,
} from '../../src/conformance/sandbox-discards.js';
import { type Dispatch, handoffFor, protocolErrorHandoff } from '../../src/contract/index.js';
import type { ContainedResult } from '../../src/process/index.js';

describe('classifyDiscards', () => {
  it('sorts each name into the check it belongs to', () => {
    expect(
      classifyDiscards(
        [
          '.git/config',
          '.git/hooks/ (directory replaced)',
          '.handoff/runs/r/events.jsonl',
          'B.lean',
          'B.lean (deleted)',
          'f0/a (symlink)',
          'f0/a',
          'f0/b (fifo)',
          '~/.bashrc',
          '~/x (symlink)',
          '.gitignore',
        ],
        { owned: new Set(['f0/a']), storeDir: '.handoff' },
      ),
    ).toEqual({
      git: ['.git/config', '.git/hooks/ (directory replaced)'],
      store: ['.handoff/runs/r/events.jsonl'],
      ownedSwap: ['f0/a (symlink)'],
      other: [
        'B.lean',
        'B.lean (deleted)',
        'f0/a',
        'f0/b (fifo)',
        '~/.bashrc',
        '~/x (symlink)',
        '.gitignore',
      ],
    });
  });

  it('without a run store, .handoff is just another file', () => {
    expect(classifyDiscards(['.handoff/x'], { owned: new Set(), storeDir: null }).other).toEqual([
      '.handoff/x',
    ]);
  });

  it('names at most three, then how many more', () => {
    expect(discardedDetail(['a', 'b', 'c', 'd', 'e'])).toBe(
      'writes outside the owned files (discarded by the sandbox): a, b, c and 2 more',
    );
  });
});

const [sample] = fc.sample(arbDispatch(), { seed: 11, numRuns: 1 });
if (sample === undefined) throw new Error('no sample');
const dispatch: Dispatch = sample;
const proc = (stdout: string): ContainedResult => ({
  code: 0,
  signal: null,
  timedOut: false,
  spawnError: null,
  stdout,
  stderr: '',
  truncated: false,
  pipesHeld: false,
  swept: 0,
  elapsedMs: 5,
});

function failedWith(kind: 'valid' | 'malformed', discarded: SandboxDiscards) {
  const handoff =
    kind === 'valid'
      ? handoffFor(dispatch)
      : protocolErrorHandoff('this is not a dispatch\n', 'stdin is not JSON');
  return evaluateCase({
    case_id: 'case-1',
    kind,
    ...(kind === 'malformed' ? { defect: 'not-json' } : {}),
    dispatch,
    timeoutMs: 1000,
    changed: [],
    process: proc(`${JSON.stringify(handoff)}\n`),
    baselineCheck: { result: 'match', detail: '' },
    containment: {
      lingering: 0,
      gitChanged: [],
      storeChanged: [],
      ownedSwap: null,
      headersBefore: new Map(),
      headersAfter: new Map(),
      discarded,
    },
  } as CaseObservation)
    .findings.filter((f) => !f.passed)
    .map((f) => [f.check, f.detail]);
}

describe('evaluateCase with a sandboxed worker', () => {
  const d = 'writes outside the owned files (discarded by the sandbox): ';
  const tried: SandboxDiscards = {
    git: ['.git/config'],
    store: ['.handoff/runs/r/.lock'],
    ownedSwap: ['f0/a (symlink)'],
    other: ['B.lean', '~/.bashrc'],
  };

  it('passes the containment checks when nothing was discarded', () => {
    expect(failedWith('valid', NO_DISCARDS)).toEqual([]);
  });

  it('a valid case: each discarded write fails its check', () => {
    expect(failedWith('valid', tried)).toEqual([
      ['git-unchanged', `${d}.git/config`],
      ['store-untouched', `${d}.handoff/runs/r/.lock`],
      ['no-symlink-swap', `${d}f0/a (symlink)`],
      ['unowned-unchanged', `${d}B.lean, ~/.bashrc`],
    ]);
  });

  it('a malformed case: other writes fail no-file-changed', () => {
    expect(failedWith('malformed', { ...NO_DISCARDS, other: ['B.lean'] })).toEqual([
      ['no-file-changed', `${d}B.lean`],
    ]);
  });
});
