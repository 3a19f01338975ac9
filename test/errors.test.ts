import { describe, expect, it } from 'vitest';
import { HandoffError, isHandoffError } from '../src/errors/index.js';

describe('HandoffError', () => {
  it('carries code, details and cause, and serializes to JSON', () => {
    const cause = new Error('EACCES');
    const e = new HandoffError('busy', 'locked', { details: { run_id: 'r' }, cause });
    expect(e).toBeInstanceOf(Error);
    expect(e.code).toBe('busy');
    expect(e.cause).toBe(cause);
    expect(JSON.parse(JSON.stringify(e))).toEqual({
      name: 'HandoffError',
      code: 'busy',
      message: 'locked',
      details: { run_id: 'r' },
    });
  });

  it('is recognised by brand, not by prototype', () => {
    const foreign = Object.assign(new Error('x'), {
      [Symbol.for('handoff-runtime.HandoffError')]: true,
      code: 'busy',
    });
    expect(isHandoffError(foreign)).toBe(true);
    expect(isHandoffError(new Error('x'))).toBe(false);
    expect(isHandoffError(null)).toBe(false);
    expect(isHandoffError({ code: 'busy' })).toBe(false);
  });
});
