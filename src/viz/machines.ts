/**
 * The protocol machines the visualiser knows by name (`handoff viz <name>`), with the source file
 * each is defined in (for generated docs).
 */
import type { AnyStateMachine } from 'xstate';
import {
  chainMachine,
  cycleMachine,
  delegationMachine,
  gateMachine,
  synthesisMachine,
  transferMachine,
} from '../../machines/index.js';

/** A named machine. */
export interface NamedMachine {
  readonly name: string;
  readonly machine: AnyStateMachine;
  /** Repository path of the machine's source. */
  readonly source: string;
  /** One-sentence summary for generated docs. */
  readonly summary: string;
}

/** Names accepted by `handoff viz`, in a fixed order. */
export const MACHINE_NAMES = ['cycle', 'chain', 'gate', 'synthesis', 'delegation', 'transfer'] as const;

/** A machine name. */
export type MachineName = (typeof MACHINE_NAMES)[number];

/**
 * The machine registered under `name`, or undefined.
 *
 * @example
 * ```ts
 * namedMachine('gate')?.machine.id; // 'gate'
 * ```
 */
export function namedMachine(name: string): NamedMachine | undefined {
  switch (name) {
    case 'cycle':
      return {
        name,
        machine: cycleMachine as unknown as AnyStateMachine,
        source: 'machines/cycle.ts',
        summary:
          'The six-phase proving cycle (seed 002): plan → work → checkpoint → review → replan → boundary (continue or stop), ending solved, stuck or stopped with the run’s handoff record.',
      };
    case 'chain':
      return {
        name,
        machine: chainMachine as unknown as AnyStateMachine,
        source: 'machines/chain.ts',
        summary:
          'The handoff-chain seam lifecycle (seed 004): ready → running → validating → committed → next seam or accepted; a refusal fails at the seam holding the checkpoint, RETRY or GIVE_UP.',
      };
    case 'gate':
      return {
        name,
        machine: gateMachine as unknown as AnyStateMachine,
        source: 'machines/gate.ts',
        summary:
          'The gate protocol lifecycle (seed 001): collect evidence, exact checks, evaluate, route, reserve a continuation, continue, validate — every path ends at the lead (leadReview or stopped).',
      };
    case 'synthesis':
      return {
        name,
        machine: synthesisMachine as unknown as AnyStateMachine,
        source: 'machines/synthesis.ts',
        summary:
          'The synthesis outer loop (seed 002): claims extracted once, then per claim skip-if-present → draft → (guided approval) → assemble → validate → draft: commit → the inner cycle → on stuck the review router (again, redraft under provenance and statement policy, golf, stop), ending done, halted or failed.',
      };
    case 'delegation':
      return {
        name,
        machine: delegationMachine as unknown as AnyStateMachine,
        source: 'machines/delegation.ts',
        summary:
          'One checked handoff (`delegate` and the framework adapters): dispatch (journaled first) → prepare → work → check (custody, fence, record; a refusal puts back what the worker touched) → journal the handoff (write-ahead) → settled, refused or failed.',
      };
    case 'transfer':
      return {
        name,
        machine: transferMachine as unknown as AnyStateMachine,
        source: 'machines/transfer.ts',
        summary:
          'Dynamic handoff (seed 004’s next step): idle → requested → authorized → transferring (journaled) → active(agent), one agent holding an authority lease; refusals journaled; the session ends returned, escalated, revoked or expired.',
      };
    default:
      return undefined;
  }
}
