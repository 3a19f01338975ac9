import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generateJsonSchemas } from '../src/json-schemas.js';

const dir = new URL('../schemas/', import.meta.url);

describe('generated JSON Schema files', () => {
  const generated = generateJsonSchemas();

  it('checked-in schemas/ matches the zod schemas (run `npm run schemas` after changing a record)', async () => {
    for (const [name, text] of Object.entries(generated)) {
      const have = await readFile(new URL(name, dir), 'utf8').catch(() => '<missing>');
      expect(have, `schemas/${name} drifted`).toBe(text);
    }
  });

  it('schemas/ holds no stale file', async () => {
    const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
    expect(files).toEqual(Object.keys(generated).sort());
  });

  it('the dispatch schema requires every key, accepts unknown ones like the reference, keeps budget exact, and lists the enums', () => {
    const d = JSON.parse(generated['run-contract-dispatch.v1.json'] as string);
    expect(d.additionalProperties).toEqual({});
    expect(d.properties.budget.additionalProperties).toBe(false);
    expect(d.required).toContain('context');
    expect(JSON.stringify(d.properties.scope)).toContain('changed');
  });
});
