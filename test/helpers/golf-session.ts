/**
 * The project and workers of a golf test (test/e2e/formalize-golf, test/runtime/golf-pass): the
 * example paper's claim 2 drafted as a proved declaration beside a hard companion the worker cannot
 * prove, a reviewer that routes every stuck review to golf, a scratch folder of tool scripts, and
 * the options of an autoformalize session over them with a deterministic clock.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { SynthesisRunOptions } from '../../src/runtime/synthesis-run.js';
import { inProcessDrafter } from '../../src/synthesis/drafter-port.js';
import { TS_WORKER } from '../e2e/helpers.js';

/**
 * The example paper (`examples/formalize/paper.md`).
 *
 * @example
 * ```ts
 * runSynthesis({ ...golfSessionOptions(dir, tools), source: GOLF_PAPER });
 * ```
 */
export const GOLF_PAPER = fileURLToPath(new URL('../../examples/formalize/paper.md', import.meta.url));

/**
 * The `file:` URL of the built `dist/src` (a worker script imports the runtime from there; run
 * `npm run build` first).
 *
 * @example
 * ```ts
 * const argv = [process.execPath, hostile, kind, GOLF_DIST, record];
 * ```
 */
export const GOLF_DIST = pathToFileURL(fileURLToPath(new URL('../../dist/src', import.meta.url))).href;

/**
 * The draft of claim 2: `two_eq` proved (`by\n  decide`, golfable onto one line) and
 * `two_eq_hard`, which keeps its `sorry`, so the claim's inner cycle ends stuck.
 *
 * @example
 * ```ts
 * const TEXT = `-- the paper\n\n${GOLF_DRAFT}`;
 * ```
 */
export const GOLF_DRAFT =
  'theorem two_eq : 1 + 1 = 2 := by\n  decide\n\ntheorem two_eq_hard : 2 + 2 = 5 := by\n  sorry\n';

/**
 * The in-process drafter that writes {@link GOLF_DRAFT} for any claim.
 *
 * @example
 * ```ts
 * runSynthesis({ ...options, drafter: { port: golfDrafter } });
 * ```
 */
export const golfDrafter = inProcessDrafter(async (req) => {
  await writeFile(req.temp_path, GOLF_DRAFT);
  return {
    response: {
      schema: 'draft-response/v1',
      status: 'drafted',
      declarations: ['two_eq', 'two_eq_hard'],
      detail: null,
    },
    text: GOLF_DRAFT,
  };
});

/**
 * A reviewer script (CommonJS) that routes every stuck review to golf and lets any other continue.
 *
 * @example
 * ```ts
 * await writeFile(join(tools, 'reviewer.cjs'), GOLF_REVIEWER_JS);
 * ```
 */
export const GOLF_REVIEWER_JS = `
const fs = require('node:fs');
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const stuck = input.mode === 'stuck';
process.stdout.write(JSON.stringify({ primary_blocker: stuck ? 'golf the proved part' : null,
  top_blockers: [], evidence: [], falsification: false, next_action: stuck ? 'golf' : 'continue',
  suggestions: [] }) + '\\n');
`;

/**
 * Makes a fresh scratch folder (prefix `prefix`) holding `reviewer.cjs` ({@link GOLF_REVIEWER_JS})
 * and the given `scripts` (file name → text); returns its path. The caller removes it.
 *
 * @example
 * ```ts
 * tools = await golfTools('golf-tools-', { 'hostile.mjs': HOSTILE_MJS });
 * ```
 */
export async function golfTools(prefix: string, scripts: Readonly<Record<string, string>>): Promise<string> {
  const tools = await mkdtemp(join(tmpdir(), prefix));
  await writeFile(join(tools, 'reviewer.cjs'), GOLF_REVIEWER_JS);
  for (const [name, text] of Object.entries(scripts)) await writeFile(join(tools, name), text);
  return tools;
}

/**
 * The options of an autoformalize session of claim 2 into `Paper.lean` of `dir`: {@link golfDrafter},
 * the example worker, the golf reviewer of `tools`, 3 cycles, 1 stuck cycle, and a clock that starts
 * at 2026-12-02T00:00:00Z and ticks 1 s a call; `over` replaces members.
 *
 * @example
 * ```ts
 * const r = await runSynthesis(golfSessionOptions(dir, tools, { commit: 'never' }));
 * ```
 */
export function golfSessionOptions(
  dir: string,
  tools: string,
  over: Partial<SynthesisRunOptions> = {},
): SynthesisRunOptions {
  let t = Date.UTC(2026, 11, 2, 0, 0, 0);
  return {
    projectRoot: dir,
    mode: 'auto',
    source: GOLF_PAPER,
    claimSelect: '2',
    target: 'Paper.lean',
    drafter: { port: golfDrafter },
    worker: { argv: [process.execPath, TS_WORKER] },
    reviewerArgv: [process.execPath, join(tools, 'reviewer.cjs')],
    maxCycles: 3,
    maxStuck: 1,
    clock: () => (t += 1000),
    ...over,
  };
}

/**
 * Runs git in `dir` with argv `args` and returns its stdout.
 *
 * @example
 * ```ts
 * gitIn(dir, 'status', '--porcelain').trim(); // '' when the tree is clean
 * ```
 */
export const gitIn = (dir: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
