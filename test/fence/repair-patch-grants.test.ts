/**
 * A repair patch is fenced with the repair dispatch's grants (src/runtime/patcher-port.ts,
 * src/cycle/repair-reducers.ts `patchInput`): a diff adding a helper `def` is refused without
 * `fence:new-definitions`, applied with it, and a grant scoped to another declaration does not
 * let it through — the same rule as the worker's own edit.
 */
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordBaseline } from '../../src/baseline/index.js';
import { patchInput } from '../../src/cycle/repair-reducers.js';
import { createPatcher } from '../../src/runtime/patcher-port.js';
import { cycleContext, handoffOutcome, workerHandoff } from '../cycle/fixture.js';

const A = 'theorem t (n : Nat) : n + 0 = n := by\n  sorry\n';
const HELPER =
  '--- a/A.lean\n+++ b/A.lean\n@@ -1,2 +1,4 @@\n+def helper : Nat := 0\n+\n theorem t (n : Nat) : n + 0 = n := by\n-  sorry\n+  rfl\n';
let dir: string;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-patch-grants-')));
  await writeFile(join(dir, 'A.lean'), A);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const apply = async (grants?: string[]) =>
  createPatcher({ projectRoot: dir }).apply({
    patch: HELPER,
    files: ['A.lean'],
    baseline: await recordBaseline([join(dir, 'A.lean')]),
    ...(grants === undefined ? {} : { grants }),
  });

describe('the repair patch and the fence grants', () => {
  it('a new def without the grant is refused and nothing is written', async () => {
    const r = await apply();
    expect(r.kind).toBe('refused');
    expect(r.kind === 'refused' ? r.detail : '').toMatch(/def helper.*grant: fence:new-definitions/);
    expect(await readFile(join(dir, 'A.lean'), 'utf8')).toBe(A);
    expect((await apply(['fence:new-definitions=other'])).kind).toBe('refused');
  });

  it('with the dispatch’s grant (or one scoped to helper) the patch applies', async () => {
    expect((await apply(['fence:new-definitions=helper'])).kind).toBe('applied');
    await writeFile(join(dir, 'A.lean'), A);
    expect((await apply(['fence:new-definitions'])).kind).toBe('applied');
    expect(await readFile(join(dir, 'A.lean'), 'utf8')).toContain('def helper');
  });

  it('patchInput hands the patcher the repair dispatch’s fence grants, and only those', () => {
    const dispatch = {
      schema: 'run-contract/v1',
      record: 'dispatch',
      capabilities: ['marker-diagnostics', 'search-budget:2', 'fence:new-definitions'],
    } as never;
    const ctx = cycleContext({ lastWork: handoffOutcome(workerHandoff('stuck'), { dispatch }) });
    expect(patchInput(ctx).grants).toEqual(['fence:new-definitions']);
    expect(patchInput(cycleContext()).grants).toEqual([]);
  });
});
