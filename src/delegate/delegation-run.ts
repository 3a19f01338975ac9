/**
 * Running a provided delegation machine to its final state (layer 3): one actor, started with the
 * host's inspector (the trace collector), resolved with its output when it settles. The machine
 * never waits for an event from outside: each state's actor moves it on.
 */
import { createActor, toPromise } from 'xstate';
import type { delegationMachine } from '../../machines/delegation.js';
import type { MachineInspector } from '../../machines/inspector.js';
import type { DelegationMachineInput, DelegationMachineOutput } from './delegation-reducers.js';

/**
 * Starts `machine` (the delegation machine with its actors provided) on `input` and resolves to
 * its output once it reaches `settled`, `refused` or `failed`.
 *
 * @example
 * ```ts
 * const { result, cite } = await runToEnd(delegationMachine.provide({ actors }), { dispatch }, trace.inspect);
 * ```
 */
export async function runToEnd(
  machine: typeof delegationMachine,
  input: DelegationMachineInput,
  inspect?: MachineInspector,
): Promise<DelegationMachineOutput> {
  const actor = createActor(machine, { input, ...(inspect === undefined ? {} : { inspect }) });
  const done = toPromise(actor);
  actor.start();
  return (await done) as DelegationMachineOutput;
}
