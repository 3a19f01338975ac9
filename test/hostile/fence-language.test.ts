/**
 * `handoff run` against workers that leave the statement's text alone and change how Lean reads
 * it (real child processes, real git): a theorem hidden in a `/--/ … -/` doc comment with a
 * weakened one after it, and a tactic macro that expands to `sorry`. Both are fence violations:
 * refused, restored, nothing committed, the target stuck for redraft.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { gitLog, handoffOf, runArgs, withGitProject } from '../e2e/helpers.js';
import { runCli } from '../helpers/cli.js';

const WORKER = fileURLToPath(new URL('./fixtures/fence-language.mjs', import.meta.url));
const THEOREM = 'theorem t (n : Nat) : n + 0 = n := by\n  sorry\n';

describe('hostile workers: changing the language of an unchanged statement', () => {
  const attacks = {
    'doc-hide':
      /header fence: T\.lean: theorem t: statement changed \(`\(n : Nat\) : n \+ 0 = n` → `\(n : Nat\) : True`\)/,
    'sorry-macro':
      /header fence: T\.lean: new command `macro "done_here" : tactic => `\(tactic\|sorry\)` before theorem t \(line 1\)/,
  } as const;
  for (const [attack, reason] of Object.entries(attacks)) {
    it(`${attack}: refused and restored, nothing committed, the target stuck (redraft)`, async () => {
      await withGitProject({ 'T.lean': THEOREM }, async (p) => {
        const r = await runCli(runArgs(p.dir, `node ${WORKER} ${attack}`, '--json', '--sandbox', 'off'));
        expect(r.code, r.stderr).toBe(3);
        const h = handoffOf(r.stdout);
        expect(h.status).toBe('stuck');
        expect(h.next_action).toBe('redraft');
        expect(h.failed_avenues.join('\n')).toMatch(reason);
        expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).toBe(THEOREM);
        expect(gitLog(p.dir).filter((l) => l.startsWith('checkpoint: '))).toEqual([]);
      });
    });
  }
});
