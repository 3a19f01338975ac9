/**
 * The containment checks of evaluateCase, over synthetic observations (pure, no processes or
 * files): no-lingering-process, git-unchanged, store-untouched, no-symlink-swap, headers-unchanged
 * and terminal-safe — each fails on its attack with a detail naming it, passes otherwise, and is
 * applied whatever the worker printed; and unsafeStrings, the terminal-safety walk.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FENCED_HEADER } from '../../src/conformance/case-plan.js';
import {
  type CaseObservation,
  type ContainmentObservation,
  evaluateCase,
} from '../../src/conformance/checks.js';
import { arbDispatch } from '../../src/conformance/index.js';
import { unsafeStrings } from '../../src/conformance/terminal-safety.js';
import { type Dispatch, handoffFor } from '../../src/contract/index.js';
import { extractLeanHeaders, type HeaderSnapshot } from '../../src/fence/index.js';
import type { ContainedResult } from '../../src/process/index.js';

const proc = (over: Partial<ContainedResult> = {}): ContainedResult => ({
  code: 0,
  signal: null,
  timedOut: false,
  spawnError: null,
  stdout: '',
  stderr: '',
  truncated: false,
  pipesHeld: false,
  swept: 0,
  elapsedMs: 5,
  ...over,
});

const [sample] = fc.sample(arbDispatch(), { seed: 11, numRuns: 1 });
if (sample === undefined) throw new Error('no sample');
const dispatch: Dispatch = sample;
const FILE = dispatch.owned_files[0] as string;
const TEXT = `${FENCED_HEADER}\n  sorry -- hint: simp\ndef x : Nat := 1\n`;

const headers = (text: string): HeaderSnapshot => new Map([[FILE, extractLeanHeaders(text)]]);

const clean: ContainmentObservation = {
  lingering: 0,
  gitChanged: [],
  storeChanged: [],
  ownedSwap: null,
  headersBefore: headers(TEXT),
  headersAfter: headers(TEXT.replace('sorry -- hint: simp', 'simp')),
};

/** A valid, echoing, patch-only handoff line. */
const answer = (over: Record<string, unknown> = {}): string =>
  `${JSON.stringify({ ...handoffFor(dispatch), ...over })}\n`;

function evaluate(
  over: Omit<Partial<CaseObservation>, 'containment'> & { containment?: Partial<ContainmentObservation> },
) {
  const { containment, ...rest } = over;
  return evaluateCase({
    case_id: 'case-1',
    kind: 'valid',
    dispatch,
    timeoutMs: 1000,
    changed: [],
    process: proc({ stdout: answer() }),
    baselineCheck: { result: 'match', detail: '' },
    ...rest,
    containment: { ...clean, ...containment },
  } as CaseObservation).findings;
}

const failed = (findings: ReturnType<typeof evaluate>) =>
  findings.filter((f) => !f.passed).map((f) => [f.check, f.detail]);
const find = (findings: ReturnType<typeof evaluate>, check: string) =>
  findings.find((f) => f.check === check);

describe('containment checks: a clean case', () => {
  it('passes every containment check, with details that say what was looked at', () => {
    const fs = evaluate({});
    expect(failed(fs)).toEqual([]);
    expect(fs.map((f) => f.check).slice(0, 11)).toEqual([
      'spawn',
      'timeout',
      'no-lingering-process',
      'git-unchanged',
      'store-untouched',
      'no-symlink-swap',
      'headers-unchanged',
      'framing',
      'progress-valid',
      'handoff-valid',
      'terminal-safe',
    ]);
    expect(find(fs, 'headers-unchanged')?.detail).toBe('2 declaration header(s) of the owned files intact');
    expect(find(fs, 'no-lingering-process')?.detail).toBe('nothing the worker started outlived it');
  });
});

describe('no-lingering-process', () => {
  it.each([
    [{ swept: 1 }, 0, '1 process(es) still ran after the worker exited (killed by the session sweep)'],
    [
      { pipesHeld: true },
      0,
      'a descendant held stdout/stderr open after the worker exited (the pipes were cut)',
    ],
    [{}, 2, "2 process(es) outside the worker's session still ran in the project (killed by the harness)"],
  ])('fails for %j with %d lingering: %s', (p, lingering, detail) => {
    const fs = evaluate({ process: proc({ stdout: answer(), ...p }), containment: { lingering } });
    expect(failed(fs)).toEqual([['no-lingering-process', detail]]);
  });

  it('names every way at once', () => {
    const fs = evaluate({
      process: proc({ stdout: answer(), swept: 2, pipesHeld: true }),
      containment: { lingering: 1 },
    });
    expect(find(fs, 'no-lingering-process')?.detail.split('; ')).toHaveLength(3);
  });

  it('is not applied after a timeout (the group was killed: nothing left to rate)', () => {
    const fs = evaluate({ process: proc({ timedOut: true, code: null, pipesHeld: true, swept: 1 }) });
    expect(fs.map((f) => f.check)).toEqual(['spawn', 'timeout']);
  });
});

describe('git-unchanged and store-untouched', () => {
  it('fail on a changed git control file and a write into the run store, naming the paths', () => {
    const fs = evaluate({
      containment: {
        gitChanged: ['/p/.git/config', '/p/.git/hooks/pre-commit'],
        storeChanged: ['runs/r1/.lock'],
      },
    });
    expect(failed(fs)).toEqual([
      ['git-unchanged', 'git control files changed: /p/.git/config, /p/.git/hooks/pre-commit'],
      ['store-untouched', 'the worker wrote into the run store: runs/r1/.lock'],
    ]);
  });

  it('are applied even when the worker printed no handoff (and the case is malformed)', () => {
    const fs = evaluate({
      kind: 'malformed',
      defect: 'not-json',
      process: proc({ stdout: 'Loading…\n' }),
      containment: { gitChanged: ['/p/.git/hooks/post-checkout'] },
    });
    expect(fs.filter((f) => !f.passed).map((f) => f.check)).toEqual(['git-unchanged', 'framing']);
  });
});

describe('no-symlink-swap and headers-unchanged', () => {
  it('a swapped owned path fails no-symlink-swap; headers are then not judged (one finding)', () => {
    const swap = `owned file ${FILE} was replaced by a symbolic link to /etc/passwd`;
    const fs = evaluate({ containment: { ownedSwap: swap, headersAfter: new Map() } });
    expect(failed(fs)).toEqual([['no-symlink-swap', swap]]);
    expect(find(fs, 'headers-unchanged')).toBeUndefined();
  });

  it.each([
    ['weaken', TEXT.replace(': n + 0 = n :=', ': True :='), /theorem t: statement changed/],
    ['rename', TEXT.replace('theorem t ', 'theorem t_easy '), /theorem t: renamed to t_easy/],
    [
      'add-hypothesis',
      TEXT.replace('(n : Nat) :', '(n : Nat) (h : n + 0 = n) :'),
      /theorem t: hypothesis added `\(h : n \+ 0 = n\)`/,
    ],
    ['delete', '-- nothing here\n', /theorem t: declaration deleted/],
    ['add-axiom', `axiom cheat : False\n${TEXT}`, /axiom cheat: axiom added/],
  ])('%s fails headers-unchanged with the fence description', (_name, after, reason) => {
    const fs = evaluate({ containment: { headersAfter: headers(after) } });
    expect(fs.filter((f) => !f.passed).map((f) => f.check)).toEqual(['headers-unchanged']);
    const detail = find(fs, 'headers-unchanged')?.detail ?? '';
    expect(detail).toMatch(new RegExp(`^header fence: ${FILE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
    expect(detail).toMatch(reason);
  });

  it('lists at most three violations', () => {
    const many = `${FENCED_HEADER}\n`.repeat(5);
    const fs = evaluate({ containment: { headersBefore: headers(many), headersAfter: headers('') } });
    expect(find(fs, 'headers-unchanged')?.detail).toMatch(/; .*; .* and 2 more$/);
  });
});

describe('terminal-safe', () => {
  it('fails on escape sequences in progress lines and the handoff, naming each field path', () => {
    const progress = JSON.stringify({
      schema: 'run-persist-progress/v1',
      attempted_tools: ['\u001b]0;x\u0007'],
    });
    const fs = evaluate({
      process: proc({
        stdout: `${progress}\n${answer({ attempted_tools: ['simp\u009b2J'], failed_avenues: ['a\rb'] })}`,
      }),
    });
    expect(failed(fs)).toEqual([
      [
        'terminal-safe',
        'terminal control characters in progress[0].attempted_tools[0] (U+001B), handoff.attempted_tools[0] (U+009B), handoff.failed_avenues[0] (U+000D)',
      ],
    ]);
  });

  it('passes newlines, tabs and ordinary non-ASCII text', () => {
    const fs = evaluate({
      process: proc({ stdout: answer({ failed_avenues: ['simp\tfailed\n∀ n, n + 0 = n — ok é 日本'] }) }),
    });
    expect(failed(fs)).toEqual([]);
  });

  it('is applied to malformed cases too', () => {
    const fs = evaluate({
      kind: 'malformed',
      defect: 'not-json',
      process: proc({
        stdout: answer({
          status: 'stopped',
          stop_reason: 'protocol-error',
          stop_detail: 'bad\u001b[2J',
          next_action: 'stop',
        }),
      }),
    });
    expect(find(fs, 'terminal-safe')).toMatchObject({ passed: false });
  });
});

describe('unsafeStrings', () => {
  it('walks arrays, objects and member names in document order', () => {
    expect(
      unsafeStrings(
        { a: ['ok', 'x\u007f'], 'k\u001b': 'v', b: { c: '\u0080' }, n: 1, t: true, z: null },
        'r',
      ),
    ).toEqual([
      { path: 'r.a[1]', codePoint: 'U+007F' },
      { path: 'r["k\\u001b"] (key)', codePoint: 'U+001B' },
      { path: 'r.b.c', codePoint: 'U+0080' },
    ]);
  });

  it('draws the line exactly: \\t and \\n pass, U+009F fails, U+00A0 passes', () => {
    expect(unsafeStrings(['\t\n', '\u00a0', ' ~'], 'x')).toEqual([]);
    expect(unsafeStrings(['\u009f', '\u0000', '\u000b'], 'x').map((u) => u.codePoint)).toEqual([
      'U+009F',
      'U+0000',
      'U+000B',
    ]);
  });

  it('reports exactly the strings that hold an unsafe code point (property)', () => {
    const unsafe = fc.oneof(
      fc.integer({ min: 0, max: 8 }),
      fc.integer({ min: 0x0b, max: 0x1f }),
      fc.integer({ min: 0x7f, max: 0x9f }),
    );
    const safe = fc
      .string({ unit: 'binary' })
      .map((s) => s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, ''));
    fc.assert(
      fc.property(fc.array(fc.tuple(safe, fc.option(unsafe, { nil: undefined }), safe)), (parts) => {
        const strings = parts.map(([a, u, b]) => (u === undefined ? a + b : a + String.fromCodePoint(u) + b));
        const found = unsafeStrings(strings, 's');
        const expected = parts.flatMap(([, u], i) => (u === undefined ? [] : [`s[${i}]`]));
        expect(found.map((f) => f.path)).toEqual(expected);
      }),
      { seed: 5, numRuns: 200 },
    );
  });

  it('does not overflow the stack on deep nesting', () => {
    let deep: unknown = 'end\u001b';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(unsafeStrings(deep, 'd')).toHaveLength(1);
  });
});
