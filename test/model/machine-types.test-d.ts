import { describe, expectTypeOf, it } from 'vitest';
import type { ActorOptions, AnyActorLogic, InputFrom, OutputFrom } from 'xstate';
import type {
  ChainMachineInput,
  ChainMachineOutput,
  CycleMachineInput,
  CycleMachineOutput,
  chainMachine,
  cycleMachine,
  GateMachineInput,
  GateMachineOutput,
  gateMachine,
  MachineInspector,
} from '../../machines/index.js';
import type { RunOptions } from '../../src/chain/index.js';
import type { RunGateOptions } from '../../src/gate/index.js';
import type { ProjectRunOptions } from '../../src/runtime/project-run.js';
import type { CycleRunInput } from '../../src/runtime/run-cycle.js';

describe('the /machines actor types are the machines’ own', () => {
  it('input and output types equal what xstate infers from each machine', () => {
    expectTypeOf<InputFrom<typeof cycleMachine>>().toEqualTypeOf<CycleMachineInput>();
    expectTypeOf<OutputFrom<typeof cycleMachine>>().toEqualTypeOf<CycleMachineOutput>();
    expectTypeOf<InputFrom<typeof chainMachine>>().toEqualTypeOf<ChainMachineInput>();
    expectTypeOf<OutputFrom<typeof chainMachine>>().toEqualTypeOf<ChainMachineOutput>();
    expectTypeOf<InputFrom<typeof gateMachine>>().toEqualTypeOf<GateMachineInput>();
    expectTypeOf<OutputFrom<typeof gateMachine>>().toEqualTypeOf<GateMachineOutput>();
  });

  it('MachineInspector is what createActor accepts as inspect, and every runner takes one', () => {
    expectTypeOf<MachineInspector>().toExtend<NonNullable<ActorOptions<AnyActorLogic>['inspect']>>();
    expectTypeOf<CycleRunInput['inspect']>().toEqualTypeOf<MachineInspector | undefined>();
    expectTypeOf<ProjectRunOptions['inspect']>().toEqualTypeOf<MachineInspector | undefined>();
    expectTypeOf<RunGateOptions['inspect']>().toEqualTypeOf<MachineInspector | undefined>();
    expectTypeOf<RunOptions['inspect']>().toEqualTypeOf<MachineInspector | undefined>();
  });
});
