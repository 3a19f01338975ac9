/**
 * Part 2 of `npm start`: the six-phase cycle end to end. Copies examples/demo-project into a
 * temporary git repository, runs `handoff run`'s engine in autoprove with the TypeScript example
 * worker as a real child process and persistence on the embedded fs store, and shows the progress,
 * the checkpoint commits, the stuck target → review → replan → stop, the final handoff record
 * with its blocker fields, the run id and the command to inspect the run.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { validateHandoff } from '../contract/index.js';
import { createPersistRecorder } from '../runtime/persist-recorder.js';
import { runProject } from '../runtime/project-run.js';
import { describeProgress } from '../runtime/worker-framing.js';
import type { CliIo } from './io.js';
import { progressPrinter } from './run.js';

const exec = promisify(execFile);

/**
 * Runs the cycle demo and resolves to 0 when it behaved as designed (checkpoints committed, the
 * stuck target stopped the run with a valid blocker-driven handoff, the final record stored).
 *
 * @example
 * ```ts
 * process.exitCode = await runCycleDemo(processIo());
 * ```
 */
export async function runCycleDemo(io: CliIo): Promise<number> {
  const say = (l = '') => io.out(`${l}\n`);
  const project = fileURLToPath(new URL('../../../examples/demo-project/', import.meta.url));
  const worker = fileURLToPath(new URL('../../examples/workers/solver-worker.js', import.meta.url));
  const dir = await mkdtemp(join(tmpdir(), 'handoff-demo-'));
  let failures = 0;
  const check = (ok: boolean, what: string) => {
    say(`  ${ok ? '✓' : '✗'} ${what}`);
    if (!ok) failures++;
  };
  try {
    await cp(project, dir, { recursive: true });
    const git = (...args: string[]) => exec('git', args, { cwd: dir });
    await git('init', '-q');
    await git('add', '-A');
    await git(
      '-c',
      'user.name=demo',
      '-c',
      'user.email=demo@localhost',
      'commit',
      '-q',
      '-m',
      'demo project',
    );
    say('── six-phase cycle: handoff run (autoprove, TypeScript worker, fs store) ──');
    say(`  project: ${dir} (temporary git repository)`);
    say(`  worker:  node ${worker}`);
    say();
    const recorder = await createPersistRecorder({ projectRoot: dir, env: {} });
    const show = progressPrinter({ ...io, isTTY: false }, (t) => io.out(`    ${t}`));
    const r = await runProject({
      projectRoot: dir,
      flags: { target: 'Demo', scope: 'project', mode: 'autoprove', maxCycles: 12 },
      worker: { argv: [process.execPath, worker] },
      recorder,
      onProgress: show,
      onWorkerProgress: (p, d) => show.line(describeProgress(p, d.target)),
    });
    const h = r.handoff;
    say();
    const log = (await git('log', '--format=%h %s')).stdout.trim().split('\n');
    say('  git log:');
    for (const l of log) say(`    ${l}`);
    check(
      log.filter((l) => / checkpoint: /.test(l)).length >= 1,
      'accepted work was committed as checkpoint commits',
    );
    check(validateHandoff(h).ok, 'the final handoff record validates (run-contract/v1)');
    check(h.status === 'stuck', `the run ended on a blocker: status ${h.status}`);
    say(`    blocker_kind ${h.blocker_kind}, blocker_class ${h.blocker_class}`);
    say(`    blocker_signature ${h.blocker_signature}`);
    say(`    new_evidence_required_for_rerun: ${h.new_evidence_required_for_rerun}`);
    check(
      r.context.log.some((l) => l.startsWith('review (stuck)')) &&
        r.context.log.some((l) => l.startsWith('plan: replan after stuck')),
      'the stuck target triggered the stuck review and the mandatory replan',
    );
    check(
      r.context.log.some((l) => l.startsWith('guard: relaunch')),
      'the rerun guard refused relaunching the stuck target without new evidence',
    );
    check(
      r.finalCite !== null,
      `the final handoff is stored in the journal as ${r.finalCite ?? '(not stored)'}`,
    );
    say();
    say('  final handoff record:');
    for (const l of JSON.stringify(h, null, 2).split('\n')) say(`    ${l}`);
    say();
    say(`  run id: ${r.runId}`);
    say(`  inspect it: handoff inspect ${r.runId} --root ${recorder.storageRoot}`);
    say(`  audit its recorded transitions: handoff audit ${r.runId} --root ${recorder.storageRoot}`);
    say(`  raw journal: handoff store load --root ${recorder.storageRoot} --run-id ${r.runId}`);
    say(
      `  relaunch with evidence: handoff run --project ${dir} --target Demo --scope project --mode autoprove \\`,
    );
    say(`      --worker 'node ${worker}' --persist --prior-run ${r.runId} --evidence 'use: omega'`);
    say(`  (the temporary project is kept for inspection: ${dir})`);
    await recorder.dispose();
    return failures === 0 ? 0 : 1;
  } catch (e) {
    say(`  ✗ the cycle demo failed: ${(e as Error).message}`);
    await rm(dir, { recursive: true, force: true });
    return 1;
  }
}
