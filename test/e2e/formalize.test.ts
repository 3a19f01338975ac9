/**
 * `handoff autoformalize` / `handoff formalize` end to end: real git repositories, the example
 * drafter, reviewer (examples/formalize/) and solver worker (dist/examples/workers/) as real child
 * processes, the claims of examples/formalize/paper.md. Pins: one claim already formalized is
 * skipped, one proved, one stuck and redrafted under rewrite-generated-only (then proved) and
 * refused under an explicit preserve (the session halts); `--commit never` leaves the drafts in
 * the working tree only; a `draft:` commit stages only the target file; provenance is empty after
 * a restart (a rerun skips what the first session drafted and refuses to redraft it); claims,
 * drafts and routes are journaled with cites; a hostile drafter cannot write outside its block.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formalizeCommand } from '../../src/cli/formalize.js';
import type { CliIo } from '../../src/cli/io.js';
import {
  createSynthesisJournal,
  runSynthesis,
  type SynthesisRunOptions,
} from '../../src/runtime/synthesis-run.js';
import { createMemoryStore } from '../../src/store/index.js';
import { inProcessDrafter } from '../../src/synthesis/drafter-port.js';
import { gitLog, TS_WORKER, withGitProject } from './helpers.js';

const EX = (f: string) => fileURLToPath(new URL(`../../examples/formalize/${f}`, import.meta.url));
const PAPER = EX('paper.md');
const DRAFTER = ['node', EX('drafter.mjs')];
const REVIEWER = ['node', EX('reviewer.mjs')];
const WORKER = [process.execPath, TS_WORKER];

async function projectFiles(): Promise<Record<string, string>> {
  return { 'Paper.lean': await readFile(EX('project/Paper.lean'), 'utf8'), 'README.md': 'unrelated\n' };
}

function base(dir: string, over: Partial<SynthesisRunOptions> = {}): SynthesisRunOptions {
  let t = Date.UTC(2026, 11, 2, 0, 0, 0);
  return {
    projectRoot: dir,
    mode: 'auto',
    source: PAPER,
    target: 'Paper.lean',
    drafter: { argv: DRAFTER },
    worker: { argv: WORKER },
    reviewerArgv: REVIEWER,
    maxCycles: 4,
    maxStuck: 2,
    clock: () => (t += 1000),
    ...over,
  };
}

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });

function memoryIo(cwd: string): CliIo & { stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return {
    out: (t: string) => {
      out += t;
    },
    err: (t: string) => {
      err += t;
    },
    readStdin: async () => Buffer.alloc(0),
    env: {},
    cwd,
    isTTY: false,
    stdout: () => out,
    stderr: () => err,
  } as CliIo & { stdout: () => string; stderr: () => string };
}

describe('autoformalize on the example paper (real git, subprocess drafter, reviewer and worker)', () => {
  it('skips the present claim, proves one, redrafts the stuck one under rewrite-generated-only, declines the informal one', async () => {
    await withGitProject(await projectFiles(), async ({ dir }) => {
      const r = await runSynthesis(base(dir));
      const by = Object.fromEntries(r.output.reports.map((c) => [c.index, c]));
      expect(r.output.reports.map((c) => c.status)).toEqual(['skipped', 'proved', 'proved', 'declined']);
      expect(by[1]?.reason).toContain('already present: add_zero');
      expect(by[3]?.routes).toContain('redraft');
      expect(by[3]?.drafts).toBe(2);
      expect(r.warnings.some((w) => w.includes('rewrite-generated-only'))).toBe(true);
      // the target holds the drafts between boundary markers, the redraft replaced the first statement
      const text = await readFile(join(dir, 'Paper.lean'), 'utf8');
      expect(text).toContain('theorem two_eq : 1 + 1 = 2 := by\n  decide');
      expect(text).toContain('0 < Nat.succ n');
      expect(text).not.toContain('0 < n + 1 :=');
      expect(text.match(/^-- draft: /gm)?.length).toBe(2);
      expect(text).not.toContain('sorry');
      // draft: commits hold only the target file; the unrelated file never moves
      const drafts = gitLog(dir).filter((l) => l.startsWith('draft: '));
      expect(drafts.length).toBe(3);
      for (const sha of git(dir, 'log', '--format=%H', '--grep=^draft: ').trim().split('\n')) {
        expect(git(dir, 'show', '--name-only', '--format=', sha).trim()).toBe('Paper.lean');
      }
      expect(r.output.provenance.map((p) => p.declaration).sort()).toEqual(['succ_pos', 'two_eq']);
      expect(r.output.ending).toBe('done');
    });
  }, 120_000);

  it('under an explicit preserve the stuck claim is not redrafted: the session halts with an error (exit 4)', async () => {
    await withGitProject(await projectFiles(), async ({ dir }) => {
      const io = memoryIo(dir);
      const code = await formalizeCommand(
        'auto',
        [
          '--source',
          PAPER,
          '--target',
          'Paper.lean',
          '--drafter',
          DRAFTER.join(' '),
          '--worker',
          `${process.execPath} ${TS_WORKER}`,
          '--reviewer',
          REVIEWER.join(' '),
          '--statement-policy',
          'preserve',
          '--max-cycles',
          '4',
        ],
        io,
      );
      expect(code).toBe(4);
      expect(io.stdout()).toContain('synthesis halted');
      expect(io.stdout()).toMatch(/#3 \S+ stuck: explicit --statement-policy preserve/);
      expect(io.stdout()).toMatch(/#4 \S+ not-attempted/);
      // no default-policy warning when the policy is given
      expect(io.stdout()).not.toContain('warning: statement policy defaults');
      const text = await readFile(join(dir, 'Paper.lean'), 'utf8');
      expect(text).toContain('0 < n + 1 := by\n  sorry'); // the statement as first drafted
    });
  }, 120_000);

  it('under adjacent-drafts the redraft sits beside the stuck statement under an adjacent name and is proved', async () => {
    await withGitProject(await projectFiles(), async ({ dir }) => {
      const r = await runSynthesis(base(dir, { claimSelect: '3', statementPolicy: 'adjacent-drafts' }));
      expect(r.output.reports.map((c) => c.status)).toEqual(['proved']);
      expect(r.output.reports[0]?.declarations).toEqual(['succ_pos_v2']);
      expect(r.output.provenance.map((p) => p.declaration)).toEqual(['succ_pos', 'succ_pos_v2']);
      const text = await readFile(join(dir, 'Paper.lean'), 'utf8');
      expect(text).toContain('lemma succ_pos : ∀ n : Nat, 0 < n + 1 := by\n  sorry\n');
      expect(text).toContain(
        'lemma succ_pos_v2 : ∀ n : Nat, 0 < Nat.succ n := by\n  exact fun n => Nat.succ_pos n',
      );
    });
  }, 120_000);

  it('--commit never leaves the drafts in the working tree only (no draft: commit)', async () => {
    await withGitProject(await projectFiles(), async ({ dir }) => {
      const head = git(dir, 'rev-parse', 'HEAD').trim();
      const store = createMemoryStore();
      const journal = createSynthesisJournal({ projectRoot: dir, store });
      const r = await runSynthesis(base(dir, { commit: 'never', claimSelect: '2', journal }));
      expect(r.output.reports.map((c) => c.status)).toEqual(['proved']);
      // journaled: the claim, its draft citing the claim, the route citing the draft
      const loaded = await store.load(r.journalRun as string);
      if (!loaded.ok) throw new Error('journal not loadable');
      const notes = loaded.value.events
        .filter((e) => e.kind === 'note')
        .map((e) => ({
          seq: e.seq,
          ...(JSON.parse((e.payload as { text: string }).text) as { schema: string; cites?: string[] }),
        }));
      const [claim, draft, route] = notes;
      expect([claim?.schema, draft?.schema, route?.schema]).toEqual([
        'synthesis-claim/v1',
        'synthesis-draft/v1',
        'synthesis-route/v1',
      ]);
      expect(draft?.cites).toEqual([`${r.journalRun}#${claim?.seq}`]);
      expect(route?.cites).toEqual([`${r.journalRun}#${draft?.seq}`]);
      expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(head);
      expect(gitLog(dir).some((l) => l.startsWith('draft: '))).toBe(false);
      expect(git(dir, 'status', '--porcelain')).toContain('Paper.lean');
      expect(await readFile(join(dir, 'Paper.lean'), 'utf8')).toContain('theorem two_eq');
    });
  }, 120_000);

  it('provenance is empty after a restart: a rerun skips what was drafted and refuses to redraft it', async () => {
    await withGitProject(await projectFiles(), async ({ dir }) => {
      // session 1: the lemma is drafted and stuck (no reviewer: next_action stop)
      const first = await runSynthesis(base(dir, { claimSelect: '3', reviewerArgv: undefined as never }));
      expect(first.output.reports[0]?.status).toBe('stuck');
      expect(first.output.provenance.map((p) => p.declaration)).toEqual(['succ_pos']);
      // session 2 (a restart): the queue is the same, the declaration is present → skipped
      const again = await runSynthesis(base(dir, { claimSelect: '3' }));
      expect(again.output.reports.map((c) => c.status)).toEqual(['skipped']);
      expect(again.output.provenance).toEqual([]);
      // scope-backed restage on the same file: the stuck statement is user-authored now → refused
      const restage = await runSynthesis(base(dir, { source: null, formalize: 'restage' }));
      expect(restage.output.reports[0]?.status).toBe('stuck');
      expect(restage.output.reports[0]?.reason).toContain('user-authored');
      expect(await readFile(join(dir, 'Paper.lean'), 'utf8')).toContain('0 < n + 1 := by\n  sorry');
    });
  }, 180_000);

  it('the queue order is deterministic across reruns and source formats', async () => {
    await withGitProject(await projectFiles(), async ({ dir }) => {
      const tex = join(dir, 'paper.tex');
      await writeFile(
        tex,
        [
          '\\begin{theorem}[two\\_eq] One plus one is two: `1 + 1 = 2` by `decide`.\\end{theorem}',
          '\\begin{lemma}[succ\\_pos] Every successor is positive.\\end{lemma}',
          '',
        ].join('\n'),
      );
      const ids = async (source: string) => {
        const seen: string[] = [];
        await runSynthesis(
          base(dir, {
            source,
            commit: 'never',
            drafter: {
              port: inProcessDrafter(async () => ({
                response: {
                  schema: 'draft-response/v1',
                  status: 'declined',
                  declarations: [],
                  detail: 'listing',
                },
              })),
            },
            onLog: (l) => {
              const m = /^claim \d+\/\d+ (\S+): started/.exec(l);
              if (m) seen.push(m[1] as string);
            },
          }),
        );
        return seen;
      };
      const md1 = await ids(PAPER);
      expect(md1).toHaveLength(4);
      expect(await ids(PAPER)).toEqual(md1);
      const tex1 = await ids(tex);
      expect(tex1).toHaveLength(2);
      expect(await ids(tex)).toEqual(tex1);
    });
  }, 120_000);

  it('journals claims, drafts and routes with cites (--persist), and a hostile drafter cannot escape its block', async () => {
    await withGitProject(await projectFiles(), async ({ dir }) => {
      const store = createMemoryStore();
      const journal = createSynthesisJournal({ projectRoot: dir, store });
      // a hostile drafter: an import line that is not a module, and a write to the target itself
      const hostile = inProcessDrafter(async (req) => {
        await writeFile(join(dir, 'Paper.lean'), 'theorem pwned : False := sorry\n');
        await writeFile(
          req.temp_path,
          '-- needs-import: ; rm -rf /\ntheorem two_eq : 1 + 1 = 2 := by\n  sorry\n',
        );
        return {
          response: {
            schema: 'draft-response/v1',
            status: 'drafted',
            declarations: ['two_eq'],
            detail: null,
          },
        };
      });
      const before = await readFile(join(dir, 'Paper.lean'), 'utf8');
      const r = await runSynthesis(base(dir, { claimSelect: '2', drafter: { port: hostile }, journal }));
      expect(r.output.reports[0]?.status).toBe('stuck');
      expect(r.output.reports[0]?.reason).toContain('the drafter changed the target file Paper.lean');
      expect(await readFile(join(dir, 'Paper.lean'), 'utf8')).toBe(before);
      // the same drafter without the write: its hostile import line is refused at assembly
      const sly = inProcessDrafter(async (req) => {
        await writeFile(
          req.temp_path,
          '-- needs-import: ; rm -rf /\ntheorem two_eq : 1 + 1 = 2 := by\n  sorry\n',
        );
        return {
          response: {
            schema: 'draft-response/v1',
            status: 'drafted',
            declarations: ['two_eq'],
            detail: null,
          },
        };
      });
      const r2 = await runSynthesis(base(dir, { claimSelect: '2', drafter: { port: sly } }));
      expect(r2.output.reports[0]?.status).toBe('stuck');
      expect(await readFile(join(dir, 'Paper.lean'), 'utf8')).toBe(before);
      expect(gitLog(dir).some((l) => l.startsWith('draft: '))).toBe(false);
      expect(r.journalRun).not.toBeNull();
      const loaded = await store.load(r.journalRun as string);
      expect(loaded.ok).toBe(true);
      if (!loaded.ok) return;
      const notes = loaded.value.events.filter((e) => e.kind === 'note');
      expect(notes.length).toBeGreaterThanOrEqual(2);
      const texts = notes.map((e) => JSON.parse((e.payload as { text: string }).text) as { schema: string });
      expect(texts[0]?.schema).toBe('synthesis-claim/v1');
      expect(texts.at(-1)?.schema).toBe('synthesis-report/v1');
    });
  }, 120_000);
});
