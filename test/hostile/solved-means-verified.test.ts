/**
 * "Solved means verified" against real `handoff run`s (runProject with a real worker process and
 * real git, the same path as the CLI): a worker that moves the sorry by a blank line is not solved
 * and nothing is committed; a leftover process that swaps the owned file between a proof and the
 * returned bytes never gets unverified bytes committed as solved; a diagnostics error on the
 * edited line is never solved. A failed edit (the moved sorry, the diagnostics error) is put back
 * to its pre-dispatch bytes, and the final record says which and why.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runProject } from '../../src/runtime/project-run.js';
import { runSynthesis } from '../../src/runtime/synthesis-run.js';
import { inProcessDrafter } from '../../src/synthesis/drafter-port.js';
import { gitLog, withGitProject } from '../e2e/helpers.js';
import { GOLF_PAPER } from '../helpers/golf-session.js';

const CHEAT = fileURLToPath(new URL('./fixtures/solved-cheat.mjs', import.meta.url));
const THEOREM = 'theorem t (n : Nat) : n + 0 = n := by\n  sorry\n';
const PROJECT = { 'T.lean': THEOREM, 'README.md': 'Each `sorry` is a target.\n-- error: TEXT\n' };
const show = (dir: string, rev: string) =>
  execFileSync('git', ['show', `${rev}:T.lean`], { cwd: dir, encoding: 'utf8' });
const checkpointCommits = (dir: string) =>
  execFileSync('git', ['log', '--format=%H %s'], { cwd: dir, encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => ({ sha: l.slice(0, 40), subject: l.slice(41) }))
    .filter((c) => c.subject.startsWith('checkpoint: '));

describe('solved means verified (real runs)', () => {
  it('a sorry moved by a blank line under --scope file: not solved, nothing committed', async () => {
    await withGitProject(PROJECT, async (p) => {
      const r = await runProject({
        projectRoot: p.dir,
        flags: { target: 'T.lean', scope: 'file', mode: 'autoprove', maxCycles: 3, maxStuck: 1 },
        worker: { argv: [process.execPath, CHEAT, 'move'] },
        workerTimeoutMs: 30_000,
      });
      expect(r.handoff.status).not.toBe('solved');
      expect(gitLog(p.dir)).toEqual(['init']);
      expect(r.context.log.join('\n')).toMatch(/T\.lean:2 not confirmed — .*still in theorem t \(line 3\)/);
      expect(r.context.log.join('\n')).not.toMatch(/confirmed$/m);
      // the failed edit is put back: the bytes before the dispatch, and the record says which and why
      expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).toBe(THEOREM);
      expect(r.handoff.failed_avenues).toContainEqual(
        expect.stringMatching(
          /^restored T\.lean: the claim 'solved' did not hold — T\.lean:2 still open .*still in theorem t \(line 3\)/,
        ),
      );
      // the next dispatches are not refused for drift (the baseline went back with the bytes): each
      // of the three cycles dispatches, and each failed edit is put back
      expect(r.handoff.stop_reason).toBe('max-cycles');
      expect(r.context.log.filter((l) => l.startsWith('checkpoint: restored T.lean: '))).toHaveLength(3);
      expect(r.context.log.join('\n')).not.toMatch(/drift/);
    });
  }, 60_000);

  it('a leftover process swapping a proof in and out: never solved with unverified bytes committed', async () => {
    // three races: before the checks read the accepted snapshot, about one in four committed the
    // returned sorry as `checkpoint: … solved`
    for (let round = 0; round < 3; round++) {
      await withGitProject(PROJECT, async (p) => {
        const base = `${p.dir}-race`;
        try {
          const r = await runProject({
            projectRoot: p.dir,
            flags: { target: '.', scope: 'project', mode: 'autoprove', maxCycles: 1, maxStuck: 1 },
            worker: { argv: [process.execPath, CHEAT, 'race', base] },
            workerTimeoutMs: 30_000,
            // a sandbox leaves no writer behind the worker: the rule must hold without one too
            sandbox: 'off',
          });
          await writeFile(`${base}.stop`, '');
          // every checkpoint labelled solved holds a proof; the run is solved only if HEAD does
          for (const c of checkpointCommits(p.dir)) {
            if (/ solved\b/.test(c.subject)) expect(show(p.dir, c.sha)).not.toMatch(/\bsorry\b/);
          }
          if (r.handoff.status === 'solved') expect(show(p.dir, 'HEAD')).not.toMatch(/\bsorry\b/);
          // the verified (returned) bytes keep the sorry: this run can only be refused or unsolved
          expect(r.handoff.status).not.toBe('solved');
          expect(checkpointCommits(p.dir)).toEqual([]);
        } finally {
          await writeFile(`${base}.stop`, '');
          if (existsSync(`${base}.pid`)) {
            try {
              process.kill(Number(readFileSync(`${base}.pid`, 'utf8')), 'SIGKILL');
            } catch {
              // already gone
            }
          }
          for (const f of ['.stop', '.pid', '.swap', '.ready']) await rm(`${base}${f}`, { force: true });
        }
      });
    }
  }, 90_000);

  it('the same leftover swapper with the sandbox on: it dies with the worker, nothing unverified is solved or committed', async () => {
    // one round: the PID namespace ends the swapper with the worker (it cannot even reach the
    // host's file), so the outcome does not depend on the race
    await withGitProject(PROJECT, async (p) => {
      const base = `${p.dir}-race`;
      try {
        const r = await runProject({
          projectRoot: p.dir,
          flags: { target: '.', scope: 'project', mode: 'autoprove', maxCycles: 1, maxStuck: 1 },
          worker: { argv: [process.execPath, CHEAT, 'race', base] },
          workerTimeoutMs: 30_000,
          sandbox: 'on',
        });
        expect(r.handoff.status).not.toBe('solved');
        expect(checkpointCommits(p.dir)).toEqual([]);
        // its pid file (in the sandbox's private /tmp) never reached the host
        expect(existsSync(`${base}.pid`)).toBe(false);
        expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).toBe(THEOREM);
      } finally {
        for (const f of ['.stop', '.pid', '.swap', '.ready']) await rm(`${base}${f}`, { force: true });
      }
    });
  }, 60_000);

  it('a NUL byte in a comment: unverifiable, never skipped — not solved, the record says so', async () => {
    await withGitProject({ 'T.lean': `-- \0\n${THEOREM}` }, async (p) => {
      const r = await runProject({
        projectRoot: p.dir,
        flags: { target: '.', scope: 'project', mode: 'autoprove', maxCycles: 1, maxStuck: 1 },
        worker: { argv: [process.execPath, CHEAT, 'honest'] },
        workerTimeoutMs: 30_000,
      });
      expect(r.handoff.status).toBe('stuck');
      expect(r.handoff.blocker_signature).toBe('T.lean:0:unverifiable: a NUL byte at offset 3 (not text)');
      expect(gitLog(p.dir)).toEqual(['init']);
    });
  }, 60_000);

  it('a --diagnostics error on the edited line: not solved, not committed, put back', async () => {
    await withGitProject(PROJECT, async (p) => {
      // the checker: the target while the sorry is there, then a type error on its line
      const check = [
        "const t = require('fs').readFileSync('T.lean', 'utf8');",
        'const open = /\\bsorry\\b/.test(t);',
        "console.log(JSON.stringify(open ? { targets: [{ id: 'T.lean:2', file: 'T.lean', line: 2, goal: 'sorry' }], errors: [] }",
        "  : { targets: [], errors: ['T.lean:2:type mismatch'] }));",
      ].join('\n');
      await writeFile(join(p.dir, '..', `${p.dir.split('/').pop()}-check.cjs`), check);
      try {
        const r = await runProject({
          projectRoot: p.dir,
          flags: { target: '.', scope: 'project', mode: 'autoprove', maxCycles: 1, maxStuck: 1 },
          worker: { argv: [process.execPath, CHEAT, 'honest'] },
          diagnosticsArgv: [process.execPath, join(p.dir, '..', `${p.dir.split('/').pop()}-check.cjs`)],
          workerTimeoutMs: 30_000,
        });
        expect(r.handoff.status).not.toBe('solved');
        expect(gitLog(p.dir)).toEqual(['init']);
        expect(r.context.log.join('\n')).toMatch(/T\.lean:2 not confirmed — T\.lean:2:type mismatch/);
        // the failing edit is put back too (the same path): the sorry is there again
        expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).toBe(THEOREM);
        expect(r.handoff.failed_avenues).toContainEqual(
          "restored T.lean: the claim 'solved' did not hold — T.lean:2:type mismatch",
        );
      } finally {
        await rm(join(p.dir, '..', `${p.dir.split('/').pop()}-check.cjs`), { force: true });
      }
    });
  }, 60_000);

  it('a synthesis session judges solved the same way: an `admit` left in the draft is an open target', async () => {
    await withGitProject({ 'Paper.lean': '-- the paper\n' }, async (p) => {
      const draft =
        'theorem two_eq : 1 + 1 = 2 := by\n  decide\n\ntheorem two_eq_hard : 2 + 2 = 5 := by\n  admit\n';
      let t = Date.UTC(2026, 11, 2);
      const r = await runSynthesis({
        projectRoot: p.dir,
        mode: 'auto',
        source: GOLF_PAPER,
        claimSelect: '2',
        target: 'Paper.lean',
        drafter: {
          port: inProcessDrafter(async (req) => {
            await writeFile(req.temp_path, draft);
            const response = {
              schema: 'draft-response/v1' as const,
              status: 'drafted' as const,
              declarations: ['two_eq', 'two_eq_hard'],
              detail: null,
            };
            return { response, text: draft };
          }),
        },
        // the worker cannot touch an `admit` (it replaces `sorry`) yet claims solved
        worker: { argv: [process.execPath, CHEAT, 'honest'] },
        maxCycles: 1,
        maxStuck: 1,
        clock: () => (t += 1000),
      });
      // the line scan of `sorry` saw no target here and called the claim proved
      expect(r.output.reports[0]?.status).not.toBe('proved');
      expect(await readFile(join(p.dir, 'Paper.lean'), 'utf8')).toContain('  admit\n');
    });
  }, 60_000);
});

describe('a refuted edit is restored when the run stops mid-cycle (issue 27 §1)', () => {
  const STOPPER = fileURLToPath(new URL('./fixtures/refuted-then-garbage.mjs', import.meta.url));

  it('refuted claim, then a protocol error before the checkpoint: the tree holds the pre-dispatch bytes', async () => {
    await withGitProject(PROJECT, async (p) => {
      const r = await runProject({
        projectRoot: p.dir,
        // deep always: after the refuted fill the same cycle dispatches deep mode, whose worker breaks the protocol
        flags: { target: 'T.lean', scope: 'file', mode: 'autoprove', maxCycles: 2, deep: 'always' },
        worker: { argv: [process.execPath, STOPPER] },
        workerTimeoutMs: 30_000,
      });
      expect(r.handoff.status).toBe('stopped');
      expect(r.handoff.stop_reason).toBe('protocol-error');
      expect(r.context.log.join('\n')).toMatch(/T\.lean:2 not confirmed — .*still in theorem t \(line 3\)/);
      // the fill's refuted edit (the moved sorry) is gone from the tree, and nothing was committed
      expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).toBe(THEOREM);
      expect(gitLog(p.dir)).toEqual(['init']);
      expect(r.context.log).toContainEqual(
        expect.stringMatching(/^stop: restored T\.lean: the claim 'solved' did not hold/),
      );
      expect(r.handoff.failed_avenues).toContainEqual(
        expect.stringMatching(/^restored T\.lean: the claim 'solved' did not hold — T\.lean:2 still open/),
      );
      // the final record's custody is the restored bytes
      const entry = r.handoff.file_baseline?.files.find((f) => f.path.endsWith('/T.lean'));
      expect(entry?.sha256).toBe(createHash('sha256').update(THEOREM).digest('hex'));
    });
  }, 60_000);
});
