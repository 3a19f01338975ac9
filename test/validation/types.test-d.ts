import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { type Dispatch, type Handoff, validateDispatch, validateHandoff } from '../../src/contract/index.js';
import { safeValidate, type ValidationIssue } from '../../src/validation/index.js';

describe('validator result types', () => {
  it('narrow on ok', () => {
    const r = validateDispatch({});
    if (r.ok) expectTypeOf(r.value).toEqualTypeOf<Dispatch>();
    else expectTypeOf(r.issues).toEqualTypeOf<readonly ValidationIssue[]>();
    const h = validateHandoff({});
    if (h.ok) expectTypeOf(h.value.blocker_class).toEqualTypeOf<Handoff['blocker_class']>();
  });

  it('safeValidate infers the schema output', () => {
    const r = safeValidate(z.object({ n: z.number().transform(String) }), { n: 1 });
    if (r.ok) expectTypeOf(r.value).toEqualTypeOf<{ n: string }>();
  });

  it('the handoff enums are literal unions', () => {
    expectTypeOf<Handoff['status']>().toEqualTypeOf<'solved' | 'stuck' | 'stopped'>();
    expectTypeOf<Dispatch['worker']>().toEqualTypeOf<
      'sorry-filler-deep' | 'proof-repair' | 'proof-golfer' | 'axiom-eliminator' | null
    >();
  });
});
