/**
 * `--fence-grant KIND[=DECL]` (repeatable) and `--native-decide allow|forbid` for `handoff run`
 * (pure: option values → run options, or a usage error naming the closest known value). A grant
 * lets proof work add what the statement fence otherwise refuses (docs/fence.md § What proof work
 * may add): `--fence-grant new-definitions` any new `def`/`abbrev`/…, `--fence-grant
 * new-definitions=helper` only a new declaration named `helper`, `--fence-grant set-option=Foo.t`
 * only a `set_option` standing before the fenced declaration `Foo.t`. KIND is a grant of the
 * library (`COMMAND_CLASS_GRANTS`, with or without its `fence:` prefix); axioms, `#exit`,
 * `#guard_msgs` and context commands have none. `--native-decide forbid` makes `native_decide` an
 * escape hatch of the lean profile (a target, never `solved`); the default is the profile's
 * policy (allowed).
 */

import { HandoffError } from '../errors/index.js';
import { COMMAND_CLASS_GRANTS } from '../fence/index.js';
import type { OptionSpec, ParsedArgs } from './args.js';
import { didYouMean } from './did-you-mean.js';

/** The two options, to spread into `handoff run`'s option table. */
export const FENCE_OPTIONS = {
  'fence-grant': { type: 'string', multiple: true },
  'native-decide': { type: 'string' },
} as const satisfies OptionSpec;

/** The grant kinds `--fence-grant` takes (the library's grants without their `fence:` prefix). */
export const FENCE_GRANT_KINDS: readonly string[] = Object.values(COMMAND_CLASS_GRANTS)
  .filter((g): g is string => g !== null)
  .map((g) => g.slice('fence:'.length));

/** `items` joined by `, ` on lines of at most `width` characters, each starting with `indent`. */
function wrapList(items: readonly string[], indent: string, width: number): string {
  const lines: string[] = [];
  let line = indent;
  for (const [i, item] of items.entries()) {
    const piece = `${item}${i < items.length - 1 ? ',' : ''}`;
    if (line !== indent && line.length + 1 + piece.length > width - 1) {
      lines.push(line);
      line = indent;
    }
    line = line === indent ? `${indent}${piece}` : `${line} ${piece}`;
  }
  lines.push(line);
  return lines.join('\n');
}

/** The help lines of the two options (two spaces of indent, as the verb helps have them). */
export const FENCE_HELP = `  --fence-grant KIND[=DECL]  let proof work add what the statement fence refuses (repeatable):
${wrapList(FENCE_GRANT_KINDS, ' '.repeat(28), 100)};
                            =DECL: only the new declaration DECL, or commands before DECL
  --native-decide allow|forbid  native_decide in a proof (lean profile; default allow;
                            forbid: it is an escape hatch, never solved)`;

/** What the two flags resolve to: the dispatches' extra capabilities and the lean profile's policy. */
export interface FenceFlags {
  /** `runProject({ fenceGrants })`: each grant as a dispatch capability (`fence:new-definitions=helper`). */
  readonly fenceGrants: readonly string[];
  /** `profileByName('lean', { nativeDecide })`; undefined: the profile's default. */
  readonly nativeDecide: 'allowed' | 'forbidden' | undefined;
}

const NATIVE: Readonly<Record<string, 'allowed' | 'forbidden'>> = { allow: 'allowed', forbid: 'forbidden' };

/** One `--fence-grant` value as a capability (`fence:<kind>[=<decl>]`). */
function grantOf(value: string): string {
  const eq = value.indexOf('=');
  const rawKind = (eq < 0 ? value : value.slice(0, eq)).trim();
  const kind = rawKind.startsWith('fence:') ? rawKind.slice('fence:'.length) : rawKind;
  if (!FENCE_GRANT_KINDS.includes(kind))
    throw new HandoffError(
      'usage',
      `unknown fence grant '${rawKind}'${didYouMean(kind, FENCE_GRANT_KINDS)} (axioms, #exit, #guard_msgs and context commands have no grant)`,
    );
  if (eq < 0) return `fence:${kind}`;
  const decl = value.slice(eq + 1).trim();
  if (decl === '' || /[\s\u0000-\u001f\u007f]/.test(decl))
    throw new HandoffError(
      'usage',
      `--fence-grant ${kind}=DECL needs one declaration name after '=' (as the fence names it: Foo.helper)`,
    );
  return `fence:${kind}=${decl}`;
}

/**
 * Validates the two flags (pure). `profile` is the run's profile name: `--native-decide` is a lean
 * profile policy.
 *
 * @example
 * ```ts
 * fenceFlags({ 'fence-grant': ['new-definitions=helper', 'fence:set-option'], 'native-decide': 'forbid' });
 * // { fenceGrants: ['fence:new-definitions=helper', 'fence:set-option'], nativeDecide: 'forbidden' }
 * fenceFlags({ 'fence-grant': ['new-definition'] });
 * // throws usage: unknown fence grant 'new-definition' (did you mean new-definitions?) …
 * ```
 * @throws HandoffError `usage` for an unknown grant kind, an empty or spaced declaration, a
 * `--native-decide` value other than allow|forbid, or `--native-decide` with another profile.
 */
export function fenceFlags(values: ParsedArgs['values'], profile = 'lean'): FenceFlags {
  const raw = values['fence-grant'];
  const given = raw === undefined ? [] : Array.isArray(raw) ? raw.map(String) : [String(raw)];
  const fenceGrants = [...new Set(given.map(grantOf))];
  const nd = values['native-decide'];
  if (nd === undefined) return { fenceGrants, nativeDecide: undefined };
  const v = String(nd);
  const nativeDecide = NATIVE[v];
  if (nativeDecide === undefined)
    throw new HandoffError(
      'usage',
      `--native-decide takes allow or forbid, not '${v}'${didYouMean(v, Object.keys(NATIVE))}`,
    );
  if (profile !== 'lean')
    throw new HandoffError(
      'usage',
      `--native-decide is a policy of the lean profile (this run uses --profile ${profile})`,
    );
  return { fenceGrants, nativeDecide };
}
