/**
 * The protocol machines of handoff-runtime (xstate v5). Each machine lives in its own file and is
 * re-exported here.
 */

export {
  type ChainMachineContext,
  type ChainMachineEvent,
  type ChainMachineInput,
  type ChainMachineOutput,
  chainMachine,
  initialChainContext,
} from './chain.js';
export { BLOCKER_OPTIONS, cycleMachine, cycleSetup, initialCycleContext } from './cycle.js';
export { type GateEvent, type GateMachine, gateMachine } from './gate.js';
