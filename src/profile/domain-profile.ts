/**
 * Domain profiles (layer 1, pure data): what the cycle runtime treats as a target, how it checks
 * an edit, which statements are fenced and which words its reviewers use for blockers. The
 * records (run-contract/v1) are the same in every domain; a profile only changes how the runtime
 * finds and judges the work. The Lean profile is the default.
 */
import { HandoffError } from '../errors/index.js';
import { type BlockerClassTable, CODE_BLOCKER_CLASSES, LEAN_BLOCKER_CLASSES } from './blocker-classes.js';
import { LEAN_ESCAPE_HATCHES } from './escape-hatches.js';

/**
 * How the runtime finds and judges work in one domain.
 * - `markers`: words that mark a target in a file (whole-word match, one target per line);
 * - `errorComment`: the inline error-comment prefix the built-in scan reports (`-- error:` in Lean),
 *   or null;
 * - `diagnosticsCommand`: a check command (argv, no shell) whose exit status judges an edit and the
 *   checkpoint gate (0 = clean), or null for the marker scan alone;
 * - `leanHeaders`: whether `.lean` files get the built-in Lean statement fence; other extensions
 *   are fenced only by extractors given to the run (`headerExtractors`);
 * - `blockerClasses`: the reviewers' phrases for the run-contract/v1 blocker classes;
 * - `escapeHatches`: words that leave a target unsolved wherever they stand in its declaration,
 *   found token by token in Lean source (src/profile/escape-hatches.ts; a new `axiom` always
 *   counts), or null: the markers are matched per line (the code profile);
 * - `sourceExtensions`: the only files the built-in scan and check read (lower case, with the
 *   dot); a file git ignores is never read either.
 */
export interface DomainProfile {
  readonly name: string;
  readonly markers: readonly string[];
  readonly errorComment: string | null;
  readonly diagnosticsCommand: readonly string[] | null;
  readonly leanHeaders: boolean;
  readonly blockerClasses: BlockerClassTable;
  readonly escapeHatches: readonly string[] | null;
  readonly sourceExtensions: readonly string[];
}

/** The code profile's source extensions (what its built-in scan reads). */
export const CODE_SOURCE_EXTENSIONS: readonly string[] = Object.freeze([
  '.ts',
  '.tsx',
  '.mts',
  '.cts',
  '.js',
  '.jsx',
  '.mjs',
  '.cjs',
  '.py',
  '.pyi',
  '.rb',
  '.go',
  '.rs',
  '.java',
  '.kt',
  '.kts',
  '.scala',
  '.swift',
  '.c',
  '.h',
  '.cc',
  '.cpp',
  '.cxx',
  '.hpp',
  '.hh',
  '.cs',
  '.fs',
  '.php',
  '.lua',
  '.sh',
  '.bash',
  '.zsh',
  '.pl',
  '.r',
  '.jl',
  '.ex',
  '.exs',
  '.erl',
  '.hs',
  '.ml',
  '.mli',
  '.clj',
  '.dart',
  '.vue',
  '.svelte',
  '.sql',
  '.lean',
]);

function markerList(given: readonly string[] | undefined, fallback: string): readonly string[] {
  const list = given ?? [fallback];
  if (list.length === 0 || list.some((m) => m.trim() === ''))
    throw new HandoffError('usage', 'a profile needs at least one non-empty marker');
  return Object.freeze([...list]);
}

/** The names of the built-in profiles. */
export const PROFILE_NAMES = ['lean', 'code'] as const;
/** A built-in profile name. */
export type ProfileName = (typeof PROFILE_NAMES)[number];

/** Knobs of {@link leanProfile} and {@link codeProfile}. */
export interface ProfileOptions {
  /** Target markers (replaces the profile's default list). */
  readonly markers?: readonly string[];
  /** The check command run for edits and the checkpoint gate (argv, no shell). */
  readonly diagnosticsCommand?: readonly string[] | null;
  /** Lean only: whether `native_decide` is an escape hatch (`forbidden`) or allowed (default). */
  readonly nativeDecide?: 'allowed' | 'forbidden';
}

/**
 * The proof profile (the default): targets are `sorry` and its escape hatches (`admit`,
 * `sorryAx`, `native_decide` when `nativeDecide: 'forbidden'`, a new `axiom`), `-- error: …`
 * comments are errors, only `.lean` files are read, they are fenced by the built-in Lean header
 * extractor, blockers use the proof phrases.
 *
 * @example
 * ```ts
 * leanProfile().markers;       // ['sorry']
 * leanProfile().escapeHatches; // ['sorry', 'admit', 'sorryAx']
 * ```
 */
export function leanProfile(o: ProfileOptions = {}): DomainProfile {
  return Object.freeze({
    name: 'lean',
    markers: markerList(o.markers, 'sorry'),
    errorComment: '--',
    diagnosticsCommand: o.diagnosticsCommand ? Object.freeze([...o.diagnosticsCommand]) : null,
    leanHeaders: true,
    blockerClasses: LEAN_BLOCKER_CLASSES,
    escapeHatches: Object.freeze([
      ...new Set([
        ...markerList(o.markers, 'sorry'),
        ...LEAN_ESCAPE_HATCHES,
        ...(o.nativeDecide === 'forbidden' ? ['native_decide'] : []),
      ]),
    ]),
    sourceExtensions: Object.freeze(['.lean']),
  });
}

/**
 * The generic code profile: targets are `TODO(agent)` lines, the diagnostics command is a test
 * command judged by its exit status, no statement fence unless the run is given header extractors,
 * and blockers use the code phrases (`needs helper function`, `type error`, …).
 *
 * @example
 * ```ts
 * const p = codeProfile({ diagnosticsCommand: ['npm', 'test'] });
 * p.markers; // ['TODO(agent)']
 * ```
 */
export function codeProfile(o: ProfileOptions = {}): DomainProfile {
  return Object.freeze({
    name: 'code',
    markers: markerList(o.markers, 'TODO(agent)'),
    errorComment: null,
    diagnosticsCommand: o.diagnosticsCommand ? Object.freeze([...o.diagnosticsCommand]) : null,
    leanHeaders: false,
    blockerClasses: CODE_BLOCKER_CLASSES,
    escapeHatches: null,
    sourceExtensions: CODE_SOURCE_EXTENSIONS,
  });
}

/**
 * A built-in profile by name (`lean` | `code`) with its knobs; an unknown name is a `usage` error.
 *
 * @example
 * ```ts
 * profileByName('code', { markers: ['FIXME(agent)'] }).markers; // ['FIXME(agent)']
 * ```
 */
export function profileByName(name: string, o: ProfileOptions = {}): DomainProfile {
  if (name === 'lean') return leanProfile(o);
  if (name === 'code') return codeProfile(o);
  throw new HandoffError('usage', `unknown profile '${name}' (expected ${PROFILE_NAMES.join('|')})`);
}
