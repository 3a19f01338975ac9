/**
 * A runtime-applied repair patch names its files project-relative (the patcher's answer); the
 * run's files_changed and the checkpoint's accepted files name them as the custody baseline and
 * the workers do (absolute), so one file is never listed twice under two spellings.
 */
import { describe, expect, it } from 'vitest';
import { absorbPatch, acceptRepair, baselinePathOf } from '../../src/cycle/repair-reducers.js';
import { BASELINE, cycleContext, FILE } from './fixture.js';

describe('repair patch paths', () => {
  it("the patcher's relative path becomes the baseline's absolute spelling in files_changed and accepted", () => {
    const repair = {
      target: 'A.lean:2',
      signature: 'A.lean:2:boom',
      changed: [],
    } as unknown as NonNullable<Parameters<typeof absorbPatch>[0]['repair']>;
    const c = cycleContext({ repair, filesChanged: [FILE], accepted: [] });
    const u = absorbPatch(c, { now: 1, kind: 'applied', changed: ['A.lean'], baseline: BASELINE });
    expect(u.filesChanged).toEqual([FILE]);
    // the log keeps the project-relative name a person reads
    expect(u.repair?.changed).toEqual(['A.lean']);
    const after = acceptRepair({ ...c, ...u } as Parameters<typeof acceptRepair>[0]);
    expect(after.accepted).toEqual([FILE]);
  });

  it('baselinePathOf matches whole path components only, else keeps the file as given', () => {
    expect(baselinePathOf('A.lean', BASELINE)).toBe(FILE);
    expect(baselinePathOf('XA.lean', BASELINE)).toBe('XA.lean');
    expect(baselinePathOf('B.lean', BASELINE)).toBe('B.lean');
  });
});
