/**
 * Dev-loop settings (effects): discovers and reads the layered settings files of a repository.
 *
 * Precedence, lowest first: built-in defaults → extension defaults → `.pi/dev-loop/defaults.*`
 * → `.devloops.*`. In each file layer the first existing candidate of bare name, `.yaml`, `.yml`,
 * `.json` is used (the reference's order); later candidates are reported as ignored.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { HandoffError } from '../errors/index.js';
import type { DevLoopsSettings } from './schema.js';
import {
  BUILT_IN_SETTINGS,
  checkSettings,
  EXTENSION_DEFAULT_SETTINGS,
  mergeSettingsLayers,
  parseSettingsText,
  settingsFormatOf,
} from './settings.js';

/** Names of the settings layers, lowest precedence first. */
export type SettingsLayer = 'built-in' | 'extension-defaults' | 'repo-defaults' | 'devloops';

/** One layer that contributed to the merged settings. */
export interface SettingsSource {
  readonly layer: SettingsLayer;
  /** The file read, absent for in-code layers. */
  readonly path?: string;
}

/** Result of {@link loadDevLoopsSettings}. */
export interface LoadedSettings {
  readonly settings: DevLoopsSettings;
  readonly sources: readonly SettingsSource[];
  /** Candidate files that exist but were shadowed by an earlier candidate of the same layer. */
  readonly ignored: readonly string[];
}

/** Options of {@link loadDevLoopsSettings}. */
export interface LoadSettingsOptions {
  /** Repository root holding `.devloops*` and `.pi/dev-loop/defaults*`. */
  readonly repoRoot: string;
  /** Include the shipped extension defaults layer (default true). */
  readonly extensionDefaults?: boolean;
  /** An explicit file used as the `.devloops` layer instead of discovery. */
  readonly settingsFile?: string;
}

/** Candidate suffixes of one file layer, in the reference's lookup order: the bare name first. */
const EXTENSIONS = ['', '.yaml', '.yml', '.json'] as const;

async function tryRead(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return undefined;
    throw new HandoffError(
      'settings_unreadable',
      `devloops-settings: cannot read ${path}: ${code ?? String(e)}`,
      {
        details: { file: path, reason: code ?? String(e) },
      },
    );
  }
}

interface FileLayer {
  readonly found?: { readonly path: string; readonly data: Record<string, unknown> };
  /** Existing candidates after the one used. */
  readonly ignored: readonly string[];
}

/** True when something other than a directory exists at `path` (a shadowed candidate is never read). */
async function existsAsFile(path: string): Promise<boolean> {
  try {
    return !(await stat(path)).isDirectory();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code !== 'ENOENT' && code !== 'ENOTDIR';
  }
}

async function readLayer(stem: string): Promise<FileLayer> {
  let found: FileLayer['found'];
  const ignored: string[] = [];
  for (const ext of EXTENSIONS) {
    const path = `${stem}${ext}`;
    if (found !== undefined) {
      if (await existsAsFile(path)) ignored.push(path);
      continue;
    }
    const text = await tryRead(path);
    if (text !== undefined) {
      found = { path, data: parseSettingsText(text, settingsFormatOf(basename(path)), path) };
    }
  }
  return found === undefined ? { ignored } : { found, ignored };
}

/**
 * Loads the merged settings of a repository.
 *
 * @example
 * ```ts
 * const { settings, sources } = await loadDevLoopsSettings({ repoRoot: '/work/repo' });
 * ```
 * @throws HandoffError `settings_unreadable` (a file exists but cannot be read), `settings_invalid`
 * (a file parses in no allowed format, is not a mapping, or sets a known key to a wrong type).
 */
export async function loadDevLoopsSettings(options: LoadSettingsOptions): Promise<LoadedSettings> {
  const layers: Record<string, unknown>[] = [BUILT_IN_SETTINGS as Record<string, unknown>];
  const sources: SettingsSource[] = [{ layer: 'built-in' }];
  const ignored: string[] = [];
  if (options.extensionDefaults !== false) {
    layers.push(EXTENSION_DEFAULT_SETTINGS as Record<string, unknown>);
    sources.push({ layer: 'extension-defaults' });
  }

  const repoLayer = await readLayer(join(options.repoRoot, '.pi', 'dev-loop', 'defaults'));
  const repoDefaults = repoLayer.found;
  ignored.push(...repoLayer.ignored);
  if (repoDefaults !== undefined) {
    checkSettings(repoDefaults.data, repoDefaults.path);
    layers.push(repoDefaults.data);
    sources.push({ layer: 'repo-defaults', path: repoDefaults.path });
  }

  if (options.settingsFile !== undefined) {
    const text = await tryRead(options.settingsFile);
    if (text === undefined) {
      throw new HandoffError(
        'settings_unreadable',
        `devloops-settings: cannot read ${options.settingsFile}: ENOENT`,
        {
          details: { file: options.settingsFile, reason: 'ENOENT' },
        },
      );
    }
    const data = parseSettingsText(
      text,
      settingsFormatOf(basename(options.settingsFile)),
      options.settingsFile,
    );
    checkSettings(data, options.settingsFile);
    layers.push(data);
    sources.push({ layer: 'devloops', path: options.settingsFile });
  } else {
    const layer = await readLayer(join(options.repoRoot, '.devloops'));
    const devloops = layer.found;
    ignored.push(...layer.ignored);
    if (devloops !== undefined) {
      checkSettings(devloops.data, devloops.path);
      layers.push(devloops.data);
      sources.push({ layer: 'devloops', path: devloops.path });
    }
  }

  return { settings: checkSettings(mergeSettingsLayers(layers), 'merged settings'), sources, ignored };
}
