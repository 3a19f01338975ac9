/**
 * The protocol machines of handoff-runtime (xstate v5). Each machine lives in its own file and is
 * re-exported here.
 */
export { type GateEvent, type GateMachine, gateMachine } from './gate.js';
