/**
 * Part 2 of `npm start`: the six-phase cycle end to end, with cycle engine II's two escalations.
 * Copies examples/demo-project into a temporary git repository, runs `handoff run`'s engine in
 * autoprove with the TypeScript example worker as a real child process and persistence on the
 * embedded fs store, and shows the progress, a **repair escalation** (Demo/Arith.lean does not
 * build; the same blocker twice sends it to the patch-only repair worker, whose diff the runtime
 * applies under custody and checkpoints), a **deep rollback** (Demo/Tower.lean's deep pass raises
 * the sorry count; the regression gate restores the file byte for byte and the target becomes a
 * declared blocker), the checkpoint commits, the final handoff record with its blocker fields, the run id and
 * the command to inspect the run.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Handoff, validateHandoff } from '../contract/index.js';
import { createPersistRecorder } from '../runtime/persist-recorder.js';
import { runProject } from '../runtime/project-run.js';
import { describeProgress } from '../runtime/worker-framing.js';
import type { CliIo } from './io.js';
import { progressPrinter } from './run.js';
import { escapeControls, escapeLine } from './terminal-text.js';

const exec = promisify(execFile);

/** The demo project's file whose build error the repair escalation fixes. */
export const DEMO_REPAIR_FILE = 'Demo/Arith.lean';
/** The demo project's file whose deep pass is rolled back. */
export const DEMO_DEEP_FILE = 'Demo/Tower.lean';

/**
 * The lines of a run's progress log that tell one escalation (pure): `repair: …` lines for
 * repair mode, `deep: …` lines for deep mode, each in order, escaped for display (a log line may
 * quote a worker's string).
 *
 * @example
 * ```ts
 * escalationLines(['work: A.lean:2 → stuck', 'repair: patch applied to A.lean'], 'repair');
 * // ['repair: patch applied to A.lean']
 * ```
 */
export function escalationLines(log: readonly string[], kind: 'repair' | 'deep'): string[] {
  return log.filter((l) => l.startsWith(`${kind}: `)).map(escapeLine);
}

/**
 * The unified diff a patch-only repair worker returned for `file` (pure): the content of the one
 * `unified-diff` artifact of a handoff that changed no file and whose diff names `file` on both
 * sides; null when no handoff of the run qualifies (a handoff with edits, two diffs, or a diff
 * aimed elsewhere is no repair handoff of `file`).
 *
 * @example
 * ```ts
 * repairDiffOf(r.context.handoffs, 'Demo/Arith.lean'); // '--- a/Demo/Arith.lean\n+++ b/Demo/Arith.lean\n@@ …'
 * ```
 */
export function repairDiffOf(handoffs: readonly Handoff[], file: string): string | null {
  for (const h of handoffs) {
    const diffs = h.artifacts.filter((a) => a.kind === 'unified-diff');
    if (h.files_changed.length !== 0 || diffs.length !== 1) continue;
    const content = diffs[0]?.content ?? '';
    const lines = content.split('\n');
    if (lines.includes(`--- a/${file}`) && lines.includes(`+++ b/${file}`)) return content;
  }
  return null;
}

/**
 * The hunk body lines of a unified diff (pure): every context, removed and added line, without
 * the file headers and hunk headers — what two diffs of the same change have in common whatever
 * produced them (a worker, `git diff`).
 *
 * @example
 * ```ts
 * diffBody('--- a/A\n+++ b/A\n@@ -1 +1 @@ x\n-a\n+b\n'); // ['-a', '+b']
 * ```
 */
export function diffBody(diff: string): string[] {
  const out: string[] = [];
  let inHunk = false;
  for (const l of diff.split('\n')) {
    if (l.startsWith('@@')) inHunk = true;
    else if (!inHunk || l === '') continue;
    else if (l.startsWith('diff ') || l.startsWith('--- ') || l.startsWith('+++ ')) inHunk = false;
    else if (/^[ +\-\\]/.test(l)) out.push(l);
  }
  return out;
}

/**
 * The sha256 (hex) of some bytes.
 *
 * @example
 * ```ts
 * sha256Hex(Buffer.from('')); // 'e3b0c442…b855'
 * ```
 */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A git runner bound to one repository (argv, no shell). */
export type Git = (...args: string[]) => Promise<{ stdout: string }>;

/**
 * Whether a rolled-back file holds exactly the bytes git committed for it: the sha256 of the
 * working file against the sha256 of its blob at HEAD, and the commits that ever touched it.
 *
 * @example
 * ```ts
 * const r = await rollbackRestored(dir, 'Demo/Tower.lean', git);
 * r.ok; // true when both digests agree and only the initial commit touched it
 * ```
 */
export async function rollbackRestored(
  dir: string,
  rel: string,
  git: Git,
): Promise<{ ok: boolean; working: string; committed: string; commits: number }> {
  const working = sha256Hex(await readFile(join(dir, rel)).catch(() => Buffer.from('\0missing')));
  const blob = await exec('git', ['cat-file', 'blob', `HEAD:${rel}`], {
    cwd: dir,
    encoding: 'buffer',
    maxBuffer: 1 << 24,
  }).catch(() => null);
  const committed = blob === null ? '(not in git)' : sha256Hex(blob.stdout);
  const commits = (await git('log', '--format=%H', '--', rel)).stdout
    .trim()
    .split('\n')
    .filter(Boolean).length;
  return { ok: blob !== null && working === committed && commits === 1, working, committed, commits };
}

/**
 * The checkpoint commit that carries a repair diff: the first commit after the initial one that
 * touched `rel`, when its change to `rel` is exactly the diff's hunks ({@link diffBody}).
 *
 * @example
 * ```ts
 * (await repairCommit('Demo/Arith.lean', diff, git))?.subject; // 'checkpoint: cycle 2: …'
 * ```
 */
export async function repairCommit(
  rel: string,
  diff: string,
  git: Git,
): Promise<{ commit: string; subject: string } | null> {
  const commits = (await git('log', '--reverse', '--format=%H %s', '--', rel)).stdout.trim().split('\n');
  const first = commits[1];
  if (first === undefined) return null;
  const sp = first.indexOf(' ');
  const commit = first.slice(0, sp);
  const shown = (await git('diff', '-U3', `${commit}^`, commit, '--', rel)).stdout;
  const same = diffBody(shown).join('\n') === diffBody(diff).join('\n');
  return same ? { commit, subject: first.slice(sp + 1) } : null;
}

/**
 * True when a run's final handoff ended on a blocker (pure): `stuck`, or `stopped` on
 * `max-stuck` (blocker-driven), with the blocker fields a relaunch needs (kind, signature, the
 * evidence required), for the run's own task.
 *
 * @example
 * ```ts
 * endedOnBlocker({ ...h, status: 'stuck', blocker_kind: 'proof', blocker_signature: 'A.lean:2:x', new_evidence_required_for_rerun: 'a lemma' }); // true
 * endedOnBlocker({ ...h, status: 'solved' }); // false
 * ```
 */
export function endedOnBlocker(h: Handoff): boolean {
  const onBlocker = h.status === 'stuck' || (h.status === 'stopped' && h.stop_reason === 'max-stuck');
  return (
    onBlocker &&
    h.blocker_kind !== null &&
    h.blocker_signature !== null &&
    h.new_evidence_required_for_rerun !== null &&
    validateHandoff(h).ok
  );
}

/** Options of {@link runCycleDemo}. */
export interface CycleDemoOptions {
  /** Keep the temporary project for inspection (default true; tests pass false). */
  readonly keep?: boolean;
}

/**
 * Runs the cycle demo and resolves to 0 when it behaved as designed: accepted work committed as
 * checkpoints; one repair escalation whose patch-only diff the runtime applied and checkpointed
 * (the commit's change is exactly the worker's diff); one deep pass rolled back to the exact
 * committed bytes (sha256 of the file = sha256 of git's blob, never staged) and the target declared
 * a blocker; the run ended on a blocker with a valid handoff ({@link endedOnBlocker}), stored in
 * the journal; nothing unverified left in the working tree.
 *
 * @example
 * ```ts
 * process.exitCode = await runCycleDemo(processIo());
 * ```
 */
export async function runCycleDemo(io: CliIo, options: CycleDemoOptions = {}): Promise<number> {
  const say = (l = '') => io.out(`${l}\n`);
  const project = fileURLToPath(new URL('../../../examples/demo-project/', import.meta.url));
  const worker = fileURLToPath(new URL('../../examples/workers/solver-worker.js', import.meta.url));
  const dir = await mkdtemp(join(tmpdir(), 'handoff-demo-'));
  const keep = options.keep ?? true;
  let failures = 0;
  const check = (ok: boolean, what: string) => {
    say(`  ${ok ? '✓' : '✗'} ${what}`);
    if (!ok) failures++;
  };
  const git: Git = (...args) => exec('git', args, { cwd: dir });
  try {
    await cp(project, dir, { recursive: true });
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
    say(`  ${DEMO_REPAIR_FILE} does not build (a repair escalation); ${DEMO_DEEP_FILE} gets a deep pass`);
    say();
    const recorder = await createPersistRecorder({ projectRoot: dir, env: {} });
    const show = progressPrinter({ ...io, isTTY: false }, (t) => io.out(`    ${t}`));
    const r = await runProject({
      projectRoot: dir,
      flags: { target: 'Demo', scope: 'project', mode: 'autoprove', maxCycles: 16 },
      worker: { argv: [process.execPath, worker] },
      recorder,
      onProgress: show,
      onWorkerProgress: (p, d) => show.line(describeProgress(p, d.target)),
    });
    const h = r.handoff;
    const log = r.context.log;
    say();
    const commits = (await git('log', '--format=%h %s')).stdout.trim().split('\n');
    say('  git log:');
    for (const l of commits) say(`    ${escapeLine(l)}`);
    check(
      commits.filter((l) => / checkpoint: /.test(l)).length >= 1,
      'accepted work was committed as checkpoint commits',
    );
    const batch = batchedPair(log);
    check(
      batch !== null,
      `autoprove's --batch-size 2 dispatched targets of disjoint files together${batch === null ? '' : ` (${batch.join(' + ')})`}`,
    );

    say();
    say('  repair escalation (from the progress log):');
    for (const l of escalationLines(log, 'repair')) say(`    ${l}`);
    const diff = repairDiffOf(r.context.handoffs, DEMO_REPAIR_FILE);
    check(
      log.some((l) => l.startsWith('repair: ') && / — same blocker signature 2 iterations/.test(l)),
      'the same blocker on two consecutive iterations escalated to repair mode',
    );
    check(diff !== null, 'the patch-only repair worker returned one unified diff, files_changed: []');
    if (diff !== null) {
      say("    the worker's diff:");
      for (const l of escapeControls(diff).trimEnd().split('\n')) say(`      ${l}`);
    }
    check(
      log.some((l) => l === `repair: patch applied to ${DEMO_REPAIR_FILE}`) &&
        log.some((l) => l.startsWith('repair: ') && / — improved \(/.test(l)),
      'the runtime applied the diff under custody and the build error is gone (improved)',
    );
    const repaired = diff === null ? null : await repairCommit(DEMO_REPAIR_FILE, diff, git);
    check(
      repaired !== null,
      repaired === null
        ? "the repaired file was checkpointed with exactly the worker's diff"
        : `the repaired file was checkpointed with exactly the worker's diff (${repaired.commit.slice(0, 8)} ${escapeLine(repaired.subject)})`,
    );

    say();
    say('  deep rollback (from the progress log):');
    for (const l of escalationLines(log, 'deep').filter((l) => l.includes(DEMO_DEEP_FILE))) say(`    ${l}`);
    const deepEdit = r.context.handoffs.some(
      (x) => (x.target ?? '').startsWith(`${DEMO_DEEP_FILE}:`) && x.files_changed.length > 0,
    );
    check(
      deepEdit &&
        log.some((l) =>
          l.startsWith(`deep: rolled back ${DEMO_DEEP_FILE} — deep: regression — sorry count +`),
        ),
      'the deep pass raised the sorry count and the regression gate rolled it back',
    );
    const restored = await rollbackRestored(dir, DEMO_DEEP_FILE, git);
    say(`    sha256 working file ${restored.working}`);
    say(`    sha256 git HEAD     ${restored.committed}`);
    check(
      restored.ok,
      `the rollback restored ${DEMO_DEEP_FILE} byte for byte and it was never staged or committed`,
    );

    say();
    check(validateHandoff(h).ok, 'the final handoff record validates (run-contract/v1)');
    check(
      endedOnBlocker(h),
      `as designed, the run did not claim success: it ended on a blocker, status ${h.status}${h.stop_reason === null ? '' : ` (${h.stop_reason})`}`,
    );
    say(`    blocker_kind ${h.blocker_kind}, blocker_class ${h.blocker_class}`);
    say(`    blocker_signature ${escapeLine(h.blocker_signature ?? '')}`);
    say(`    new_evidence_required_for_rerun: ${escapeLine(h.new_evidence_required_for_rerun ?? '')}`);
    check(
      log.some((l) => l.startsWith('review (stuck)')),
      'the stuck targets went through the stuck review',
    );
    const held = r.context.blocked[`${DEMO_DEEP_FILE}:5`];
    check(
      held?.blocker_signature === `${DEMO_DEEP_FILE}:5:deep rollback`,
      `the rolled-back target is a declared blocker: ${escapeLine(held?.blocker_signature ?? '(none)')}`,
    );
    check(
      log.some((l) => l.startsWith('guard: relaunch of ')),
      'the rerun guard refused relaunching a declared blocker without new evidence',
    );
    const dirty = (await git('status', '--porcelain', '--untracked-files=all')).stdout
      .split('\n')
      .filter((l) => l !== '' && !l.slice(3).startsWith('.handoff/'));
    check(dirty.length === 0, 'nothing unverified is left in the working tree (git status is clean)');
    check(
      r.finalCite !== null,
      `the final handoff is stored in the journal as ${r.finalCite ?? '(not stored)'}`,
    );
    say();
    say('  final handoff record:');
    for (const l of escapeControls(JSON.stringify(h, null, 2)).split('\n')) say(`    ${l}`);
    say();
    say(`  run id: ${r.runId}`);
    say(`  inspect it: npx handoff inspect ${r.runId} --root ${recorder.storageRoot}`);
    say(`  audit its recorded transitions: npx handoff audit ${r.runId} --root ${recorder.storageRoot}`);
    say(`  raw journal: npx handoff store load --root ${recorder.storageRoot} --run-id ${r.runId}`);
    say(`  (the temporary project is ${keep ? `kept for inspection: ${dir}` : 'removed'})`);
    await recorder.dispose();
    if (!keep) await rm(dir, { recursive: true, force: true });
    return failures === 0 ? 0 : 1;
  } catch (e) {
    say(`  ✗ the cycle demo failed: ${escapeLine((e as Error).message)}`);
    await rm(dir, { recursive: true, force: true });
    return 1;
  }
}

/**
 * The first two targets of different files dispatched together (a batch: their `work:` lines
 * are consecutive in the log, where a lone dispatch is always followed by its verification), or
 * null when no cycle batched.
 *
 * @example
 * ```ts
 * batchedPair(['work: A.lean:2 → solved', 'work: B.lean:2 → solved']); // ['A.lean:2', 'B.lean:2']
 * ```
 */
export function batchedPair(log: readonly string[]): [string, string] | null {
  const target = (l: string | undefined) => /^work: (\S+) → /.exec(l ?? '')?.[1] ?? null;
  for (let i = 1; i < log.length; i++) {
    const a = target(log[i - 1]);
    const b = target(log[i]);
    if (a !== null && b !== null && a.slice(0, a.lastIndexOf(':')) !== b.slice(0, b.lastIndexOf(':')))
      return [a, b];
  }
  return null;
}
