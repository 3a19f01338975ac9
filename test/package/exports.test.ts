/**
 * The published entry points resolve through package.json `exports` (self-reference by package
 * name, as a consumer would import them) and expose their documented members.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  exports: Record<string, unknown>;
  bin: Record<string, string>;
};

async function keysOf(specifier: string): Promise<string[]> {
  const script = `import(${JSON.stringify(specifier)}).then((m) => process.stdout.write(JSON.stringify(Object.keys(m))))`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: root });
  return JSON.parse(stdout) as string[];
}

describe('package exports', () => {
  it('every subpath resolves to built code with a types entry first', async () => {
    for (const [sub, target] of Object.entries(pkg.exports)) {
      if (sub === './package.json') continue;
      expect(Object.keys(target as object)[0], sub).toBe('types');
      const keys = await keysOf(sub === '.' ? 'handoff-runtime' : `handoff-runtime/${sub.slice(2)}`);
      expect(keys.length, sub).toBeGreaterThan(0);
    }
  });

  it('the main entry exposes the core API', async () => {
    const keys = await keysOf('handoff-runtime');
    for (const name of [
      'validateDispatch',
      'validateHandoff',
      'protocolErrorHandoff',
      'rerunGuard',
      'blockerSignature',
      'recordBaseline',
      'checkBaseline',
      'advanceBaseline',
      'createFsStore',
      'PersistController',
      'buildHandoffEnvelope',
      'HandoffError',
      'isHandoffError',
      'canonicalJson',
      'gate',
      'viz',
    ]) {
      expect(keys, name).toContain(name);
    }
  });

  it('the machines entry exposes every protocol machine', async () => {
    const keys = await keysOf('handoff-runtime/machines');
    for (const name of ['cycleMachine', 'chainMachine', 'gateMachine']) expect(keys).toContain(name);
  });

  it('the bin points at the built CLI', () => {
    expect(pkg.bin.handoff).toBe('./dist/src/cli/bin.js');
  });
});
