/**
 * The command drafter in the sandbox (really started): a well-behaved drafter's block comes back
 * through its temp path and nothing is left in the project; a drafter that also writes the target
 * file, another project file and its `$HOME` is refused by name (`protocol-error`) and the host
 * project stays byte-identical.
 */
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../src/sandbox/index.js';
import { commandDrafter, type DraftRequest } from '../../src/synthesis/index.js';
import { cliMain } from '../helpers/cli-main.js';

let dir = '';
let project = '';
let temp = '';
const ORIGINAL = 'theorem user_stmt : 1 + 1 = 2 := by decide\n';
const BLOCK = 'theorem add_zero_ex (n : Nat) : n + 0 = n := by\n  sorry\n';

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'drafter-sandbox-')));
  project = join(dir, 'p');
  await mkdir(join(dir, 'scratch'), { recursive: true });
  await mkdir(project);
  await writeFile(join(project, 'Basic.lean'), ORIGINAL);
  temp = join(dir, 'scratch', 'draft.lean');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const request = (): DraftRequest => ({
  schema: 'draft-request/v1',
  claim: { id: 'c1-abcd', text: 'n + 0 = n', title: null, name: 'add_zero_ex', kind: 'theorem' },
  target_file: join(project, 'Basic.lean'),
  temp_path: temp,
  policy: { statement_policy: 'rewrite-generated-only', caller: 'autoformalize' },
  mode: 'draft',
  prior: null,
});

/**
 * A drafter script (inside the project: the sandbox's `/tmp` is private, a script under the host's
 * is not seen): writes the block to its temp path, then whatever `extra` does.
 */
async function drafter(extra: string): Promise<string[]> {
  await mkdir(join(project, 'tools'), { recursive: true });
  const file = join(project, 'tools', 'drafter.mjs');
  await writeFile(
    file,
    `import * as fs from 'node:fs';\nconst req = JSON.parse(fs.readFileSync(0, 'utf8'));\n` +
      `fs.writeFileSync(req.temp_path, ${JSON.stringify(BLOCK)});\n${extra}\n` +
      `process.stdout.write(JSON.stringify({ schema: 'draft-response/v1', status: 'drafted', declarations: ['add_zero_ex'], detail: null }) + '\\n');\n`,
  );
  return [process.execPath, file];
}

const run = async (argv: string[]) =>
  commandDrafter(argv, { cwd: project, timeoutMs: 10_000, sandbox: { network: 'deny' } }).draft(
    request(),
    new AbortController().signal,
  );

describe('a sandboxed command drafter', () => {
  it('returns the block through the temp path and leaves nothing in the project', async () => {
    expect(await probeSandbox(project)).toEqual({ available: true });
    const out = await run(await drafter(`fs.writeFileSync(process.env.HOME + '/.cache-note', 'x');`));
    expect(out).toMatchObject({ kind: 'drafted', declarations: ['add_zero_ex'] });
    expect(await readFile(temp, 'utf8')).toBe(BLOCK);
    expect((await readdir(project)).sort()).toEqual(['.handoff', 'Basic.lean', 'tools']);
    expect(await readdir(join(project, '.handoff'))).toEqual([]);
  });

  it('refuses a drafter that writes the target or another project file, naming them; the host is untouched', async () => {
    const out = await run(
      await drafter(
        `fs.appendFileSync(req.target_file, 'axiom cheat : False\\n'); fs.writeFileSync('other.lean', 'x');`,
      ),
    );
    expect(out).toEqual({
      kind: 'protocol-error',
      detail:
        'the drafter wrote in the project outside its temp path (drafters write only the temp path): files outside the owned set were written and discarded: Basic.lean, other.lean',
    });
    expect(await readFile(join(project, 'Basic.lean'), 'utf8')).toBe(ORIGINAL);
    expect((await readdir(project)).sort()).toEqual(['.handoff', 'Basic.lean', 'tools']);
  });

  it('autoformalize: a --sandbox or --sandbox-network value outside the choices is a usage error', async () => {
    const bad = await cliMain(['autoformalize', '--sandbox', 'yes', '--target', 'T.lean'], project);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("--sandbox must be auto|on|off, got 'yes'");
    const net = await cliMain(['autoformalize', '--sandbox-network', 'some', '--target', 'T.lean'], project);
    expect(net.code).toBe(2);
    expect(net.err).toContain("--sandbox-network must be deny|allow, got 'some'");
  });
});
