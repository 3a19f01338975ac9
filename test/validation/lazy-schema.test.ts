/**
 * Schemas built on first use (src/validation/lazy-schema.ts) and zod loaded on first use
 * (src/validation/zod-sync.ts): the stand-in is not built until something reads it, is built once,
 * and behaves as the schema itself — methods, getters, `instanceof`, keys, composition into the
 * caller's own zod schemas, JSON Schema — and the zod it builds with is the caller's zod (one
 * module instance), so nothing tells the two apart.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lazySchema } from '../../src/validation/lazy-schema.js';
import { zod } from '../../src/validation/zod-sync.js';

const build = (zz: typeof z) => zz.strictObject({ x: zz.number(), tags: zz.array(zz.string()) });

describe('lazySchema', () => {
  it('builds nothing until the stand-in is read, then builds exactly once', () => {
    let builds = 0;
    const S = lazySchema((zz) => {
      builds++;
      return build(zz);
    });
    expect(builds).toBe(0);
    expect(S.safeParse({ x: 1, tags: [] }).success).toBe(true);
    expect(S.safeParse({ x: 'no', tags: [] }).success).toBe(false);
    expect(Object.keys(S.shape)).toEqual(['x', 'tags']);
    expect(builds).toBe(1);
  });

  it('behaves as the schema: instanceof, keys, composition and JSON Schema', () => {
    const S = lazySchema(build);
    const real = build(z);
    expect(S instanceof z.ZodObject).toBe(true);
    expect(Object.keys(S).sort()).toEqual(Object.keys(real).sort());
    expect('safeParse' in S).toBe(true);
    const outer = z.object({ inner: S, list: z.array(S).min(1) });
    expect(outer.safeParse({ inner: { x: 1, tags: ['a'] }, list: [{ x: 2, tags: [] }] }).success).toBe(true);
    expect(outer.safeParse({ inner: { x: 1, tags: [], extra: 1 }, list: [] }).success).toBe(false);
    expect(z.toJSONSchema(S)).toEqual(z.toJSONSchema(real));
    const { $schema: _, ...inner } = z.toJSONSchema(real);
    expect(z.toJSONSchema(outer).properties?.inner).toEqual(inner);
    const refined = S.extend({ y: z.string() });
    expect(refined.safeParse({ x: 1, tags: [], y: 'y' }).success).toBe(true);
  });

  it('refuses to be frozen (the stand-in cannot honour it) instead of breaking later', () => {
    const S = lazySchema(build);
    expect(() => Object.freeze(S)).toThrow(TypeError);
    expect(S.safeParse({ x: 1, tags: [] }).success).toBe(true);
  });
});

describe('zod on first use', () => {
  it('is the same zod instance `import { z } from "zod"` gives', () => {
    expect(zod()).toBe(z);
    expect(zod().ZodObject).toBe(z.ZodObject);
  });
});
