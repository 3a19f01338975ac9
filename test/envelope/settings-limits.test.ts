/**
 * Settings texts are bounded before they are parsed: nested deeper than MAX_RECORD_DEPTH (flow
 * collections, block mappings, compact sequences, JSON, YAML aliases) or longer than
 * MAX_SETTINGS_TEXT_LENGTH is `settings_invalid` with a stable `details.code` — never a RangeError,
 * never a process abort, also when parsed again in the same process — and yaml's warnings are
 * never printed. Properties are seeded and probe limit − 1, limit, limit + 1 and 100,000 levels.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadDevLoopsSettings, parseSettingsText } from '../../src/envelope/index.js';
import { MAX_SETTINGS_TEXT_LENGTH } from '../../src/envelope/settings.js';
import { isHandoffError } from '../../src/errors/index.js';
import { MAX_RECORD_DEPTH, nestingDepth } from '../../src/validation/index.js';
import { arbDepthAround, DEEP_RUNS } from '../canonical/deep.js';

const L = MAX_RECORD_DEPTH;

/** What parsing `text` gives: the value's depth, or the refusal's code and `details.code`. */
function outcome(text: string, format: 'yaml' | 'json' | 'auto'): string {
  try {
    return `depth ${nestingDepth(parseSettingsText(text, format, 'x'), L + 1)}`;
  } catch (e) {
    if (!isHandoffError(e)) throw e;
    return `${e.code} ${String(e.details.code ?? 'parse')}`;
  }
}

/** The texts of a settings mapping nested exactly `depth` deep (≥ 1), in several YAML and JSON forms. */
const forms = {
  /** `a: [[[…]]]` — one mapping and depth − 1 flow sequences. */
  flow: (depth: number) => `a: ${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}\n`,
  /** `{"a":{"a":…}}` — JSON objects (also YAML flow mappings). */
  json: (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`,
  /** `a: - - - x` on one line is not YAML; `a:\n  - - - x` nests compact block sequences. */
  compact: (depth: number) => (depth === 1 ? 'a: x\n' : `a:\n  ${'- '.repeat(depth - 1)}x\n`),
  /** one key per line, each indented one space more. */
  block: (depth: number) => `${Array.from({ length: depth }, (_, i) => `${' '.repeat(i)}k:`).join('\n')} v\n`,
};

describe('settings nesting is bounded by MAX_RECORD_DEPTH before any recursive parser runs', () => {
  it('every form parses up to the limit and is too_deep past it, far past it included (property)', () => {
    fc.assert(
      fc.property(
        arbDepthAround(L, 100_000).filter((d) => d >= 1),
        fc.constantFrom('flow', 'json', 'compact', 'block') as fc.Arbitrary<keyof typeof forms>,
        fc.constantFrom('yaml', 'auto', 'json') as fc.Arbitrary<'yaml' | 'auto' | 'json'>,
        (depth, form, format) => {
          // a block form 100,000 deep would be gigabytes of indentation: it is too_large first
          const d = form === 'block' ? Math.min(depth, 700) : depth;
          const text = forms[form](d);
          if (format === 'json' && form !== 'json') return; // not JSON text
          const expected =
            text.length > MAX_SETTINGS_TEXT_LENGTH
              ? 'settings_invalid too_large'
              : d <= L
                ? `depth ${d}`
                : 'settings_invalid too_deep';
          // twice: a second deep parse in one process once aborted it
          expect(outcome(text, format)).toBe(expected);
          expect(outcome(text, format)).toBe(expected);
        },
      ),
      DEEP_RUNS,
    );
  });

  it('counts brackets on yaml tokens: brackets inside quoted strings do not nest', () => {
    const quoted = `a: ["${'['.repeat(200)}", '${']'.repeat(200)}', [ "]" , [ "]" ] ] ]\n`;
    expect(outcome(quoted, 'yaml')).toBe('depth 4');
    const hidden = `a: ${'[ "]" , '.repeat(L + 1)}x${' ]'.repeat(L + 1)}\n`; // each "]" is a string
    expect(outcome(hidden, 'yaml')).toBe('settings_invalid too_deep');
  });

  it('aliases that stack shallow anchors into a deep value are too_deep', () => {
    const half = Math.ceil(L / 2) + 1;
    const text = `x: &x ${'['.repeat(half)}${']'.repeat(half)}\ny: ${'['.repeat(half)}*x${']'.repeat(half)}\n`;
    expect(outcome(text, 'yaml')).toBe('settings_invalid too_deep');
  });

  it('the refusal says what and where, with a stable details.code', () => {
    let thrown: unknown;
    try {
      parseSettingsText(forms.flow(100_000), 'auto', '.devloops');
    } catch (e) {
      thrown = e;
    }
    expect(isHandoffError(thrown) && thrown.code).toBe('settings_invalid');
    expect(isHandoffError(thrown) && thrown.details).toEqual({
      file: '.devloops',
      reason: 'nests deeper than 64 levels (MAX_RECORD_DEPTH)',
      code: 'too_deep',
    });
  });

  it('a settings file layer that nests too deep fails loading with settings_invalid', async () => {
    const root = await mkdtemp(join(tmpdir(), 'settings-limits-'));
    try {
      await writeFile(join(root, '.devloops.yaml'), forms.compact(100_000));
      await expect(loadDevLoopsSettings({ repoRoot: root })).rejects.toMatchObject({
        code: 'settings_invalid',
        details: { code: 'too_deep' },
      });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('settings text size is bounded by MAX_SETTINGS_TEXT_LENGTH', () => {
  it('parses a text of exactly the limit and refuses one character more as too_large', () => {
    const body = 'a: 1\n';
    const atLimit = body + '#'.repeat(MAX_SETTINGS_TEXT_LENGTH - body.length);
    expect(outcome(atLimit, 'yaml')).toBe('depth 1');
    expect(outcome(`${atLimit}#`, 'yaml')).toBe('settings_invalid too_large');
    expect(outcome(`${atLimit}#`, 'json')).toBe('settings_invalid too_large');
  });
});

describe("yaml's warnings are never printed", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('unresolved tags and collection keys parse without a process warning or console output', () => {
    const emit = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(parseSettingsText('a: !custom x\n', 'yaml', 'x.yaml')).toEqual({ a: 'x' });
    expect(parseSettingsText('? [k]\n: v\n', 'yaml', 'x.yaml')).toEqual({ '[ k ]': 'v' });
    expect(emit).not.toHaveBeenCalled();
    expect(warn).not.toHaveBeenCalled();
  });

  it('parse errors keep their line and column', () => {
    expect(() => parseSettingsText('a: [\n', 'yaml', 'x.yaml')).toThrow(
      /not parseable \(YAML: .* at line 2, column 1\)/,
    );
  });
});
