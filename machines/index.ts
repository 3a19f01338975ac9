/**
 * The protocol machines of handoff-runtime (xstate v5). Each machine lives in its own file and is
 * re-exported here, with the types of its actor's input and output and of the actors it invokes
 * (what a host provides with `machine.provide({ actors })`).
 */

export {
  type ChainMachineContext,
  type ChainMachineEvent,
  type ChainMachineFailure,
  type ChainMachineInput,
  type ChainMachineOutput,
  chainMachine,
  initialChainContext,
  type PersistCommitInput,
  type RunStageInput,
  type ValidateDeltaInput,
} from './chain.js';
export {
  BLOCKER_OPTIONS,
  type CheckpointInput,
  type CheckpointOutput,
  type CycleMachine,
  type CycleMachineContext,
  type CycleMachineInput,
  type CycleMachineOutput,
  cycleMachine,
  cycleSetup,
  type DiagnosticsInput,
  type DiagnosticsOutput,
  type HumanInput,
  type HumanOutput,
  initialCycleContext,
  type PlannerInput,
  type PlannerOutput,
  type ReviewInput,
  type ReviewOutput,
  type WorkerInput,
  type WorkOutcome,
} from './cycle.js';
export {
  type AssessOutput as GateAssessOutput,
  type CheckOutput as GateCheckOutput,
  type CollectOutput as GateCollectOutput,
  type ContinueOutput as GateContinueOutput,
  type GateActorInput,
  type GateEvent,
  type GateMachine,
  type GateMachineContext,
  type GateMachineInput,
  type GateMachineOutput,
  gateMachine,
  gateOutput,
  type ReserveOutput as GateReserveOutput,
  type RouteOutput as GateRouteOutput,
  type ValidateOutput as GateValidateOutput,
} from './gate.js';
export type { MachineInspector } from './inspector.js';
