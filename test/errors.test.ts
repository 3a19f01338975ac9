import { describe, expect, it } from 'vitest';
import { SEAM_CODES } from '../src/chain/index.js';
import { StepFailure } from '../src/durable/index.js';
import {
  CHAIN_CODES,
  CONTRACT_CODES,
  CUSTODY_CODES,
  ENVELOPE_CODES,
  ERROR_CODES,
  GATE_CODES,
  GENERIC_CODES,
  HandoffError,
  isHandoffError,
  isHandoffErrorCode,
  PERSIST_CODES,
  PROCESS_CODES,
  STORE_CODES,
  STORE_OUTCOME_CODES,
  TRACKER_CODES,
} from '../src/errors/index.js';
import { EvaluatorFailure } from '../src/gate/index.js';
import { STORE_CODES as STORE_CODES_OF_STORE } from '../src/store/index.js';

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

describe('the error-code catalogue', () => {
  it('every area list is part of ERROR_CODES, which holds no duplicate', () => {
    for (const list of [
      GENERIC_CODES,
      CONTRACT_CODES,
      CUSTODY_CODES,
      PROCESS_CODES,
      STORE_CODES,
      STORE_OUTCOME_CODES,
      PERSIST_CODES,
      TRACKER_CODES,
      GATE_CODES,
      ENVELOPE_CODES,
      CHAIN_CODES,
    ]) {
      for (const code of list) expect(ERROR_CODES).toContain(code);
    }
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    expect(isHandoffErrorCode('bad_run_id')).toBe(true);
    expect(isHandoffErrorCode('no_such_code')).toBe(false);
    expect(isHandoffErrorCode(3)).toBe(false);
  });

  it('the store and the chain use the catalogue: STORE_CODES is one list, the seam codes are chain codes', () => {
    expect(STORE_CODES_OF_STORE).toBe(STORE_CODES);
    for (const code of SEAM_CODES) expect(CHAIN_CODES).toContain(code);
  });
});

describe('failure classes extend HandoffError', () => {
  it('EvaluatorFailure: code evaluator_failed, its kind in details', () => {
    const e = new EvaluatorFailure('timeout', 'no answer');
    expect(e).toBeInstanceOf(HandoffError);
    expect(isHandoffError(e)).toBe(true);
    expect(e.toJSON()).toEqual({
      name: 'EvaluatorFailure',
      code: 'evaluator_failed',
      message: 'no answer',
      details: { kind: 'timeout' },
    });
    expect(e.kind).toBe('timeout');
  });

  it('StepFailure: code io_error, the step and the bytes written in details, the cause kept', () => {
    const cause = Object.assign(new Error('no space'), { code: 'ENOSPC' });
    const e = new StepFailure('append_fsync', cause, 12);
    expect(e).toBeInstanceOf(HandoffError);
    expect(isHandoffError(e)).toBe(true);
    expect(e.toJSON()).toEqual({
      name: 'StepFailure',
      code: 'io_error',
      message: 'append_fsync failed: ENOSPC',
      details: { step: 'append_fsync', bytes_written: 12 },
    });
    expect([e.step, e.bytesWritten, e.cause]).toEqual(['append_fsync', 12, cause]);
  });
});
