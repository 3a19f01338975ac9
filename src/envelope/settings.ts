/**
 * Dev-loop settings (pure part): the built-in and extension defaults, layer merging with the
 * documented precedence, and parsing of one settings text (YAML, JSON, or a bare file tried as
 * YAML first, then JSON).
 *
 * A settings text is bounded before it is parsed: at most {@link MAX_SETTINGS_TEXT_LENGTH}
 * characters, and nested at most `MAX_RECORD_DEPTH` levels — for YAML measured on yaml's own
 * tokens and concrete syntax tree (both built without recursion) before its recursive composer
 * runs, for JSON and for the parsed value (aliases included) measured on the value. The YAML
 * parser's warnings are dropped, never printed.
 */
import { Composer, CST, Lexer, Parser } from 'yaml';
import { deepFreeze } from '../canonical/index.js';
import { HandoffError } from '../errors/index.js';
import { MAX_RECORD_DEPTH, nestingDepth } from '../validation/index.js';
import { isRecord } from './guards.js';
import { type DevLoopsSettings, DevLoopsSettingsSchema } from './schema.js';

type Rec = Record<string, unknown>;

/**
 * Built-in defaults (lowest layer): what the config resolver falls back to with no file at all.
 *
 * @example
 * ```ts
 * BUILT_IN_SETTINGS.autonomy; // { stopAt: ['merge'], humanMergeOnly: false }
 * ```
 */
export const BUILT_IN_SETTINGS: Readonly<DevLoopsSettings> = deepFreeze<DevLoopsSettings>({
  autonomy: { stopAt: ['merge'], humanMergeOnly: false },
  refinement: { maxCopilotRounds: 5 },
  workflow: { asyncStartMode: 'required' },
});

/**
 * The shipped extension defaults (second layer), equivalent to the reference's
 * `extension-defaults.yaml`.
 *
 * @example
 * ```ts
 * EXTENSION_DEFAULT_SETTINGS.gates?.draft?.mandatoryAngles; // ['pr-description']
 * ```
 */
export const EXTENSION_DEFAULT_SETTINGS: Readonly<DevLoopsSettings> = deepFreeze<DevLoopsSettings>({
  strategy: { default: 'local-first' },
  inputSource: { default: 'tracker' },
  refinement: {
    fanOut: 3,
    mode: 'parallel',
    maxCopilotRounds: 5,
    stopOnLowSignal: false,
    lowSignalRoundThreshold: 3,
    lowSignalMaxComments: 2,
    roles: ['scope', 'coverage', 'dry', 'kiss'],
  },
  gates: {
    draft: {
      angles: [
        'scope',
        'coverage',
        'correctness',
        'ci-guard',
        'contract-surface',
        'link-check',
        'config-drift',
        'gate-evidence',
        'no-op',
        'input-validation',
        'packaging-runtime',
        'state-concurrency',
        'renderer-security',
        'determinism',
        'pr-comments',
      ],
      required: true,
      requireCi: true,
      mandatoryAngles: ['pr-description'],
    },
    preApproval: {
      angles: [
        'dry',
        'kiss',
        'yagni',
        'srp',
        'soc',
        'deep',
        'ocp',
        'lsp',
        'isp',
        'dip',
        'docs',
        'pr-checklist-matrix',
      ],
      required: true,
      mandatoryAngles: ['pr-checklist-matrix'],
    },
  },
  autonomy: { stopAt: ['merge'], humanMergeOnly: false },
  workflow: {
    asyncStartMode: 'required',
    requireRetrospective: false,
    requireRetrospectiveGate: false,
    requireDraftFirst: true,
    devModeDefault: false,
  },
  localPlanning: { plansDir: 'docs/phases/' },
  localImplementation: { lightMode: { enabled: true, maxFiles: 2, maxLines: 100 } },
  queue: { maxParallel: 3, maxAutoFiledIssues: 10, reDispatchMaxRetries: 1 },
});

function setOwn(target: Rec, key: string, value: unknown): void {
  // defineProperty: a "__proto__" key from a file stays plain data, never a prototype.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function cloneJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(cloneJson);
  if (!isRecord(v)) return v;
  const out: Rec = {};
  for (const k of Object.keys(v)) setOwn(out, k, cloneJson(v[k]));
  return out;
}

function mergeTwo(base: Rec, over: Rec): Rec {
  const out = cloneJson(base) as Rec;
  for (const k of Object.keys(over)) {
    const o = over[k];
    if (o === null) {
      delete out[k];
      continue;
    }
    const b = Object.hasOwn(out, k) ? out[k] : undefined;
    setOwn(out, k, isRecord(o) ? mergeTwo(isRecord(b) ? b : {}, o) : cloneJson(o));
  }
  return out;
}

/**
 * Merges settings layers, lowest precedence first: mappings merge key by key, arrays and scalars
 * of a later layer replace earlier ones, and a `null` in a later layer removes the key (so
 * `autonomy: { stopAt: null }` restores the strategy stop-rule defaults).
 *
 * @example
 * ```ts
 * mergeSettingsLayers([{ a: { x: 1, y: [1] } }, { a: { y: [2] } }]); // { a: { x: 1, y: [2] } }
 * ```
 */
export function mergeSettingsLayers(layers: readonly Readonly<Rec>[]): Rec {
  return layers.reduce<Rec>((acc, layer) => mergeTwo(acc, layer), {});
}

/** How a settings text is parsed. `auto` (a bare file) tries YAML first, then JSON. */
export type SettingsFormat = 'yaml' | 'json' | 'auto';

/**
 * The format of a settings file name: `.yaml`/`.yml` → yaml, `.json` → json, anything else auto.
 *
 * @example
 * ```ts
 * settingsFormatOf('.devloops'); // 'auto'
 * ```
 */
export function settingsFormatOf(fileName: string): SettingsFormat {
  if (/\.ya?ml$/i.test(fileName)) return 'yaml';
  if (/\.json$/i.test(fileName)) return 'json';
  return 'auto';
}

/**
 * The longest settings text parsed (256 KiB of characters; real settings files are a few KB):
 * longer texts are `settings_invalid` with `details.code` `too_large`, before any parsing.
 *
 * @example
 * ```ts
 * parseSettingsText('#'.repeat(MAX_SETTINGS_TEXT_LENGTH + 1), 'yaml', 'x.yaml'); // throws settings_invalid
 * ```
 */
export const MAX_SETTINGS_TEXT_LENGTH = 256 * 1024;

function invalid(source: string, reason: string, code?: 'too_deep' | 'too_large'): HandoffError {
  return new HandoffError('settings_invalid', `devloops-settings: ${source}: ${reason}`, {
    details: code === undefined ? { file: source, reason } : { file: source, reason, code },
  });
}

/** Thrown inside the YAML attempt when the text nests deeper than the limit. */
class TooDeep extends Error {}

const COLLECTIONS: ReadonlySet<string> = new Set(['block-map', 'block-seq', 'flow-collection']);

/** True when the concrete syntax tree nests collections deeper than `limit` (an explicit stack). */
function cstTooDeep(tokens: readonly CST.Token[], limit: number): boolean {
  const nodes: (CST.Token | null | undefined)[] = [...tokens];
  const levels: number[] = tokens.map(() => 0);
  while (nodes.length > 0) {
    const node = nodes.pop();
    const level = levels.pop() as number;
    if (node === null || node === undefined) continue;
    if (node.type === 'document') {
      nodes.push(node.value);
      levels.push(level);
    } else if (COLLECTIONS.has(node.type) && 'items' in node) {
      if (level + 1 > limit) return true;
      for (const item of node.items) {
        nodes.push(item.key, item.value);
        levels.push(level + 1, level + 1);
      }
    }
  }
  return false;
}

/** `line L, column C` (1-based) of a character offset. */
function positionOf(text: string, offset: number): string {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return `line ${line}, column ${offset - start + 1}`;
}

/**
 * Parses one YAML document with its nesting bounded before yaml's recursive composer sees it: the
 * flow brackets are counted on the lexer's tokens (so quoted brackets do not count), and the
 * concrete syntax tree — built by yaml's non-recursive parser — is measured with an explicit
 * stack. Warnings are dropped (yaml would print them, with raw input, to stderr).
 */
function parseYamlBounded(text: string, limit: number): unknown {
  const parser = new Parser();
  const tokens: CST.Token[] = [];
  let flow = 0;
  for (const lexeme of new Lexer().lex(text)) {
    const type = CST.tokenType(lexeme);
    if (type === 'flow-map-start' || type === 'flow-seq-start') {
      if (++flow > limit) throw new TooDeep();
    } else if ((type === 'flow-map-end' || type === 'flow-seq-end') && flow > 0) flow--;
    for (const token of parser.next(lexeme)) tokens.push(token);
  }
  for (const token of parser.end()) tokens.push(token);
  if (cstTooDeep(tokens, limit)) throw new TooDeep();
  const docs = [...new Composer({ logLevel: 'error' }).compose(tokens, true, text.length)];
  const doc = docs[0];
  if (doc === undefined) return null;
  if (docs.length > 1) throw new Error('Source contains multiple documents');
  const error = doc.errors[0];
  if (error !== undefined) throw new Error(`${error.message} at ${positionOf(text, error.pos[0])}`);
  return doc.toJS();
}

/**
 * Parses one settings text into a mapping (an empty document is `{}`). The text is bounded first:
 * longer than {@link MAX_SETTINGS_TEXT_LENGTH} is `too_large`, nested deeper than
 * `MAX_RECORD_DEPTH` is `too_deep` (both `settings_invalid`, the reason in `details.code`), checked
 * without recursion before any recursive parser or walker sees the text. YAML warnings are
 * dropped, never printed.
 *
 * @example
 * ```ts
 * parseSettingsText('autonomy:\n  humanMergeOnly: true\n', 'auto', '.devloops');
 * ```
 * @throws HandoffError `settings_invalid` when the text is too large or too deep, parses in no
 * allowed format, or is not a mapping.
 */
export function parseSettingsText(text: string, format: SettingsFormat, source: string): Rec {
  if (text.length > MAX_SETTINGS_TEXT_LENGTH)
    throw invalid(source, `longer than ${MAX_SETTINGS_TEXT_LENGTH} characters`, 'too_large');
  const tooDeep = (): HandoffError =>
    invalid(source, `nests deeper than ${MAX_RECORD_DEPTH} levels (MAX_RECORD_DEPTH)`, 'too_deep');
  const attempts: Array<[string, (t: string) => unknown]> = [];
  if (format !== 'json') attempts.push(['YAML', (t) => parseYamlBounded(t, MAX_RECORD_DEPTH)]);
  if (format !== 'yaml') attempts.push(['JSON', (t) => JSON.parse(t) as unknown]);
  const failures: string[] = [];
  for (const [name, parse] of attempts) {
    let value: unknown;
    try {
      value = parse(text);
    } catch (e) {
      if (e instanceof TooDeep) throw tooDeep();
      failures.push(`${name}: ${String((e as Error)?.message ?? e).split('\n')[0]}`);
      continue;
    }
    if (value === null || value === undefined) return {};
    if (!isRecord(value))
      throw invalid(
        source,
        `top level must be a mapping, got ${Array.isArray(value) ? 'a list' : typeof value}`,
      );
    // JSON (parsed without recursion by V8) and YAML aliases are measured on the value itself
    if (nestingDepth(value, MAX_RECORD_DEPTH) > MAX_RECORD_DEPTH) throw tooDeep();
    return cloneJson(value) as Rec;
  }
  throw invalid(source, `not parseable (${failures.join('; ')})`);
}

/**
 * Checks the known keys of settings (a `null` value counts as an absent key).
 *
 * @example
 * ```ts
 * checkSettings({ autonomy: { stopAt: ['merge'] } }, 'merged');
 * ```
 * @throws HandoffError `settings_invalid` listing every bad key.
 */
export function checkSettings(settings: unknown, source: string): DevLoopsSettings {
  if (!isRecord(settings)) throw invalid(source, 'top level must be a mapping');
  // `null` marks a key this layer removes (see mergeSettingsLayers), not a value to type-check.
  const r = DevLoopsSettingsSchema.safeParse(mergeSettingsLayers([settings]));
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
  throw new HandoffError(
    'settings_invalid',
    `devloops-settings: ${source}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    { details: { file: source, issues } },
  );
}
