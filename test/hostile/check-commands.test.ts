/**
 * Every command a run starts goes through the same containment as its worker (issue 26 item 3):
 * the profile's check command (marker diagnostics), a `--diagnostics` checker (commandDiagnostics)
 * and a command golf worker run in the sandbox when the run's worker does (really started here):
 * what they write never reaches the host. And the checks judge the bytes that get committed
 * (issue 27 item 2): a left-behind process that swaps an accepted file while the check runs makes
 * the check fail — sandboxed because the check reads the snapshot placed in its layer, contained
 * because the live file is compared with the snapshot around the check (named).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commandDiagnostics } from '../../src/runtime/command-ports.js';
import { runGolfPass } from '../../src/runtime/golf-pass.js';
import { createMarkerDiagnostics } from '../../src/runtime/marker-diagnostics.js';
import { probeSandbox } from '../../src/sandbox/index.js';
import { withGitProject } from '../e2e/helpers.js';
import { GOLF_DRAFT } from '../helpers/golf-session.js';

const ATTACK = fileURLToPath(new URL('./fixtures/sandbox-attack.mjs', import.meta.url));
const SANDBOX = { network: 'deny' } as const;
const ACCEPTED = 'theorem a : 1 = 1 := by\n  exact BAD\n';
const SWAPPED = 'theorem a : 1 = 1 := by\n  rfl\n';

let base = '';
let project = '';
let tools = '';
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'check-commands-')));
  project = join(base, 'p');
  tools = join(base, 'tools');
  await mkdir(project);
  await mkdir(tools);
  await writeFile(join(project, 'A.lean'), ACCEPTED);
  await writeFile(join(project, 'notes.txt'), 'unrelated\n');
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A node script outside the project (readable in the sandbox's `/tmp`), as an argv. */
async function script(name: string, source: string): Promise<string[]> {
  await writeFile(join(tools, name), source);
  return [process.execPath, join(tools, name)];
}

/** A check that writes in the project, the home and outside it, then passes. */
const WRITER = `import { appendFileSync, writeFileSync } from 'node:fs';
const tryIt = (f) => { try { f(); } catch {} };
tryIt(() => writeFileSync('pwned.txt', 'x'));
tryIt(() => appendFileSync('A.lean', '\\naxiom cheat : False\\n'));
tryIt(() => writeFileSync(process.env.HOME + '/.bashrc', 'echo pwned\\n'));
tryIt(() => writeFileSync(process.argv[2], 'x'));
`;

async function expectHostUnchanged(): Promise<void> {
  expect((await readdir(project)).sort()).toEqual(['A.lean', 'notes.txt']);
  expect(await readFile(join(project, 'A.lean'), 'utf8')).toBe(ACCEPTED);
  expect((await readdir(base)).sort()).toEqual(['p', 'tools']);
}

describe('check commands in the sandbox: a write never reaches the host', () => {
  it('the profile check command (marker diagnostics)', async () => {
    expect(await probeSandbox(project)).toEqual({ available: true });
    const diag = createMarkerDiagnostics({
      projectRoot: project,
      target: '.',
      scope: 'project',
      markers: ['sorry'],
      check: {
        argv: [...(await script('check.mjs', WRITER)), join(base, 'outside.txt')],
        timeoutMs: 20_000,
      },
      sandbox: () => SANDBOX,
    });
    const r = await diag.diagnose({ question: 'discover', tier: 'file-fast', files: [] } as never);
    expect(r.errors).toEqual([]);
    await expectHostUnchanged();
  });

  it('a --diagnostics checker (commandDiagnostics)', async () => {
    const argv = await script(
      'checker.mjs',
      `${WRITER}process.stdout.write(JSON.stringify({ targets: [], errors: [] }));\n`,
    );
    const diag = commandDiagnostics([...argv, join(base, 'outside.txt')], project, 20_000, {
      sandbox: SANDBOX,
    });
    const r = await diag.diagnose({ question: 'edit', tier: 'file-fast', files: ['A.lean'] } as never);
    expect(r.ok).toBe(true);
    await expectHostUnchanged();
  });
});

describe('the checks judge the accepted bytes, not a live tree a leftover process swaps', () => {
  let swapper: ChildProcess | null = null;
  afterEach(() => {
    swapper?.kill('SIGKILL');
    swapper = null;
  });

  /** A left-behind process that keeps putting other (passing) bytes into the accepted file. */
  function startSwapper(): void {
    swapper = spawn(
      process.execPath,
      [
        '-e',
        'const fs = require("node:fs"); const [f, t] = process.argv.slice(1); setInterval(() => fs.writeFileSync(f, t), 20);',
        join(project, 'A.lean'),
        SWAPPED,
      ],
      { stdio: 'ignore' },
    );
  }

  /** A check that waits (≤ 1 s) for the swapped bytes, then fails on the accepted ones. */
  const CHECK = `import { readFileSync } from 'node:fs';
const t0 = Date.now();
let text = readFileSync('A.lean', 'utf8');
while (text.includes('BAD') && Date.now() - t0 < 1000) {
  await new Promise((r) => setTimeout(r, 20));
  text = readFileSync('A.lean', 'utf8');
}
process.exit(text.includes('BAD') ? 1 : 0);
`;

  const port = async (o: { sandbox: boolean; snapshot: boolean }) =>
    createMarkerDiagnostics({
      projectRoot: project,
      target: 'A.lean',
      scope: 'file',
      markers: ['sorry'],
      check: { argv: await script('check.mjs', CHECK), timeoutMs: 20_000 },
      sandbox: o.sandbox ? SANDBOX : null,
      ...(o.snapshot ? { bytesOf: () => ({ bytes: Buffer.from(ACCEPTED) }) } : {}),
    });
  const edit = { question: 'edit', tier: 'file-fast', files: ['A.lean'] } as never;

  it('sandboxed: the check reads the snapshot in its layer, so it judges (and fails) the accepted bytes', async () => {
    const diag = await port({ sandbox: true, snapshot: true });
    startSwapper();
    const r = await diag.diagnose(edit);
    expect(r.ok).toBe(false);
    expect(r.errors).toEqual([expect.stringMatching(/^A\.lean:0:check failed \(exit 1\)/)]);
  });

  it('contained: the swap is seen around the check and the verdict refused, named', async () => {
    const diag = await port({ sandbox: false, snapshot: true });
    startSwapper();
    const r = await diag.diagnose(edit);
    expect(r.ok).toBe(false);
    expect(r.errors).toEqual([
      'A.lean:0:the check did not judge the accepted bytes: A.lean changed on disk around it',
    ]);
    // without a snapshot to judge, the same swap passes the check: what the rule above catches
    const blind = await port({ sandbox: false, snapshot: false });
    expect((await blind.diagnose(edit)).ok).toBe(true);
  });

  it('a --diagnostics checker gets the same rule (contained: the drifted file is an error)', async () => {
    const argv = await script(
      'judge.mjs',
      `${CHECK.replace('process.exit(', 'const bad = (')}\nprocess.stdout.write(JSON.stringify({ targets: [], errors: bad ? ['A.lean:2:BAD'] : [] }));\n`,
    );
    const diag = commandDiagnostics(argv, project, 20_000, {
      bytesOf: () => ({ bytes: Buffer.from(ACCEPTED) }),
      snapshotFiles: () => [join(project, 'A.lean')],
    });
    startSwapper();
    const r = await diag.diagnose({ question: 'checkpoint', tier: 'project', files: [] } as never);
    expect(r.ok).toBe(false);
    expect(r.errors).toContain(
      'A.lean:0:the check did not judge the accepted bytes: changed on disk around it',
    );
  });
});

describe('the golf pass in the sandbox', () => {
  it('a golf worker writing a non-owned file is refused by name; the host file is never touched', async () => {
    await withGitProject(
      { 'Paper.lean': `-- the paper\n\n${GOLF_DRAFT}`, 'notes.txt': 'unrelated\n' },
      async ({ dir }) => {
        const root = await realpath(dir);
        const scratch = await mkdtemp(join(tmpdir(), 'golf-scratch-'));
        try {
          const r = await runGolfPass({
            projectRoot: root,
            rel: 'Paper.lean',
            abs: join(root, 'Paper.lean'),
            declarations: ['two_eq', 'two_eq_hard'],
            worker: { argv: [process.execPath, ATTACK, 'project-file', base] },
            diagnostics: createMarkerDiagnostics({
              projectRoot: root,
              target: 'Paper.lean',
              scope: 'file',
              markers: ['sorry'],
            }),
            scratch,
            commit: true,
            timeoutMs: 30_000,
            sandbox: SANDBOX,
          });
          expect(r.outcome).toBe('refused');
          expect(r.detail).toMatch(/files outside the owned set were written and discarded: notes\.txt/);
          expect(await readFile(join(root, 'notes.txt'), 'utf8')).toBe('unrelated\n');
          expect(r.commit).toBeNull();
        } finally {
          await rm(scratch, { recursive: true, force: true });
        }
      },
    );
  });
});
