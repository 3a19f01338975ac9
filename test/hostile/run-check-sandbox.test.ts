/**
 * `runProject` passes its sandbox decision to the commands it starts besides the worker (issue 26
 * item 3, wired in src/runtime/project-run.ts): a `--diagnostics` checker that writes into the
 * project, while the run is sandboxed, never writes the host — the run still reads its verdict.
 * Without the sandbox the same checker's write lands (the documented limit), which is what makes
 * this test able to fail: drop the wiring and the sandboxed run leaves `pwned.txt` behind too.
 */
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runProject } from '../../src/runtime/project-run.js';
import { gitLog, withGitProject } from '../e2e/helpers.js';

const CHEAT = fileURLToPath(new URL('./fixtures/solved-cheat.mjs', import.meta.url));
const THEOREM = 'theorem t (n : Nat) : n + 0 = n := by\n  sorry\n';

/** A checker that writes into the project, then reports the sorry (if any) as the target. */
const CHECKER = [
  "const fs = require('fs');",
  "try { fs.writeFileSync('pwned.txt', 'x'); } catch {}",
  "const open = /\\bsorry\\b/.test(fs.readFileSync('T.lean', 'utf8'));",
  "console.log(JSON.stringify({ targets: open ? [{ id: 'T.lean:2', file: 'T.lean', line: 2, goal: 'sorry' }] : [], errors: [] }));",
].join('\n');

describe('a run sandboxes its --diagnostics checker with its worker', () => {
  it.each([
    ['on', false],
    ['off', true],
  ] as const)(
    '--sandbox %s: the checker’s write reaches the host: %s',
    async (mode, lands) => {
      await withGitProject({ 'T.lean': THEOREM }, async (p) => {
        const checker = join(p.dir, '..', `${p.dir.split('/').pop()}-checker.cjs`);
        await writeFile(checker, CHECKER);
        try {
          const r = await runProject({
            projectRoot: p.dir,
            flags: { target: '.', scope: 'project', mode: 'autoprove', maxCycles: 1, maxStuck: 1 },
            worker: { argv: [process.execPath, CHEAT, 'honest'] },
            diagnosticsArgv: [process.execPath, checker],
            sandbox: mode,
            workerTimeoutMs: 30_000,
          });
          expect(existsSync(join(p.dir, 'pwned.txt'))).toBe(lands);
          if (mode === 'on') {
            // the checker judged the worker's accepted bytes and the run went on from its verdict
            expect(r.handoff.status).toBe('solved');
            expect(gitLog(p.dir).length).toBeGreaterThan(1);
            expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).not.toContain('sorry');
          }
        } finally {
          await rm(checker, { force: true });
        }
      });
    },
    90_000,
  );
});
