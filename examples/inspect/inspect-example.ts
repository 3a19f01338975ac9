/**
 * Watching a run's protocol machine: an xstate inspector given to `runProject`'s `inspect` option
 * (the same option exists on `runCycle`, `runGate` and `HandoffChain.run`/`resume`/`advance`)
 * logs every state transition of the cycle machine as the run goes, with the event that caused it.
 *
 * The inspector is a plain callback: `@xstate.snapshot` inspection events of the root actor carry
 * each new snapshot; the events of the actors the machine invokes (the worker, diagnostics, the
 * checkpointer…) have their own `sessionId` and are skipped here.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { advanceBaseline, handoffFor, runProject } from 'handoff-runtime';
import type { MachineInspector } from 'handoff-runtime/machines';

/** One logged transition of the inspected machine. */
export interface Transition {
  /** The state before (`null` for the initial snapshot). */
  readonly from: string | null;
  readonly to: string;
  /** The event that caused it (`xstate.init`, `xstate.done.actor.worker`…). */
  readonly event: string;
}

/** A state value as one dotted path (`{ plan: 'discover' }` → `plan.discover`). */
export function statePath(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return String(value);
  const [k, v] = Object.entries(value)[0] ?? ['?', ''];
  return `${k}.${statePath(v)}`;
}

/**
 * An inspector that reports each state transition of the root machine to `onTransition`.
 *
 * @example
 * ```ts
 * const inspect = transitionLogger((t) => console.log(`${t.from} → ${t.to}  (${t.event})`));
 * await runProject({ projectRoot, flags, worker, inspect });
 * ```
 */
export function transitionLogger(onTransition: (t: Transition) => void): MachineInspector {
  let current: string | null = null;
  return (e) => {
    if (e.type !== '@xstate.snapshot' || e.actorRef.sessionId !== e.rootId) return;
    const to = statePath((e.snapshot as { value?: unknown }).value);
    if (to === current) return; // an update of the context only
    onTransition({ from: current, to, event: e.event.type });
    current = to;
  };
}

/**
 * Writes a one-file Lean project with one `sorry` into `dir` (which must exist) and commits it.
 *
 * @example
 * ```ts
 * await createInspectProject('/tmp/inspect-demo');
 * ```
 */
export async function createInspectProject(dir: string): Promise<void> {
  await writeFile(join(dir, 'Demo.lean'), 'theorem demo : 1 = 1 := by\n  sorry\n');
  const git = (args: readonly string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git(['init', '-q']);
  git(['add', '-A']);
  git(['-c', 'user.name=demo', '-c', 'user.email=demo@example.invalid', 'commit', '-q', '-m', 'demo']);
}

/**
 * Runs one autoprove cycle on the project in `dir` with an in-process worker that closes the
 * `sorry`, logging every transition of the cycle machine; resolves to the handoff's status and
 * the transitions seen.
 *
 * @example
 * ```ts
 * const r = await runInspectExample(dir, (t) => console.log(t.to));
 * r.status; // 'solved'
 * ```
 */
export async function runInspectExample(
  dir: string,
  onTransition: (t: Transition) => void,
): Promise<{ readonly status: string; readonly transitions: readonly Transition[] }> {
  const transitions: Transition[] = [];
  const r = await runProject({
    projectRoot: dir,
    flags: { target: 'Demo.lean', scope: 'file', mode: 'autoprove' },
    worker: {
      inProcess: async (d) => {
        const file = d.owned_files[0] as string;
        await writeFile(file, (await readFile(file, 'utf8')).replace('sorry', 'rfl'));
        const file_baseline = await advanceBaseline(d.file_baseline, [file]);
        return { handoff: handoffFor(d, { files_changed: [file], file_baseline }) };
      },
    },
    inspect: transitionLogger((t) => {
      transitions.push(t);
      onTransition(t);
    }),
  });
  return { status: r.handoff.status, transitions };
}
