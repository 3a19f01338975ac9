/**
 * `handoff run --sandbox`: a bad value is a usage error; where the sandbox cannot run (here: a
 * project path with a `,`, which overlay options cannot carry) `on` refuses to start (exit 2,
 * naming why) and `auto` says so in one stderr line and runs with custody only.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handoffOf, runArgs } from '../e2e/helpers.js';
import { cliMain } from '../helpers/cli-main.js';

const WORKER = fileURLToPath(new URL('../hostile/fixtures/sandbox-attack.mjs', import.meta.url));
const THEOREM = 'theorem t (n : Nat) : n + 0 = n := by\n  sorry\n';

let dir: string;
let project: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbox-flag-'));
  project = join(dir, 'a,b');
  await mkdir(project);
  await writeFile(join(project, 'T.lean'), THEOREM);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (...more: string[]) =>
  cliMain(runArgs(project, `node ${WORKER} rename ${dir}`, '--json', '--commit', 'never', ...more), dir);

describe('handoff run --sandbox', () => {
  it('a value outside auto|on|off is a usage error', async () => {
    const r = await run('--sandbox', 'yes');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--sandbox must be auto\|on\|off, got 'yes'/);
    const n = await run('--sandbox-network', 'some');
    expect(n.code).toBe(2);
    expect(n.err).toMatch(/--sandbox-network must be deny\|allow/);
  });

  it('on: refuses to start, naming what is missing; the worker never runs', async () => {
    const r = await run('--sandbox', 'on');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--sandbox on: the sandbox cannot run here: the path .*a,b contains ','/);
    expect(await readFile(join(project, 'T.lean'), 'utf8')).toBe(THEOREM);
  });

  it('auto: one stderr line says why, and the run goes on with custody only', async () => {
    const r = await run();
    expect(r.code, r.err).toBe(0);
    expect(handoffOf(r.out).status).toBe('solved');
    const lines = r.err.split('\n').filter((l) => l.startsWith('sandbox unavailable: '));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/contains ','.*; running with custody only$/);
    await writeFile(join(project, 'T.lean'), THEOREM);
  });
});
