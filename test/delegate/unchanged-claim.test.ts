/**
 * `unchanged_claim`: a handoff whose `files_changed` names a file that still holds its
 * pre-dispatch bytes is refused by name (the pure rule, and through `delegate` on a real project),
 * while an honest edit is accepted.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { advanceBaseline } from '../../src/baseline/index.js';
import { type Dispatch, handoffFor } from '../../src/contract/index.js';
import { createDispatch, delegate } from '../../src/delegate/index.js';
import { unchangedClaims, unchangedClaimViolation } from '../../src/delegate/unchanged-claims.js';
import { GREETING, makeProject, type Project } from './fixtures.js';

const cap = (entries: [string, string | null][]) =>
  new Map(entries.map(([p, b]) => [p, { bytes: b === null ? null : Buffer.from(b), mode: 0o644 }]));

describe('the unchanged_claim rule (pure)', () => {
  it('names each claimed file whose bytes are the same, once, and only those', () => {
    const before = cap([
      ['/r/a.ts', 'x'],
      ['/r/b.ts', 'y'],
      ['/r/c.ts', null],
    ]);
    const after = cap([
      ['/r/a.ts', 'x'],
      ['/r/b.ts', 'z'],
      ['/r/c.ts', null],
    ]);
    expect(unchangedClaims(['/r/a.ts', '/r/b.ts', '/r/a.ts', '/r/c.ts'], before, after)).toEqual([
      '/r/a.ts',
      '/r/c.ts',
    ]);
    expect(unchangedClaims(['/r/b.ts', '/r/elsewhere.ts'], before, after)).toEqual([]);
    expect(unchangedClaimViolation(['/r/b.ts'], before, after)).toBeNull();
    expect(unchangedClaimViolation(['/r/a.ts'], before, after)).toEqual({
      check: 'unchanged_claim',
      detail:
        'files_changed names file(s) whose bytes did not change: /r/a.ts; fix: list only the files you edited',
    });
  });

  it('a created or deleted file is a change', () => {
    expect(unchangedClaims(['/r/a.ts'], cap([['/r/a.ts', null]]), cap([['/r/a.ts', '']]))).toEqual([]);
    expect(unchangedClaims(['/r/a.ts'], cap([['/r/a.ts', 'x']]), cap([['/r/a.ts', null]]))).toEqual([]);
  });
});

describe('delegate refuses a claim of a change nothing backs', () => {
  let p: Project;
  let dispatch: Dispatch;
  beforeEach(async () => {
    p = await makeProject();
    dispatch = await createDispatch({
      target: 'src/greeting.ts:1',
      scope: 'file',
      mode: 'autoprove',
      ownedFiles: [p.owned],
    });
  });
  afterEach(async () => {
    await p.cleanup();
  });

  it('solved, files_changed names the owned file, its bytes untouched: refused on unchanged_claim', async () => {
    const r = await delegate(dispatch, async (d) => {
      const file_baseline = await advanceBaseline(d.file_baseline, [...d.owned_files]);
      return handoffFor(d, { files_changed: [...d.owned_files], file_baseline });
    });
    expect(r.outcome).toBe('refused');
    expect(r.violations.map((v) => v.check)).toEqual(['unchanged_claim']);
    expect(r.handoff).toMatchObject({ status: 'stopped', stop_reason: 'protocol-error' });
    expect(r.handoff.stop_detail).toContain(`whose bytes did not change: ${p.owned}`);
    expect(await readFile(p.owned, 'utf8')).toBe(GREETING);
  });

  it('a file written back to its own bytes is no change either', async () => {
    const r = await delegate(dispatch, async (d) => {
      const f = d.owned_files[0] as string;
      await writeFile(f, 'something else');
      await writeFile(f, GREETING);
      const file_baseline = await advanceBaseline(d.file_baseline, [f]);
      return handoffFor(d, { files_changed: [f], file_baseline });
    });
    expect(r.violations.map((v) => v.check)).toEqual(['unchanged_claim']);
  });
});
