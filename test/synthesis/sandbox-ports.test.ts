/**
 * The command planner and reviewer in the sandbox (really started): the project is read-only to
 * them — a planner that writes in the project gets the fallback's plan with the paths named, a
 * reviewer that does is refused by name — and the host project is never touched; a planner that
 * only reads is used as before.
 */
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PlannerInput } from '../../src/cycle/types.js';
import { builtinPlanner } from '../../src/runtime/builtin-ports.js';
import { commandPlanner } from '../../src/runtime/command-planner.js';
import { commandReviewer } from '../../src/runtime/command-ports.js';

let project = '';
beforeEach(async () => {
  project = join(await realpath(await mkdtemp(join(tmpdir(), 'sandbox-ports-'))), 'p');
  await mkdir(join(project, 'tools'), { recursive: true });
  await writeFile(join(project, 'A.lean'), 'theorem a : 1 = 1 := by\n  sorry\n');
});
afterEach(async () => {
  await rm(join(project, '..'), { recursive: true, force: true });
});

const input: PlannerInput = {
  kind: 'plan',
  cycle: 1,
  targets: [{ id: 'A.lean:2', file: 'A.lean', line: 2, goal: '1 = 1' }],
  blocked: [],
  searchBudget: 0,
  stuck: null,
  review: null,
};
const SANDBOX = { network: 'deny' } as const;

/** A script inside the project (the sandbox's `/tmp` is its own), as an argv. */
async function script(name: string, source: string): Promise<string[]> {
  const file = join(project, 'tools', name);
  await writeFile(file, source);
  return [process.execPath, file];
}

const PLAN = `process.stdout.write(JSON.stringify({ steps: [{ target: 'A.lean:2', note: 'try rfl' }], summary: 'mine' }));`;

describe('command ports in the sandbox', () => {
  it('a planner that only reads is used; one that writes gets the fallback, the writes named and never on the host', async () => {
    const reads = commandPlanner(await script('reads.mjs', PLAN), project, {
      fallback: builtinPlanner(),
      sandbox: SANDBOX,
    });
    expect((await reads.plan(input)).summary).toBe('mine');
    const writes = commandPlanner(
      await script(
        'writes.mjs',
        `import { writeFileSync } from 'node:fs'; writeFileSync('notes.txt', 'x'); ${PLAN}`,
      ),
      project,
      { fallback: builtinPlanner(), sandbox: SANDBOX },
    );
    const plan = await writes.plan(input);
    expect(plan.summary).toContain('planner');
    expect(plan.summary).toContain('wrote in the project (discarded by the sandbox): notes.txt');
    expect((await readdir(project)).sort()).toEqual(['A.lean', 'tools']);
  });

  it('a reviewer that writes in the project is refused by name; the host is untouched', async () => {
    const argv = await script(
      'review.mjs',
      `import { writeFileSync } from 'node:fs'; writeFileSync('A.lean', 'axiom cheat : False\\n'); process.stdout.write(JSON.stringify({ next_action: 'continue' }));`,
    );
    const reviewer = commandReviewer(argv, project, 10_000, { sandbox: SANDBOX });
    await expect(
      reviewer.review({ mode: 'stuck' } as unknown as Parameters<typeof reviewer.review>[0]),
    ).rejects.toThrow(/wrote in the project \(discarded by the sandbox\): A\.lean$/);
    expect((await readdir(project)).sort()).toEqual(['A.lean', 'tools']);
    expect(await readFile(join(project, 'A.lean'), 'utf8')).toBe('theorem a : 1 = 1 := by\n  sorry\n');
  });
});
