import { describe, expectTypeOf, it } from 'vitest';
import type { SeamCode } from '../src/chain/index.js';
import type { EnvelopeErrorCode } from '../src/envelope/errors.js';
import {
  type ENVELOPE_CODES,
  HandoffError,
  type HandoffErrorCode,
  type STORE_CODES,
} from '../src/errors/index.js';
import type { StoreCode } from '../src/store/index.js';

describe('HandoffErrorCode is a closed union', () => {
  it('accepts catalogue codes and refuses any other string', () => {
    expectTypeOf<'busy'>().toExtend<HandoffErrorCode>();
    expectTypeOf<'evaluator_failed'>().toExtend<HandoffErrorCode>();
    expectTypeOf<'no_such_code'>().not.toExtend<HandoffErrorCode>();
    expectTypeOf<string>().not.toExtend<HandoffErrorCode>();
    // @ts-expect-error a code outside the catalogue does not compile
    void new HandoffError('no_such_code', 'x');
  });

  it('area code types are derived from their lists, not kept by hand', () => {
    expectTypeOf<StoreCode>().toEqualTypeOf<(typeof STORE_CODES)[number]>();
    expectTypeOf<EnvelopeErrorCode>().toEqualTypeOf<(typeof ENVELOPE_CODES)[number]>();
    expectTypeOf<StoreCode>().toExtend<HandoffErrorCode>();
    expectTypeOf<SeamCode>().toExtend<HandoffErrorCode>();
  });
});
