/**
 * The Lean JSON diagnostics port driving a whole run (`runProject({ diagnostics })`) on a real git
 * repository with a real worker process: the fake `lake` prints the recorded-shape sorry messages
 * while the checked file still holds its `sorry`, so the target comes from Lean's JSON, the worker's
 * edit is verified by the same command, and the run ends solved and checkpointed.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateHandoff } from '../../src/contract/index.js';
import { leanJsonDiagnostics, runProject } from '../../src/runtime/index.js';

const fixtures = fileURLToPath(new URL('../fixtures/lean-json/', import.meta.url));
// the code profile's tiny worker: replaces the target line with the text after `TODO(agent):`
const WORKER = fileURLToPath(new URL('../profile/fixtures/todo-worker.mjs', import.meta.url));
const header = "theorem add_zero' (n : Nat) : n + 0 = n := by";

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-lean-json-')));
  execFileSync('git', ['init', '-q'], { cwd: dir });
  await mkdir(join(dir, 'Demo'));
  await writeFile(
    join(dir, 'Demo', 'Basic.lean'),
    `import Std\n\n${header} sorry -- TODO(agent): ${header} simp\n`,
  );
  execFileSync('git', ['add', '-A'], { cwd: dir });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init'], {
    cwd: dir,
  });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('leanJsonDiagnostics through runProject', () => {
  it("finds the target in Lean's messages, verifies the worker's edit with them, ends solved", async () => {
    const lake = [
      process.execPath,
      join(fixtures, 'fake-lake.mjs'),
      `sorry-lines:${join(fixtures, 'legacy-quotes.jsonl')}`,
      '0',
      '-',
    ];
    const asked: string[][] = [];
    const port = leanJsonDiagnostics(lake, dir, 30_000, { allFiles: () => ['Demo/Basic.lean'] });
    const r = await runProject({
      projectRoot: dir,
      flags: { target: 'Demo/Basic.lean', scope: 'file', mode: 'autoprove' },
      worker: { argv: [process.execPath, WORKER] },
      diagnostics: {
        async diagnose(input) {
          const out = await port.diagnose(input);
          asked.push(out.targets.map((t) => `${input.question}:${t.id}:${t.goal}`));
          return out;
        },
      },
      env: { WORKER_MODE: 'solve' },
      workerTimeoutMs: 30_000,
    });
    expect(asked[0]).toEqual(["discover:Demo/Basic.lean:3:add_zero'"]);
    expect(asked.at(-1)).toEqual([]);
    expect(r.handoff.status).toBe('solved');
    expect(validateHandoff(r.handoff).ok).toBe(true);
    expect(await readFile(join(dir, 'Demo', 'Basic.lean'), 'utf8')).toBe(`import Std\n\n${header} simp\n`);
    expect(r.context.checkpoints).toHaveLength(1);
  }, 60_000);

  it('a worker whose edit Lean still reports as using sorry is not solved and not committed', async () => {
    // the unfiltered fixture: Lean keeps saying `declaration uses 'sorry'` at line 3 whatever the edit
    const lake = [
      process.execPath,
      join(fixtures, 'fake-lake.mjs'),
      join(fixtures, 'legacy-quotes.jsonl'),
      '0',
      '-',
    ];
    const r = await runProject({
      projectRoot: dir,
      flags: { target: 'Demo/Basic.lean', scope: 'file', mode: 'autoprove', maxCycles: 2, maxStuck: 1 },
      worker: { argv: [process.execPath, WORKER] },
      diagnostics: leanJsonDiagnostics(lake, dir, 30_000, { allFiles: () => ['Demo/Basic.lean'] }),
      env: { WORKER_MODE: 'solve' },
      workerTimeoutMs: 30_000,
    });
    expect(r.handoff.status).not.toBe('solved');
    expect(r.context.checkpoints).toHaveLength(0);
    expect(execFileSync('git', ['log', '--format=%s'], { cwd: dir, encoding: 'utf8' })).toBe('init\n');
  }, 60_000);
});
