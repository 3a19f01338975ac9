/**
 * The built-in stuck review (src/runtime/builtin-ports.ts): a worker's non-proof blocker keeps its
 * kind (never re-labelled `proof`/`needs-helper-lemma`), a `false-statement` raises the
 * falsification flag, and `next_action` follows the review router (repeated build error → repair,
 * stubborn proof blocker → deep, when the run has them). Plus the project wiring of the planner
 * and outer-loop options (src/runtime/project-run.ts) on a real git project.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { advanceBaseline } from '../../src/baseline/index.js';
import { BlockerKindSchema, type Dispatch, type Handoff, handoffFor } from '../../src/contract/index.js';
import type { PlannerInput, ReviewInput, StuckVerdict } from '../../src/cycle/types.js';
import { builtinPlanner, builtinReviewer, stuckNextAction } from '../../src/runtime/builtin-ports.js';
import { runProject } from '../../src/runtime/project-run.js';

const stuck = (condition: StuckVerdict['condition']): StuckVerdict => ({
  target: 'A.lean:2',
  condition,
  signature: 'A.lean:2:omega failed',
  detail: 'same blocker twice',
});

const base: Pick<Dispatch, 'target' | 'scope' | 'mode' | 'owned_files' | 'file_baseline'> = {
  target: 'A.lean:2',
  scope: 'sorry',
  mode: 'autoprove',
  owned_files: ['/r/A.lean'],
  file_baseline: { schema: 'file-baseline/v1', files: [] },
};
function stuckHandoff(kind: Handoff['blocker_kind']): Handoff {
  return handoffFor(base, {
    status: 'stuck',
    blocker_kind: kind,
    blocker_class: kind === 'proof' ? 'arithmetic' : null,
    blocker_signature: 'A.lean:2:omega failed',
    new_evidence_required_for_rerun: 'a bound',
    next_action: 'stop',
  });
}
const reviewInput = (h: Handoff | null, v: StuckVerdict): ReviewInput => ({
  cycle: 2,
  mode: 'stuck',
  scope: 'sorry',
  file: 'A.lean',
  line: 2,
  stuck: v,
  lastHandoff: h,
});

describe('built-in stuck review: blocker kinds', () => {
  const nonProof = BlockerKindSchema.options.filter((k) => k !== 'proof');

  it.each(nonProof)('a %s blocker keeps its kind and is never routed to deep or repair', async (kind) => {
    const reviewer = builtinReviewer({ deep: true, repair: true });
    for (const condition of ['repeated-failure', 'repeated-build-error', 'no-progress'] as const) {
      const out = await reviewer.review(reviewInput(stuckHandoff(kind), stuck(condition)));
      expect(out.primaryBlocker).toBe(kind);
      expect(out.primaryBlocker).not.toMatch(/proof|helper lemma/);
      expect(out.nextAction).toBe('stop');
      expect(out.falsification).toBe(kind === 'false-statement');
    }
  });

  it('a proof blocker is named in the domain phrase', async () => {
    const out = await builtinReviewer().review(reviewInput(stuckHandoff('proof'), stuck('repeated-failure')));
    expect(out.primaryBlocker).toBe('arithmetic');
    expect(out.falsification).toBe(false);
  });
});

describe('built-in stuck review: the router', () => {
  it('routes by condition and by what the run has', () => {
    const proof = stuckHandoff('proof');
    expect(stuckNextAction(stuck('repeated-build-error'), proof, { repair: true })).toBe('repair');
    expect(stuckNextAction(stuck('repeated-build-error'), proof, { deep: true })).toBe('stop');
    for (const c of ['repeated-failure', 'no-progress', 'empty-search'] as const) {
      expect(stuckNextAction(stuck(c), proof, { deep: true })).toBe('deep');
      expect(stuckNextAction(stuck(c), proof, {})).toBe('stop');
    }
    // deep already rolled back, repair exhausted: no loop back into them
    expect(stuckNextAction(stuck('deep-rollback'), proof, { deep: true, repair: true })).toBe('stop');
    expect(stuckNextAction(stuck('repair-exhausted'), proof, { deep: true, repair: true })).toBe('stop');
    expect(stuckNextAction(stuck('fence-violation'), proof, { deep: true })).toBe('redraft');
    // no handoff at all (the worker never returned one): a proof blocker by default
    expect(stuckNextAction(stuck('no-progress'), null, { deep: true })).toBe('deep');
  });

  it('the reviewer port uses the router (default: no deep, no repair → stop)', async () => {
    const proof = stuckHandoff('proof');
    expect((await builtinReviewer().review(reviewInput(proof, stuck('no-progress')))).nextAction).toBe(
      'stop',
    );
    const routed = builtinReviewer({ deep: true, repair: true });
    expect((await routed.review(reviewInput(proof, stuck('no-progress')))).nextAction).toBe('deep');
    expect((await routed.review(reviewInput(proof, stuck('repeated-build-error')))).nextAction).toBe(
      'repair',
    );
  });

  it('a hostile worker claiming solved with a blocker kind does not steer the route', async () => {
    const forged = { ...stuckHandoff('capability'), status: 'solved' as const };
    const out = await builtinReviewer({ deep: true }).review(reviewInput(forged, stuck('no-progress')));
    expect(out.nextAction).toBe('deep');
    expect(out.falsification).toBe(false);
  });
});

describe('runProject: planner and outer-loop options', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-wiring-')));
    await writeFile(join(dir, 'A.lean'), 'theorem a : 1 = 1 := by\n  sorry\n');
    execFileSync('git', ['init', '-q'], { cwd: dir });
    execFileSync('git', ['add', '-A'], { cwd: dir });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init'], {
      cwd: dir,
    });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('an in-process planner replaces the built-in one; outerLoop reaches the cycle options', async () => {
    const planned: PlannerInput[] = [];
    const inner = builtinPlanner();
    let t = 0;
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove' },
      worker: {
        inProcess: async (d) => {
          const f = d.owned_files[0] as string;
          await writeFile(f, (await readFile(f, 'utf8')).replace('sorry', 'rfl'));
          return {
            handoff: handoffFor(d, {
              files_changed: [f],
              file_baseline: await advanceBaseline(d.file_baseline, [f]),
            }),
          };
        },
      },
      planner: {
        async plan(input) {
          planned.push(input);
          return inner.plan(input);
        },
      },
      outerLoop: true,
      runId: 'run-wiring',
      clock: () => (t += 1000),
    });
    expect(r.handoff.status).toBe('solved');
    expect(planned.length).toBeGreaterThan(0);
    expect(r.context.options.outerLoop).toBe(true);
  });

  it('plannerArgv runs a planner command (JSON in, JSON out) in the project; a broken one falls back to the built-in plan', async () => {
    const aside = await realpath(await mkdtemp(join(tmpdir(), 'handoff-planner-')));
    try {
      const script = join(aside, 'plan.mjs');
      await writeFile(
        script,
        `import { readFileSync, writeFileSync } from 'node:fs';
const input = JSON.parse(readFileSync(0, 'utf8'));
writeFileSync(process.argv[2], JSON.stringify(input));
if (process.argv[3] === 'broken') process.exit(3);
process.stdout.write(JSON.stringify({ steps: input.targets.map((t) => ({ target: t.id, note: 'from the command' })), summary: 'command plan' }));
`,
      );
      const solve = async (d: Dispatch) => {
        const f = d.owned_files[0] as string;
        await writeFile(f, (await readFile(f, 'utf8')).replace('sorry', 'rfl'));
        return {
          handoff: handoffFor(d, {
            files_changed: [f],
            file_baseline: await advanceBaseline(d.file_baseline, [f]),
          }),
        };
      };
      for (const how of ['ok', 'broken']) {
        await writeFile(join(dir, 'A.lean'), 'theorem a : 1 = 1 := by\n  sorry\n');
        const seen = join(aside, `${how}.json`);
        let t = 0;
        const r = await runProject({
          projectRoot: dir,
          flags: { target: '.', scope: 'project', mode: 'autoprove' },
          worker: { inProcess: solve },
          plannerArgv: [process.execPath, script, seen, how],
          runId: `run-planner-${how}`,
          clock: () => (t += 1000),
        });
        expect(r.handoff.status, how).toBe('solved');
        const input = JSON.parse(await readFile(seen, 'utf8')) as {
          project_root: string;
          targets: unknown[];
        };
        expect(input.project_root).toBe(dir);
        expect(input.targets).toHaveLength(1);
      }
    } finally {
      await rm(aside, { recursive: true, force: true });
    }
  });
});
