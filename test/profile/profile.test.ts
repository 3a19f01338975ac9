import { describe, expect, it } from 'vitest';
import { isHandoffError } from '../../src/errors/index.js';
import {
  CODE_BLOCKER_CLASSES,
  classOfPhrase,
  codeProfile,
  LEAN_BLOCKER_CLASSES,
  leanProfile,
  phraseOfClass,
  profileByName,
} from '../../src/profile/index.js';
import { scanMarkers } from '../../src/runtime/marker-scan.js';

describe('domain profiles', () => {
  it('the Lean profile is the proof vocabulary: sorry, -- error comments, the Lean fence', () => {
    const p = leanProfile();
    expect(p).toMatchObject({ name: 'lean', markers: ['sorry'], errorComment: '--', leanHeaders: true });
    expect(p.diagnosticsCommand).toBeNull();
    expect(p.blockerClasses).toBe(LEAN_BLOCKER_CLASSES);
  });

  it('the code profile: TODO(agent), no error comments, no Lean fence, code phrases', () => {
    const p = codeProfile({ diagnosticsCommand: ['npm', 'test'] });
    expect(p).toMatchObject({
      name: 'code',
      markers: ['TODO(agent)'],
      errorComment: null,
      leanHeaders: false,
    });
    expect(p.diagnosticsCommand).toEqual(['npm', 'test']);
    expect(p.blockerClasses).toBe(CODE_BLOCKER_CLASSES);
  });

  it('profileByName takes the knobs and refuses unknown names and empty markers', () => {
    expect(profileByName('code', { markers: ['FIXME(agent)'] }).markers).toEqual(['FIXME(agent)']);
    expect(profileByName('lean').name).toBe('lean');
    for (const bad of [
      () => profileByName('rust'),
      () => codeProfile({ markers: [] }),
      () => leanProfile({ markers: [' '] }),
    ]) {
      let err: unknown;
      try {
        bad();
      } catch (e) {
        err = e;
      }
      expect(isHandoffError(err) && err.code).toBe('usage');
    }
  });

  it('every run-contract/v1 class has a code phrase, and phrases round-trip', () => {
    const classes = new Set(Object.values(CODE_BLOCKER_CLASSES.phrases));
    expect(classes.size).toBe(7);
    for (const cls of classes)
      expect(classOfPhrase(CODE_BLOCKER_CLASSES, phraseOfClass(CODE_BLOCKER_CLASSES, cls))).toBe(cls);
    expect(classOfPhrase(CODE_BLOCKER_CLASSES, 'missing library lemma')).toBe('missing-library-lemma');
    expect(classOfPhrase(CODE_BLOCKER_CLASSES, 'no search tool')).toBeNull();
  });
});

describe('scanMarkers with a profile', () => {
  it('finds TODO(agent) as a marker and ignores -- error comments when the profile has none', () => {
    const text =
      'export function f() {\n  return 0; // TODO(agent): return 42\n}\n-- error: not a comment here\n';
    const s = scanMarkers('f.js', text, ['TODO(agent)'], null);
    expect(s.targets.map((t) => t.id)).toEqual(['f.js:2']);
    expect(s.errors).toEqual([]);
  });

  it('the Lean default is unchanged: sorry whole-word, -- error comments', () => {
    const s = scanMarkers('A.lean', 'theorem t := sorry -- error: boom\ntheorem u := sorryAx\n');
    expect(s.targets.map((t) => t.id)).toEqual(['A.lean:1']);
    expect(s.errors).toEqual(['A.lean:1:boom']);
  });

  it('several markers at once', () => {
    const s = scanMarkers(
      'a.py',
      '# TODO(agent)\nx = 1  # FIXME(agent)\n# TODO\n',
      ['TODO(agent)', 'FIXME(agent)'],
      null,
    );
    expect(s.targets.map((t) => t.line)).toEqual([1, 2]);
  });
});
