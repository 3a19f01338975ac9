import { describe, expectTypeOf, it } from 'vitest';
import type { InputFrom, OutputFrom } from 'xstate';
import type {
  DelegationMachineInput,
  DelegationMachineOutput,
  delegationMachine,
} from '../../machines/index.js';
import type { DelegateResult } from '../../src/delegate/index.js';

describe('the delegation machine’s actor types are its own', () => {
  it('input and output equal what xstate infers; the output’s result is what delegate returns', () => {
    expectTypeOf<InputFrom<typeof delegationMachine>>().toEqualTypeOf<DelegationMachineInput>();
    expectTypeOf<OutputFrom<typeof delegationMachine>>().toEqualTypeOf<DelegationMachineOutput>();
    expectTypeOf<DelegationMachineOutput['result']>().toExtend<
      Pick<DelegateResult, 'outcome' | 'handoff' | 'violations'>
    >();
  });
});
