/**
 * The observer a host may attach to a protocol machine's actor: xstate's `inspect` option, passed
 * unchanged to `createActor(machine, { inspect })` by every runner (`runCycle`/`runProject`,
 * `runGate`, `HandoffChain.run`/`resume`). It receives the actor's inspection events
 * (`@xstate.actor`, `@xstate.event`, `@xstate.snapshot`, `@xstate.microstep`, `@xstate.action`)
 * for the machine and every actor it invokes.
 */
import type { InspectionEvent, Observer } from 'xstate';

/**
 * An xstate inspector: a function of each inspection event, or an observer
 * (`@statelyai/inspect`'s `inspector.inspect` is one).
 *
 * @example
 * ```ts
 * const states: string[] = [];
 * const inspect: MachineInspector = (e) => {
 *   // the root machine's snapshots (invoked actors have their own sessionId)
 *   if (e.type === '@xstate.snapshot' && e.actorRef.sessionId === e.rootId)
 *     states.push(JSON.stringify((e.snapshot as { value?: unknown }).value));
 * };
 * await runCycle({ ...input, inspect });
 * ```
 */
export type MachineInspector = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

/**
 * One inspector that forwards each inspection event to every given inspector (functions or
 * observers), in order; `undefined` when none is given. Lets a runner attach its own observer (a
 * persisted run's transition trace) beside the host's.
 *
 * @example
 * ```ts
 * const inspect = combineInspectors(hostInspector, recorder.inspect);
 * createActor(machine, inspect === undefined ? {} : { inspect });
 * ```
 */
export function combineInspectors(
  ...inspectors: readonly (MachineInspector | undefined)[]
): MachineInspector | undefined {
  const given = inspectors.filter((x): x is MachineInspector => x !== undefined);
  if (given.length <= 1) return given[0];
  return (event) => {
    for (const x of given) {
      if (typeof x === 'function') x(event);
      else x.next?.(event);
    }
  };
}
