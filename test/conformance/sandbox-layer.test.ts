/**
 * `runConformance` with the sandbox on, for the two layer cases of issue 26's attack list that
 * test/conformance/sandbox-hostile.test.ts does not run: a FIFO and a symbolic link planted in the
 * project beside a conforming worker's answer are named by the check they belong to and never reach
 * the host; and a conforming worker that saves its owned files by temp file + rename (as editors
 * do) still conforms.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/index.js';
import { probeSandbox } from '../../src/sandbox/index.js';
import { failedChecks, fixture } from './helpers.js';

const LAYER = fileURLToPath(new URL('../hostile/fixtures/layer-attack.mjs', import.meta.url));
const RENAME = fileURLToPath(new URL('../hostile/fixtures/rename-saver.mjs', import.meta.url));
const SANDBOX = { network: 'deny' } as const;

describe('conformance with the sandbox on: the layer cases', () => {
  it('a FIFO and a symbolic link planted in the project are named (unowned-unchanged), never on the host', async () => {
    expect(await probeSandbox()).toEqual({ available: true });
    const r = await runConformance({
      command: [process.execPath, LAYER, 'fifo-symlink', fixture('conforming')],
      runs: 1,
      seed: 3,
      sandbox: SANDBOX,
    });
    expect(failedChecks(r)).toEqual(['unowned-unchanged']);
    const f = r.findings.find((x) => !x.passed && x.check === 'unowned-unchanged');
    expect(f?.detail).toBe(
      'writes outside the owned files (discarded by the sandbox): planted.fifo (fifo), src/link.js (symlink)',
    );
  });

  it('a conforming worker that saves by temp file + rename still conforms', async () => {
    expect(await probeSandbox()).toEqual({ available: true });
    const r = await runConformance({
      command: [process.execPath, RENAME, fixture('conforming')],
      runs: 2,
      seed: 3,
      sandbox: SANDBOX,
    });
    expect(failedChecks(r)).toEqual([]);
    expect(r.findings.some((f) => f.check === 'unowned-unchanged' && f.passed)).toBe(true);
  });
});
