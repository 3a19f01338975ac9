/**
 * Settings: layered precedence (built-in → extension defaults → .pi/dev-loop/defaults.* →
 * .devloops.*) with real files in temp dirs, every accepted file form, and fail-closed parsing.
 */
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BUILT_IN_SETTINGS,
  buildHandoffEnvelope,
  loadDevLoopsSettings,
  mergeSettingsLayers,
  parseSettingsText,
} from '../../src/envelope/index.js';
import { isHandoffError } from '../../src/errors/index.js';
import { BASE_OPTS, bareBundle } from './helpers.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'envelope-settings-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const put = async (rel: string, text: string) => {
  const p = join(root, rel);
  await mkdir(join(p, '..'), { recursive: true });
  await writeFile(p, text);
  return p;
};

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (isHandoffError(e)) return e.code;
    throw e;
  }
  return 'no error';
}

describe('defaults', () => {
  it('with no files: built-in + extension defaults', async () => {
    const { settings, sources, ignored } = await loadDevLoopsSettings({ repoRoot: root });
    expect(sources).toEqual([{ layer: 'built-in' }, { layer: 'extension-defaults' }]);
    expect(ignored).toEqual([]);
    expect(settings.autonomy).toEqual({ stopAt: ['merge'], humanMergeOnly: false });
    expect(settings.refinement?.maxCopilotRounds).toBe(5);
    expect(settings.workflow).toMatchObject({ asyncStartMode: 'required', requireDraftFirst: true });
    expect(settings.gates?.draft?.mandatoryAngles).toEqual(['pr-description']);
    expect(settings.gates?.preApproval?.mandatoryAngles).toEqual(['pr-checklist-matrix']);
    expect(settings.gates?.draft).toMatchObject({ required: true, requireCi: true });
    expect(settings.gates?.preApproval?.required).toBe(true);
    expect((settings as Record<string, unknown>).queue).toEqual({
      maxParallel: 3,
      maxAutoFiledIssues: 10,
      reDispatchMaxRetries: 1,
    });
  });

  it('without extension defaults: built-in only', async () => {
    const { settings, sources } = await loadDevLoopsSettings({ repoRoot: root, extensionDefaults: false });
    expect(sources).toEqual([{ layer: 'built-in' }]);
    expect(settings).toEqual(BUILT_IN_SETTINGS);
  });

  it('loaded defaults make every strategy stop at merge (config resolver default), draft-first on', async () => {
    const { settings } = await loadDevLoopsSettings({ repoRoot: root });
    const env = buildHandoffEnvelope(bareBundle('local_implementation'), settings, {}, BASE_OPTS);
    expect(env.stopRules).toEqual(['merge']);
    expect(env.requireDraftFirst).toBe(true);
  });
});

describe('precedence', () => {
  it('.devloops over .pi/dev-loop/defaults over extension defaults over built-in', async () => {
    await put(
      '.pi/dev-loop/defaults.yaml',
      'refinement:\n  maxCopilotRounds: 3\nworkflow:\n  asyncStartMode: allowed\n',
    );
    await put('.devloops.yaml', 'refinement:\n  maxCopilotRounds: 2\n');
    const { settings, sources } = await loadDevLoopsSettings({ repoRoot: root });
    expect(settings.refinement?.maxCopilotRounds).toBe(2);
    expect(settings.workflow?.asyncStartMode).toBe('allowed');
    expect((settings.refinement as Record<string, unknown>).fanOut).toBe(3);
    expect(sources.map((s) => s.layer)).toEqual([
      'built-in',
      'extension-defaults',
      'repo-defaults',
      'devloops',
    ]);
    expect(sources.at(-1)?.path).toBe(join(root, '.devloops.yaml'));
  });

  it('mappings merge key by key; arrays replace', async () => {
    await put(
      '.devloops.json',
      JSON.stringify({
        gates: {
          draft: { angles: ['scope'], blockCleanOnFindingSeverities: ['must-fix', 'worth-fixing-now'] },
        },
      }),
    );
    const { settings } = await loadDevLoopsSettings({ repoRoot: root });
    expect(settings.gates?.draft?.angles).toEqual(['scope']);
    expect(settings.gates?.draft?.mandatoryAngles).toEqual(['pr-description']);
    expect(settings.gates?.preApproval?.angles).toHaveLength(12);
    const env = buildHandoffEnvelope(bareBundle('copilot_pr_followup'), settings, {}, BASE_OPTS);
    expect(env.gateConfig).toEqual({
      angles: ['pr-description', 'scope'],
      blockCleanOnFindingSeverities: ['high', 'medium'],
      requireCi: true,
    });
  });

  it('a null in a later layer removes the key: stopAt: null restores strategy defaults', async () => {
    await put('.devloops.yaml', 'autonomy:\n  stopAt: null\n');
    const { settings } = await loadDevLoopsSettings({ repoRoot: root });
    expect(settings.autonomy).toEqual({ humanMergeOnly: false });
    expect(
      buildHandoffEnvelope(bareBundle('local_implementation'), settings, {}, BASE_OPTS).stopRules,
    ).toEqual([]);
    expect(
      buildHandoffEnvelope(bareBundle('copilot_pr_followup'), settings, {}, BASE_OPTS).stopRules,
    ).toEqual(['draft-pr', 'merge']);
  });

  it('humanMergeOnly from .devloops reaches the envelope', async () => {
    await put('.devloops', 'autonomy:\n  humanMergeOnly: true\n  stopAt: []\n');
    const { settings } = await loadDevLoopsSettings({ repoRoot: root });
    expect(
      buildHandoffEnvelope(bareBundle('local_implementation'), settings, {}, BASE_OPTS).stopRules,
    ).toEqual(['merge']);
  });

  it('an explicit settingsFile replaces .devloops discovery but keeps repo defaults', async () => {
    await put('.pi/dev-loop/defaults.json', '{"refinement":{"maxCopilotRounds":4}}');
    await put('.devloops.yaml', 'refinement:\n  maxCopilotRounds: 1\n');
    const file = await put('elsewhere/custom.yml', 'workflow:\n  requireDraftFirst: false\n');
    const { settings, sources } = await loadDevLoopsSettings({ repoRoot: root, settingsFile: file });
    expect(settings.refinement?.maxCopilotRounds).toBe(4);
    expect(settings.workflow?.requireDraftFirst).toBe(false);
    expect(sources.at(-1)).toEqual({ layer: 'devloops', path: file });
  });

  it('candidate order bare, .yaml, .yml, .json (the reference order): the first wins, the rest are reported', async () => {
    await put('.devloops.yml', 'refinement:\n  maxCopilotRounds: 1\n');
    await put('.devloops.json', '{"refinement":{"maxCopilotRounds":2}}');
    let r = await loadDevLoopsSettings({ repoRoot: root });
    expect(r.settings.refinement?.maxCopilotRounds).toBe(1);
    expect(r.ignored).toEqual([join(root, '.devloops.json')]);
    await put('.devloops.yaml', 'refinement:\n  maxCopilotRounds: 0\n');
    r = await loadDevLoopsSettings({ repoRoot: root });
    expect(r.settings.refinement?.maxCopilotRounds).toBe(0);
    expect(r.ignored).toEqual([join(root, '.devloops.yml'), join(root, '.devloops.json')]);
    await put('.devloops', 'refinement:\n  maxCopilotRounds: 3\n');
    r = await loadDevLoopsSettings({ repoRoot: root });
    expect(r.settings.refinement?.maxCopilotRounds).toBe(3);
    expect(r.sources.at(-1)).toEqual({ layer: 'devloops', path: join(root, '.devloops') });
    expect(r.ignored).toEqual([
      join(root, '.devloops.yaml'),
      join(root, '.devloops.yml'),
      join(root, '.devloops.json'),
    ]);
  });

  it('a .devloops directory is not a settings file', async () => {
    await mkdir(join(root, '.devloops'));
    const r = await loadDevLoopsSettings({ repoRoot: root });
    expect(r.sources.map((s) => s.layer)).toEqual(['built-in', 'extension-defaults']);
  });
});

describe('file forms and failures', () => {
  it('a bare file holding JSON parses; an empty file is an empty layer', async () => {
    await put('.devloops', '{"autonomy": {"humanMergeOnly": true}}');
    expect((await loadDevLoopsSettings({ repoRoot: root })).settings.autonomy?.humanMergeOnly).toBe(true);
    await put('.devloops', '');
    expect((await loadDevLoopsSettings({ repoRoot: root })).settings.autonomy?.humanMergeOnly).toBe(false);
  });

  it('a bare file falls back to JSON when YAML refuses it', () => {
    // Duplicate keys: YAML refuses the document, JSON.parse accepts it (last key wins).
    const text = '{"refinement": {"maxCopilotRounds": 1}, "refinement": {"maxCopilotRounds": 7}}';
    expect(() => parseSettingsText(text, 'yaml', '.devloops.yaml')).toThrow(/not parseable/);
    expect(parseSettingsText(text, 'auto', '.devloops')).toEqual({ refinement: { maxCopilotRounds: 7 } });
  });

  it('a .json file is parsed as JSON only; a .yaml file as YAML only', async () => {
    await put('.devloops.json', 'refinement:\n  maxCopilotRounds: 2\n');
    expect(await codeOf(loadDevLoopsSettings({ repoRoot: root }))).toBe('settings_invalid');
    expect(() => parseSettingsText('a: [1', 'yaml', 'x.yaml')).toThrow(
      /devloops-settings: x.yaml: not parseable/,
    );
  });

  it('a top level that is not a mapping is refused', async () => {
    await put('.devloops.yaml', '- merge\n- draft-pr\n');
    expect(await codeOf(loadDevLoopsSettings({ repoRoot: root }))).toBe('settings_invalid');
    expect(() => parseSettingsText('42', 'auto', '.devloops')).toThrow(/must be a mapping/);
  });

  it('a known key with a wrong type is refused naming the key', async () => {
    await put('.devloops.yaml', 'autonomy:\n  stopAt: merge\n');
    try {
      await loadDevLoopsSettings({ repoRoot: root });
      throw new Error('no error');
    } catch (e) {
      expect(isHandoffError(e) && e.code).toBe('settings_invalid');
      expect(isHandoffError(e) && JSON.stringify(e.details.issues)).toContain('autonomy.stopAt');
    }
  });

  it('an unreadable file is settings_unreadable; a missing explicit file too', async () => {
    const p = await put('.devloops.yaml', 'a: 1\n');
    await chmod(p, 0o000);
    const canStillRead = process.getuid?.() === 0;
    if (!canStillRead)
      expect(await codeOf(loadDevLoopsSettings({ repoRoot: root }))).toBe('settings_unreadable');
    await chmod(p, 0o644);
    // Also provable as root: a symlink loop exists but cannot be read (ELOOP). While it is
    // shadowed by an earlier candidate it is only reported, never read.
    await symlink('.devloops.json', join(root, '.devloops.json'));
    const shadowed = await loadDevLoopsSettings({ repoRoot: root });
    expect(shadowed.ignored).toEqual([join(root, '.devloops.json')]);
    await rm(p);
    expect(await codeOf(loadDevLoopsSettings({ repoRoot: root }))).toBe('settings_unreadable');
    expect(
      await codeOf(loadDevLoopsSettings({ repoRoot: root, settingsFile: join(root, 'nope.yaml') })),
    ).toBe('settings_unreadable');
  });

  it('a "__proto__" key stays data and never pollutes prototypes', () => {
    const parsed = parseSettingsText('{"__proto__": {"polluted": true}, "a": 1}', 'json', 'x.json');
    const merged = mergeSettingsLayers([{}, parsed]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.hasOwn(merged, '__proto__')).toBe(true);
  });
});
