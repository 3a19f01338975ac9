/**
 * `handoff audit` on a real persisted run: runProject with the persistence recorder over the fs
 * store records the cycle machine's transitions with its journal writes (batch records beside
 * events.jsonl); the audit replays them — ok, exit 0 — and flags an edited record (a transition
 * the machine lacks) with the cite of the write that carried it, exit 5. A run without a trace is
 * exit 5 too (nothing to check), an unknown run exit 3.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJsonUtf8 } from '../../src/canonical/index.js';
import { createPersistRecorder } from '../../src/runtime/persist-recorder.js';
import { runProject } from '../../src/runtime/project-run.js';
import { cliMain } from '../helpers/cli-main.js';
import { persistedRun, solveBySorryToRfl } from '../helpers/persisted-run.js';

let dir: string;
let root: string;
let runId: string;

const solve = solveBySorryToRfl;
const run = (args: string[]) => cliMain(args, dir);

beforeAll(async () => {
  const p = await persistedRun('handoff-audit-cli-', { 'A.lean': 'theorem a : 1 = 1 := by\n  sorry\n' });
  ({ dir, root, runId } = p);
  expect(p.status).toBe('solved');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('handoff audit', () => {
  it('a persisted run replays through the cycle machine: ok, exit 0', async () => {
    const r = await run(['audit', runId, '--root', root, '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as { ok: boolean; steps: number; batches: number; findings: unknown[] };
    expect(report.ok).toBe(true);
    expect(report.findings).toEqual([]);
    expect(report.steps).toBeGreaterThan(10);
    expect(report.batches).toBeGreaterThanOrEqual(2);
    const text = await run(['audit', runId, '--root', root]);
    expect(text.out).toMatch(new RegExp(`^audit ${runId}: ok — \\d+ recorded transitions`));
  });

  it('handoff inspect draws the recorded path: every step observed, nothing inferred, ending solved', async () => {
    const r = await run(['inspect', runId, '--root', root, '--format', 'json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as {
      path: { steps: { state: string; source: string; cite: string }[]; limits: string[] };
      overlay: { inferredEdges?: Record<string, number>; gaps?: unknown[] };
    };
    expect(report.path.limits[0]).toMatch(
      /^the path is the run's recorded transition trace \(\d+ transitions/,
    );
    const steps = report.path.steps;
    expect(steps[0]).toMatchObject({ state: 'plan.discover', source: 'manifest' });
    expect(steps.slice(1).every((x) => x.source === 'trace' && x.cite.startsWith(`${runId}#`))).toBe(true);
    expect(steps.map((x) => x.state)).toContain('checkpoint.commit');
    expect(steps.at(-1)?.state).toBe('solved');
    expect(JSON.stringify(report.overlay)).not.toMatch(/"inferred":\s*true/);
    const text = await run(['inspect', runId, '--root', root]);
    expect(text.out).toContain('recorded transition trace');
    expect(text.out).not.toContain('inferred transition');
  });

  it('an edited batch record (a transition the machine lacks) is flagged with its cite, exit 5', async () => {
    const file = join(root, 'runs', runId, 'batches.jsonl');
    const original = await readFile(file, 'utf8');
    try {
      const lines = original.split('\n').filter((l) => l !== '');
      const first = JSON.parse(lines[0] as string) as {
        first_seq: number;
        trace: { from: string; to: string }[];
      };
      const step = first.trace[1] as { to: string };
      step.to = 'cycle.solved';
      lines[0] = canonicalJsonUtf8(first);
      await writeFile(file, `${lines.join('\n')}\n`);
      const r = await run(['audit', runId, '--root', root, '--json']);
      expect(r.code).toBe(5);
      const report = JSON.parse(r.out) as {
        ok: boolean;
        findings: { code: string; cite: string; index: number }[];
      };
      expect(report.ok).toBe(false);
      expect(report.findings[0]).toMatchObject({
        code: 'no_such_transition',
        cite: `${runId}#${first.first_seq}`,
        index: 1,
      });
    } finally {
      await writeFile(file, original);
    }
  });

  it('a hostile worker that forges a batch record is a custody violation: the record is put back, the audit passes', async () => {
    await writeFile(join(dir, 'C.lean'), 'theorem c : 3 = 3 := by\n  sorry\n');
    execFileSync('git', ['add', 'C.lean'], { cwd: dir });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'c'], {
      cwd: dir,
    });
    const recorder = await createPersistRecorder({ projectRoot: dir });
    let id: string;
    try {
      const r = await runProject({
        projectRoot: dir,
        flags: { target: '.', scope: 'project', mode: 'autoprove' },
        worker: {
          inProcess: async (d) => {
            const runs = join(root, 'runs');
            for (const name of await readdir(runs))
              if (/^\d{8}T/.test(name))
                await appendFile(join(runs, name, 'batches.jsonl'), '{"forged":true}\n');
            return solve(d);
          },
        },
        recorder,
      });
      expect(r.handoff).toMatchObject({ status: 'stopped', stop_reason: 'protocol-error' });
      expect(r.handoff.stop_detail).toContain('the worker wrote into the run store');
      id = r.runId;
    } finally {
      await recorder.dispose();
    }
    for (const name of await readdir(join(root, 'runs')))
      if (/^\d{8}T/.test(name) && existsSync(join(root, 'runs', name, 'batches.jsonl')))
        expect(await readFile(join(root, 'runs', name, 'batches.jsonl'), 'utf8')).not.toContain('forged');
    const audit = await run(['audit', id, '--root', root]);
    expect(audit.code).toBe(0);
  });

  it('a run without a trace has nothing to check (exit 5); an unknown run is exit 3', async () => {
    await writeFile(join(dir, 'B.lean'), 'theorem b : 2 = 2 := by\n  sorry\n');
    execFileSync('git', ['add', 'B.lean'], { cwd: dir });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'b'], {
      cwd: dir,
    });
    const recorder = await createPersistRecorder({ projectRoot: dir, trace: false });
    let id: string;
    try {
      const r = await runProject({
        projectRoot: dir,
        flags: { target: '.', scope: 'project', mode: 'autoprove' },
        worker: { inProcess: solve },
        recorder,
      });
      expect(r.handoff.status).toBe('solved');
      id = r.runId;
    } finally {
      await recorder.dispose();
    }
    const none = await run(['audit', id, '--root', root]);
    expect(none.code).toBe(5);
    expect(none.out).toContain('no trace recorded');
    const unknown = await run(['audit', '20990101T000000Z-00000000', '--root', root]);
    expect(unknown.code).toBe(3);
  });
});
