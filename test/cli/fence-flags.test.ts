/**
 * `--fence-grant KIND[=DECL]` and `--native-decide allow|forbid` (src/cli/fence-flags.ts, pure):
 * values become dispatch capabilities and the lean profile's policy, mistakes are usage errors
 * naming the closest value, and a parsed grant is one the fence honours (and a scoped one only
 * for its declaration).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseVerbArgs } from '../../src/cli/args.js';
import { FENCE_GRANT_KINDS, FENCE_HELP, FENCE_OPTIONS, fenceFlags } from '../../src/cli/fence-flags.js';
import { isHandoffError } from '../../src/errors/index.js';
import { COMMAND_CLASS_GRANTS, proofWorkAllows } from '../../src/fence/index.js';
import { leanProfile } from '../../src/profile/index.js';
import { cliMain } from '../helpers/cli-main.js';

const usage = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(isHandoffError(e) && e.code === 'usage').toBe(true);
    return (e as Error).message;
  }
  throw new Error('expected a usage error');
};

describe('fenceFlags', () => {
  it('defaults: no grant, the profile’s native_decide policy', () => {
    expect(fenceFlags({})).toEqual({ fenceGrants: [], nativeDecide: undefined });
  });

  it('repeatable grants, with or without the fence: prefix, scoped to one declaration', () => {
    const argv = [
      '--fence-grant',
      'new-definitions=helper',
      '--fence-grant',
      'fence:set-option',
      '--fence-grant',
      'set-option',
    ];
    const { values } = parseVerbArgs(argv, FENCE_OPTIONS);
    expect(fenceFlags(values).fenceGrants).toEqual(['fence:new-definitions=helper', 'fence:set-option']);
  });

  it('every library grant kind is a KIND, and the grants without one are named as such', () => {
    const grants = Object.values(COMMAND_CLASS_GRANTS).filter((g) => g !== null);
    expect(FENCE_GRANT_KINDS.map((k) => `fence:${k}`)).toEqual(grants);
    for (const k of FENCE_GRANT_KINDS) expect(FENCE_HELP).toContain(k);
    expect(usage(() => fenceFlags({ 'fence-grant': ['new-definition'] }))).toMatch(
      /unknown fence grant 'new-definition' \(did you mean new-definitions\?\)/,
    );
    expect(usage(() => fenceFlags({ 'fence-grant': ['axiom'] }))).toMatch(/axioms.*have no grant/);
  });

  it('an empty or spaced declaration is refused', () => {
    expect(usage(() => fenceFlags({ 'fence-grant': ['new-definitions='] }))).toMatch(
      /needs one declaration name/,
    );
    expect(usage(() => fenceFlags({ 'fence-grant': ['new-definitions=a b'] }))).toMatch(
      /needs one declaration name/,
    );
  });

  it('--native-decide allow|forbid, lean only, with did-you-mean', () => {
    expect(fenceFlags({ 'native-decide': 'forbid' }).nativeDecide).toBe('forbidden');
    expect(fenceFlags({ 'native-decide': 'allow' }).nativeDecide).toBe('allowed');
    expect(usage(() => fenceFlags({ 'native-decide': 'forbidd' }))).toMatch(/\(did you mean forbid\?\)/);
    expect(usage(() => fenceFlags({ 'native-decide': 'forbid' }, 'code'))).toMatch(/lean profile/);
    // the policy is the profile's escape-hatch list
    const nd = fenceFlags({ 'native-decide': 'forbid' }).nativeDecide;
    expect(leanProfile(nd === undefined ? {} : { nativeDecide: nd }).escapeHatches).toContain(
      'native_decide',
    );
    expect(leanProfile().escapeHatches).not.toContain('native_decide');
  });

  it('a parsed grant is what the fence honours; a scoped one only for its declaration', () => {
    const all = fenceFlags({ 'fence-grant': ['new-definitions'] }).fenceGrants;
    const one = fenceFlags({ 'fence-grant': ['new-definitions=helper'] }).fenceGrants;
    expect(proofWorkAllows('def', all, 'anything')).toBe(true);
    expect(proofWorkAllows('def', one, 'helper')).toBe(true);
    expect(proofWorkAllows('def', one, 'other')).toBe(false);
    expect(proofWorkAllows('def', one)).toBe(false);
    expect(proofWorkAllows('notation', one, 'helper')).toBe(false);
  });
});

describe('handoff run takes the two flags', () => {
  it('in its help, and a mistyped grant or policy is exit 2 before any worker runs', async () => {
    const help = await cliMain(['run', '--help'], tmpdir());
    expect(help.out).toContain('--fence-grant KIND[=DECL]');
    expect(help.out).toContain('--native-decide allow|forbid');
    const dir = await mkdtemp(join(tmpdir(), 'fence-flags-run-'));
    try {
      await writeFile(join(dir, 'A.lean'), 'theorem a : 1 = 1 := by\n  sorry\n');
      const base = ['run', '--target', 'A.lean', '--scope', 'file', '--mode', 'autoprove'];
      const worker = ['--worker', 'no-such-worker-binary', '--commit', 'never'];
      const typo = await cliMain([...base, ...worker, '--fence-grant', 'new-definition'], dir);
      expect(typo.code).toBe(2);
      expect(typo.err).toContain("unknown fence grant 'new-definition' (did you mean new-definitions?)");
      const policy = await cliMain([...base, ...worker, '--native-decide', 'forbd'], dir);
      expect(policy.code).toBe(2);
      expect(policy.err).toContain("--native-decide takes allow or forbid, not 'forbd'");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
