import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatPath, safeValidate } from '../../src/validation/index.js';

describe('safeValidate', () => {
  it('maps zod issues to dotted paths and prefers custom rule codes', () => {
    const schema = z.strictObject({ a: z.array(z.number()) }).superRefine((v, ctx) => {
      if (v.a.length === 0)
        ctx.addIssue({ code: 'custom', path: ['a'], message: 'empty', params: { code: 'empty_list' } });
    });
    expect(safeValidate(schema, { a: [1, 'x'] })).toEqual({
      ok: false,
      issues: [{ path: 'a.1', code: 'invalid_type', message: expect.any(String) }],
    });
    expect(safeValidate(schema, { a: [] })).toEqual({
      ok: false,
      issues: [{ path: 'a', code: 'empty_list', message: 'empty' }],
    });
    expect(safeValidate(schema, { a: [2] })).toEqual({ ok: true, value: { a: [2] } });
  });

  it('never throws, even when the input throws on access', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
        ownKeys() {
          throw new Error('boom');
        },
      },
    );
    const r = safeValidate(z.object({ a: z.string() }), hostile);
    expect(r.ok).toBe(false);
  });

  it('formats the root path as the empty string', () => {
    expect(formatPath([])).toBe('');
    expect(formatPath(['x', 0])).toBe('x.0');
  });
});
