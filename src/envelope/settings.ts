/**
 * Dev-loop settings (pure part): the built-in and extension defaults, layer merging with the
 * documented precedence, and parsing of one settings text (YAML, JSON, or a bare file tried as
 * YAML first, then JSON).
 */
import { parse as parseYaml } from 'yaml';
import { HandoffError } from '../errors/index.js';
import { deepFreeze } from './deep-freeze.js';
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

function invalid(source: string, reason: string): HandoffError {
  return new HandoffError('settings_invalid', `devloops-settings: ${source}: ${reason}`, {
    details: { file: source, reason },
  });
}

/**
 * Parses one settings text into a mapping (an empty document is `{}`).
 *
 * @example
 * ```ts
 * parseSettingsText('autonomy:\n  humanMergeOnly: true\n', 'auto', '.devloops');
 * ```
 * @throws HandoffError `settings_invalid` when the text parses in no allowed format or is not a mapping.
 */
export function parseSettingsText(text: string, format: SettingsFormat, source: string): Rec {
  const attempts: Array<[string, (t: string) => unknown]> = [];
  if (format !== 'json') attempts.push(['YAML', (t) => parseYaml(t) as unknown]);
  if (format !== 'yaml') attempts.push(['JSON', (t) => JSON.parse(t) as unknown]);
  const failures: string[] = [];
  for (const [name, parse] of attempts) {
    let value: unknown;
    try {
      value = parse(text);
    } catch (e) {
      failures.push(`${name}: ${(e as Error).message.split('\n')[0]}`);
      continue;
    }
    if (value === null || value === undefined) return {};
    if (!isRecord(value))
      throw invalid(
        source,
        `top level must be a mapping, got ${Array.isArray(value) ? 'a list' : typeof value}`,
      );
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
