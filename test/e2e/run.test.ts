import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import {
  EASY,
  fixture,
  gitLog,
  gitProject,
  HARD,
  handoffOf,
  PY_WORKER,
  runArgs,
  TS_WORKER,
  withGitProject,
} from './helpers.js';

const HAS_PYTHON = (() => {
  try {
    execFileSync('python3', ['--version'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
})();

const base = runArgs;

describe('handoff run with real child-process workers', () => {
  it('solves every target with the TypeScript worker and commits checkpoints', async () => {
    await withGitProject(EASY, async (p) => {
      const r = await runCli(base(p.dir, `node ${TS_WORKER}`, '--json'));
      expect(r.code, r.stderr).toBe(0);
      const h = handoffOf(r.stdout);
      expect(h.status).toBe('solved');
      expect(h.files_changed.map((f) => f.slice(p.dir.length + 1)).sort()).toEqual(['A.lean', 'B.lean']);
      expect(await readFile(join(p.dir, 'A.lean'), 'utf8')).not.toContain('sorry');
      // autoprove's batch size 2: A.lean and B.lean are disjoint, so cycle 1 runs both at once
      expect(gitLog(p.dir).filter((l) => l.startsWith('checkpoint: '))).toEqual([
        'checkpoint: cycle 2: B.lean:5 solved',
        'checkpoint: cycle 1: A.lean:2 solved, B.lean:2 solved',
      ]);
    });
  });

  it('with --batch-size 1 runs one target per cycle: one more checkpoint, the same files', async () => {
    await withGitProject(EASY, async (p) => {
      const r = await runCli(base(p.dir, `node ${TS_WORKER}`, '--batch-size', '1', '--json'));
      expect(r.code, r.stderr).toBe(0);
      const h = handoffOf(r.stdout);
      expect(h.status).toBe('solved');
      expect(h.files_changed.map((f) => f.slice(p.dir.length + 1)).sort()).toEqual(['A.lean', 'B.lean']);
      expect(gitLog(p.dir).filter((l) => l.startsWith('checkpoint: '))).toEqual([
        'checkpoint: cycle 3: B.lean:5 solved',
        'checkpoint: cycle 2: B.lean:2 solved',
        'checkpoint: cycle 1: A.lean:2 solved',
      ]);
    });
  });

  it('speaks the same protocol with the Python worker (plain progress lines)', async () => {
    // python3 is a test prerequisite (.ci/run installs it): a missing interpreter fails, never skips
    expect(HAS_PYTHON, 'python3 is required for the language-agnostic worker test').toBe(true);
    await withGitProject(EASY, async (p) => {
      const r = await runCli(base(p.dir, `python3 '${PY_WORKER}'`));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/work: A\.lean:2 → solved/);
      expect(r.stdout).toMatch(/^run \S+: solved$/m);
    });
  });

  it('stuck worker: same blocker twice → stuck → replan; relaunch refused by the guard; allowed with evidence', async () => {
    await withGitProject({ ...HARD, ...EASY }, async (p) => {
      const r = await runCli(base(p.dir, `node ${TS_WORKER}`));
      expect(r.code, r.stderr).toBe(3);
      const log = r.stdout;
      expect(log).toMatch(/stuck: same blocker on two consecutive attempts: H\.lean:2:missing library lemma/);
      expect(log).toMatch(/review \(stuck\): missing-library-lemma/);
      expect(log).toMatch(/plan: replan after stuck H\.lean:2/);
      expect(log).toMatch(/guard: relaunch of H\.lean:2 refused/);
      const h = handoffOf(log.slice(log.indexOf('{\n')));
      expect(h).toMatchObject({
        status: 'stuck',
        blocker_kind: 'proof',
        blocker_class: 'missing-library-lemma',
        blocker_signature: 'H.lean:2:missing library lemma',
      });
      const priorFile = join(p.dir, '..', `${p.dir.split('/').pop()}-prior.json`);
      const { writeFile, rm } = await import('node:fs/promises');
      await writeFile(priorFile, JSON.stringify(h));
      try {
        const refused = await runCli(
          base(p.dir, `node ${TS_WORKER}`, '--prior-handoff', priorFile, '--json'),
        );
        expect(refused.code).toBe(3);
        expect(refused.stderr).toMatch(/rerun_forbidden/);
        expect(refused.stdout).toBe('');
        const allowed = await runCli(
          base(
            p.dir,
            `node ${TS_WORKER}`,
            '--prior-handoff',
            priorFile,
            '--evidence',
            'use: omega',
            '--json',
          ),
        );
        expect(allowed.code, allowed.stderr).toBe(0);
        expect(handoffOf(allowed.stdout).status).toBe('solved');
        expect(await readFile(join(p.dir, 'H.lean'), 'utf8')).toContain('omega');
      } finally {
        await rm(priorFile, { force: true });
      }
    });
  });

  it('a worker that writes a non-owned file stops the run and nothing is committed', async () => {
    await withGitProject(EASY, async (p) => {
      const r = await runCli(base(p.dir, `node ${fixture('foreign.mjs')}`, '--json'));
      expect(r.code).toBe(4);
      const h = handoffOf(r.stdout);
      expect(h).toMatchObject({ status: 'stopped', stop_reason: 'protocol-error' });
      // sandboxed (the default where it can run): discarded from the layer; else detected and named
      expect(h.stop_detail).toMatch(
        /custody violation: (files outside the owned set were written and discarded|.*outside its owned files): NOT-OWNED\.txt/,
      );
      expect(gitLog(p.dir)).toEqual(['init']);
    });
  });

  it('a worker whose edit is not covered by its returned baseline stops the run', async () => {
    await withGitProject(EASY, async (p) => {
      const r = await runCli(base(p.dir, `node ${fixture('unadvanced.mjs')}`, '--json'));
      expect(r.code).toBe(4);
      expect(handoffOf(r.stdout).stop_detail).toMatch(/drift nobody advanced/);
      expect(gitLog(p.dir)).toEqual(['init']);
    });
  });

  it('a worker printing garbage is a protocol-error stop, not a crash', async () => {
    await withGitProject(EASY, async (p) => {
      const r = await runCli(base(p.dir, `node ${fixture('garbage.mjs')}`, '--json'));
      expect(r.code).toBe(4);
      const h = handoffOf(r.stdout);
      expect(h.stop_reason).toBe('protocol-error');
      expect(h.stop_detail).toMatch(/not protocol output/);
    });
  });

  it('a hanging worker is killed at its budget', async () => {
    await withGitProject(EASY, async (p) => {
      const t0 = Date.now();
      const r = await runCli(base(p.dir, `node ${fixture('hang.mjs')}`, '--worker-timeout', '1s', '--json'));
      expect(r.code).toBe(4);
      expect(Date.now() - t0).toBeLessThan(20_000);
      const h = handoffOf(r.stdout);
      expect(h.stop_reason).toBe('operational-error');
      expect(h.stop_detail).toMatch(/exceeded its 1s budget and was killed/);
    });
  });

  it('a permission denial aborts delegation (no inline worker: operational stop)', async () => {
    await withGitProject(EASY, async (p) => {
      const r = await runCli(base(p.dir, `node ${fixture('deny.mjs')}`, '--json'));
      expect(r.code).toBe(4);
      expect(handoffOf(r.stdout).stop_detail).toMatch(/permission denied, delegation aborted/);
    });
  });
});

describe('budget exhaustion names the right stop_reason', () => {
  it('max-cycles', async () => {
    await withGitProject(EASY, async (p) => {
      const r = await runCli(base(p.dir, `node ${TS_WORKER}`, '--max-cycles', '1', '--json'));
      expect(r.code).toBe(1);
      expect(handoffOf(r.stdout)).toMatchObject({
        status: 'stopped',
        stop_reason: 'max-cycles',
        blocker_signature: null,
      });
    });
  });

  it('max-stuck (blocker-driven: blocker fields set)', async () => {
    await withGitProject(HARD, async (p) => {
      const r = await runCli(
        base(p.dir, `node ${fixture('slow-stuck.mjs')}`, '--max-stuck-cycles', '1', '--json'),
      );
      expect(r.code).toBe(3);
      expect(handoffOf(r.stdout)).toMatchObject({
        status: 'stopped',
        stop_reason: 'max-stuck',
        blocker_kind: 'proof',
        blocker_class: 'arithmetic',
        blocker_signature: 'H.lean:2:omega failed',
      });
    });
  });

  it('max-runtime', async () => {
    await withGitProject(HARD, async (p) => {
      const r = await runCli(
        base(p.dir, `node ${fixture('slow-stuck.mjs')}`, '--max-total-runtime', '1s', '--json'),
        {
          env: { SLOW_MS: '1100' },
        },
      );
      expect(r.code, r.stderr).toBe(1);
      expect(handoffOf(r.stdout)).toMatchObject({ status: 'stopped', stop_reason: 'max-runtime' });
    });
  });
});

describe('prove mode with scripted human answers', () => {
  it('asks before every commit, replan and continue; continue-with-evidence relaunches the stuck target', async () => {
    const p = await gitProject(HARD);
    const answers = [
      'approve', // plan, cycle 1
      'continue', // after cycle 1 (first failure)
      'approve', // plan, cycle 2
      'approve', // replan after the stuck review
      'continue-with-evidence: use: omega', // the blocker options
      'approve', // plan, cycle 3
      'commit', // checkpoint
      'approve', // replan after review
      'continue', // after cycle 3
    ];
    const { writeFile, rm } = await import('node:fs/promises');
    const file = `${p.dir}-answers.txt`;
    await writeFile(file, `${answers.join('\n')}\n`);
    try {
      const r = await runCli([
        ...base(p.dir, `node ${TS_WORKER}`).map((a) => (a === 'autoprove' ? 'prove' : a)),
        '--answers',
        file,
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(handoffOf(r.stdout).status).toBe('solved');
      expect(gitLog(p.dir)[0]).toMatch(/^checkpoint: cycle 3: H\.lean:2 solved$/);
    } finally {
      await rm(file, { force: true });
      await p.cleanup();
    }
  });

  it('stop and hand off after a clear blocker ends stuck with the blocker fields', async () => {
    const p = await gitProject(HARD);
    const { writeFile, rm } = await import('node:fs/promises');
    const file = `${p.dir}-answers.txt`;
    await writeFile(file, 'approve\ncontinue\napprove\napprove\nstop\n');
    try {
      const r = await runCli([
        ...base(p.dir, `node ${TS_WORKER}`).map((a) => (a === 'autoprove' ? 'prove' : a)),
        '--answers',
        file,
        '--json',
      ]);
      expect(r.code).toBe(3);
      expect(handoffOf(r.stdout)).toMatchObject({
        status: 'stuck',
        blocker_signature: 'H.lean:2:missing library lemma',
      });
    } finally {
      await rm(file, { force: true });
      await p.cleanup();
    }
  });
});

describe('persistence', () => {
  it('journals the run; the final cite and every replan cite resolve to earlier events', async () => {
    await withGitProject({ ...HARD, ...EASY }, async (p) => {
      const r = await runCli(base(p.dir, `node ${TS_WORKER}`, '--persist'));
      expect(r.code, r.stderr).toBe(3);
      const m = /final handoff stored as (\S+)#(\d+)/.exec(r.stdout);
      expect(m).not.toBeNull();
      const [, runId, seq] = m as unknown as [string, string, string];
      const load = await runCli(['store', 'load', '--root', join(p.dir, '.handoff'), '--run-id', runId]);
      expect(load.code, load.stderr).toBe(0);
      const body = JSON.parse(load.stdout) as {
        events: { seq: number; kind: string; payload: { cites?: string[] } }[];
      };
      const seqs = new Set(body.events.map((e) => e.seq));
      expect(seqs.has(Number(seq))).toBe(true);
      const kinds = body.events.map((e) => e.kind);
      for (const k of ['dispatch', 'handoff', 'review', 'replan']) expect(kinds).toContain(k);
      for (const e of body.events.filter((x) => x.kind === 'replan')) {
        for (const c of e.payload.cites ?? []) {
          const [rid, s] = c.split('#');
          expect(rid).toBe(runId);
          expect(Number(s)).toBeLessThan(e.seq);
          expect(seqs.has(Number(s))).toBe(true);
        }
      }
    });
  });
});

describe('worker progress lines', () => {
  it('are shown in the progress display, and with --persist go to the controller, whose refusal stops the run', async () => {
    await withGitProject(HARD, async (p) => {
      const shown = await runCli(base(p.dir, `node ${fixture('bad-progress.mjs')}`));
      expect(shown.code, shown.stderr).toBe(3);
      expect(shown.stdout).toMatch(/^progress H\.lean:2: tools probe$/m);
      expect(shown.stdout).toMatch(/^progress H\.lean:2: changed NOT-OWNED\.txt$/m);
      const persisted = await runCli(
        base(p.dir, `node ${fixture('bad-progress.mjs')}`, '--persist', '--json'),
      );
      expect(persisted.code).toBe(4);
      const h = handoffOf(persisted.stdout);
      expect(h.stop_reason).toBe('protocol-error');
      expect(h.stop_detail).toMatch(/worker progress rejected: .*progress_outside_ownership/);
      expect(gitLog(p.dir)).toEqual(['init']);
    });
  });
});

describe('--diagnostics: the verification ladder', () => {
  it('asks the lightest tier per question, climbs on an inconclusive answer, and gates checkpoints at project', async () => {
    const p = await gitProject({ 'A.lean': EASY['A.lean'] });
    const log = `${p.dir}-diag.log`;
    try {
      const r = await runCli(
        // the checker reports what it was asked through a host file: sandboxed (as it is with the
        // worker by default) its writes would be discarded (test/hostile/run-check-sandbox)
        [
          ...base(p.dir, `node ${TS_WORKER}`, '--diagnostics', `node ${fixture('diag.mjs')}`),
          '--sandbox',
          'off',
        ],
        { env: { DIAG_LOG: log } },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^verify \(file-fast → file-deps\): A\.lean:2 confirmed$/m);
      const asked = (await readFile(log, 'utf8')).trim().split('\n');
      expect(asked).toEqual([
        'discover:file-fast:module:', // owned files
        'discover:file-fast:module:', // plan discovery, cycle 1
        'edit:file-fast:module:A.lean', // the worker's changed file, lightest tier first
        'edit:file-deps:module:A.lean', // inconclusive → one tier up
        'checkpoint:project:project:', // the project gate before the commit
        'discover:file-fast:module:', // cycle 2: nothing open → solved
      ]);
    } finally {
      const { rm } = await import('node:fs/promises');
      await rm(log, { force: true });
      await p.cleanup();
    }
  });
});

describe('usage errors exit 2 before anything runs', () => {
  it('rejects missing and inconsistent options', async () => {
    await withGitProject(EASY, async (p) => {
      const cases: string[][] = [
        ['run', '--project', p.dir, '--target', '.', '--scope', 'project', '--mode', 'autoprove'],
        base(p.dir, `node ${TS_WORKER}`).map((a) => (a === 'autoprove' ? 'golf' : a)),
        [...base(p.dir, `node ${TS_WORKER}`), '--run-store', '/tmp/x'],
        [...base(p.dir, `node ${TS_WORKER}`), '--max-cycles', '0'],
        base(p.dir, `node '${TS_WORKER}`),
      ];
      for (const c of cases) {
        const r = await runCli(c);
        expect(r.code, c.join(' ')).toBe(2);
        expect(r.stdout).toBe('');
      }
      // a malformed --prior-run id is a refusal (bad_run_id, exit 3), as in inspect and store load
      const latest = await runCli([
        ...base(p.dir, `node ${TS_WORKER}`),
        '--persist',
        '--prior-run',
        'latest',
      ]);
      expect(latest.code).toBe(3);
      expect(latest.stdout).toBe('');
      expect(latest.stderr).toMatch(/^handoff run: .*\[bad_run_id\]/);
      const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
      const plain = await mkdtemp(join(p.dir, '..', 'nogit-'));
      await writeFile(join(plain, 'A.lean'), 'sorry\n');
      const r = await runCli(base(plain, `node ${TS_WORKER}`));
      await rm(plain, { recursive: true, force: true });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/not a git repository/);
    });
  });
});
