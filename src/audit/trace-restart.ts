/**
 * When a recorded trace may restart (pure): a run continued from its journal (`chain.resume`
 * after a SeamError, or in a fresh process after a crash) is driven by a new machine actor, which
 * starts in the machine's initial state, not where the journal's last write left the old one. Its
 * first recorded step leaves the initial state — and that step is the resume point the audit
 * understands: no extra marker is written, so a journal of a resumed run reads as before and
 * journals written before this rule audit correctly too.
 *
 * A step is a restart only when all hold:
 * 1. its machine is resumable ({@link RESUMABLE_MACHINES}: runs of it are continued from a
 *    journal's last commit by a new actor);
 * 2. its source is in the machine's initial configuration (a new actor's first step) and not
 *    active now (an active source is an ordinary step);
 * 3. it stands where a new actor can begin: it is the machine's first step in its write (the
 *    previous actor's steps after its last commit were never written — a crash, or a run that
 *    stopped), or the previous actor reached a final state (nothing of it can follow).
 *
 * Anything else stays a finding: a restart in the middle of a write while the old actor still ran
 * is `not_active`, and after a restart the replay goes on from the initial configuration, so an
 * impossible step after a forged restart is flagged as any other.
 */
import type { TraceStep } from '../store/store-types.js';
import type { MachineGraph } from '../viz/graph.js';
import { ancestry, initialConfiguration, isActive, type NodeIndex } from './configuration.js';

/**
 * Machines whose runs are continued from a journal's last commit by a new actor: the chain's seam
 * machine (`chain.resume`, `chain.run(checkpoint)`) and the cycle machine (`handoff run --resume`:
 * a killed persisted run continued in its own journal, src/runtime/resume-run.ts).
 *
 * @example
 * ```ts
 * RESUMABLE_MACHINES.includes('chain'); // true
 * ```
 */
export const RESUMABLE_MACHINES: readonly string[] = Object.freeze(['chain', 'cycle']);

/**
 * True when `leaves` (the active atomic states) hold a final child of the machine's root: the
 * actor has finished.
 *
 * @example
 * ```ts
 * machineFinished(index, 'chain', ['chain.stopped']); // true
 * machineFinished(index, 'chain', ['chain.running']); // false
 * ```
 */
export function machineFinished(index: NodeIndex, root: string, leaves: readonly string[]): boolean {
  return leaves.some((leaf) => {
    const n = index.get(leaf);
    return n?.final === true && n.parent === root;
  });
}

/** Where a step stands in the replay, as {@link isTraceRestart} needs it. */
export interface RestartContext {
  readonly graph: MachineGraph;
  readonly index: NodeIndex;
  /** The active atomic states before the step. */
  readonly leaves: readonly string[];
  /** True when no earlier step of the same machine is in the same write (batch, line). */
  readonly firstInWrite: boolean;
  /** The machines that may restart (default {@link RESUMABLE_MACHINES}). */
  readonly resumable?: readonly string[];
}

/**
 * Whether `step` (a transition the machine has) is a new actor's first step at a point where a
 * resumed run may begin (see the file's rules). Never throws.
 *
 * @example
 * ```ts
 * isTraceRestart({ machine: 'chain', from: 'chain.ready', event: 'START', to: 'chain.running' },
 *   { graph, index, leaves: ['chain.committed'], firstInWrite: true }); // true
 * isTraceRestart(sameStep, { graph, index, leaves: ['chain.running'], firstInWrite: false }); // false
 * ```
 */
export function isTraceRestart(step: TraceStep, at: RestartContext): boolean {
  if (!(at.resumable ?? RESUMABLE_MACHINES).includes(step.machine)) return false;
  if (!at.index.has(step.from) || isActive(at.index, at.leaves, step.from)) return false;
  const initial = initialConfiguration(at.graph);
  // the source is an initial leaf or one of its ancestors below the root
  if (!initial.some((leaf) => ancestry(at.index, leaf).includes(step.from))) return false;
  return at.firstInWrite || machineFinished(at.index, at.graph.root, at.leaves);
}
