import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SanctionedCommandsSchema } from '../../src/envelope/index.js';
import { DEFAULT_SANCTIONED_COMMANDS } from '../../src/envelope/sanctioned-default.js';

describe('the CLI default sanctioned-command map', () => {
  it('is the example map, key for key and in the same order, and has the seed shape', () => {
    const example = readFileSync(
      new URL('../../examples/envelope/sanctioned-commands.json', import.meta.url),
      'utf8',
    );
    expect(JSON.stringify(DEFAULT_SANCTIONED_COMMANDS)).toBe(JSON.stringify(JSON.parse(example)));
    expect(SanctionedCommandsSchema.safeParse(DEFAULT_SANCTIONED_COMMANDS).success).toBe(true);
    expect(DEFAULT_SANCTIONED_COMMANDS.forbidden.length).toBeGreaterThan(0);
    expect(DEFAULT_SANCTIONED_COMMANDS.orchestratorOwned.length).toBeGreaterThan(0);
    expect(Object.isFrozen(DEFAULT_SANCTIONED_COMMANDS.reads)).toBe(true);
  });
});
