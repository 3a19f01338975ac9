/**
 * Every command of the verb table (src/cli/main.ts `GROUPS`) and every one of its sub-verbs
 * answers `--help` with its help text on stdout and exit 0 — never "Unknown option" and exit 2.
 * Help is parsed like any option: after a literal `--` a `--help` is data (a worker's own flag),
 * and a dash-leading option value (`--run-id -h`) is a usage error, never help.
 *
 * The walk runs the built CLI's `main` (dist/) in one child process, with every argument vector
 * of the table, so it stays fast; the issue's own case also runs through the real binary.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliCommand } from '../../src/cli/command.js';
import { GROUPS, loadGroup } from '../../src/cli/main.js';
import { runCli } from '../helpers/cli.js';

interface Answer {
  readonly argv: readonly string[];
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

const MAIN = pathToFileURL(join(process.cwd(), 'dist/src/cli/main.js')).href;

/** Runs dist `main` once per argument vector (read as JSON on stdin); prints the answers as JSON. */
const SCRIPT = `import { main } from ${JSON.stringify(MAIN)};
const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const answers = [];
for (const argv of JSON.parse(Buffer.concat(chunks).toString('utf8'))) {
  let out = '';
  let err = '';
  const io = {
    out: (t) => { out += t; },
    err: (t) => { err += t; },
    readStdin: async () => Buffer.alloc(0),
    env: { ...process.env },
    cwd: process.cwd(),
    isTTY: false,
  };
  const code = await main(argv, io);
  answers.push({ argv, code, out, err });
}
process.stdout.write(JSON.stringify(answers));
`;

function runMainMany(argvs: readonly (readonly string[])[], cwd: string): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT], {
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`help walker exited ${code}:\n${stderr}`));
      else resolve(JSON.parse(stdout) as Answer[]);
    });
    child.stdin.end(JSON.stringify(argvs));
  });
}

/** The sub-verbs every group must keep dispatching (a lost verb is a reviewed change). */
const EXPECTED_VERBS: Readonly<Record<string, readonly string[]>> = {
  validate: [],
  dispatch: ['check'],
  guard: [],
  baseline: ['record', 'check', 'advance'],
  store: ['create', 'append', 'set-handoff', 'load', 'list', 'validate', 'recover'],
  persist: [
    'start',
    'note',
    'review',
    'replan',
    'dispatch',
    'handoff',
    'progress',
    'finish',
    'status',
    'reuse',
    'custody',
  ],
  tracker: [
    'init',
    'tick',
    'can-deep',
    'deep',
    'kw-search-can',
    'kw-search',
    'start-claim',
    'reset-claim',
    'status',
    'stop',
  ],
  run: [],
  formalize: [],
  autoformalize: [],
  chain: ['example', 'recover-lock'],
  gate: [
    'bind',
    'collect',
    'evaluate',
    'route',
    'register',
    'directive',
    'reserve',
    'start',
    'consume',
    'release',
    'reconcile',
    'status',
    'run',
  ],
  envelope: ['build', 'validate', 'prefix'],
  viz: ['cycle', 'chain', 'gate', 'synthesis', 'delegation', 'transfer'],
  transfer: ['status', 'revoke'],
  inspect: [],
  audit: [],
  conformance: ['worker'],
  schemas: ['write', 'check'],
  demo: ['formalize', 'lean'],
};

let cwd: string;
const modules = new Map<string, CliCommand>();
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'handoff-help-'));
  for (const g of Object.keys(GROUPS)) {
    const m = await loadGroup(g);
    if (m !== undefined) modules.set(g, m);
  }
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

describe('--help on every command and verb', () => {
  it('every group of the table has its module, which declares the sub-verbs it dispatches', () => {
    expect(Object.keys(GROUPS).sort()).toEqual(Object.keys(EXPECTED_VERBS).sort());
    for (const g of Object.keys(GROUPS)) {
      expect([...(modules.get(g)?.verbs ?? ['(no module)'])].sort(), g).toEqual(
        [...(EXPECTED_VERBS[g] ?? [])].sort(),
      );
    }
  });

  it('every group help names each of its sub-verbs', async () => {
    const answers = await runMainMany(
      Object.keys(GROUPS).map((g) => [g, '--help']),
      cwd,
    );
    for (const a of answers) {
      for (const verb of modules.get(a.argv[0] as string)?.verbs ?? []) {
        expect(a.out, `${a.argv[0]} help names ${verb}`).toContain(verb);
      }
    }
  });

  it('every group and every sub-verb answers --help (and -h) with text on stdout and exit 0', async () => {
    const argvs: string[][] = [];
    for (const group of Object.keys(GROUPS)) {
      argvs.push([group, '--help'], [group, '-h']);
      for (const verb of modules.get(group)?.verbs ?? [])
        argvs.push([group, verb, '--help'], [group, verb, '-h']);
    }
    // help also wins over other options and positionals before it
    argvs.push(['gate', 'collect', '--repo', '.', '--help'], ['viz', 'cycle', '--format', 'dot', '-h']);
    const answers = await runMainMany(argvs, cwd);
    expect(answers).toHaveLength(argvs.length);
    for (const a of answers) {
      const label = a.argv.join(' ');
      expect({ label, code: a.code, err: a.err }).toEqual({ label, code: 0, err: '' });
      expect(a.out, label).toMatch(/^usage: handoff /);
    }
  });

  it('`handoff gate collect --help` through the binary: help on stdout, exit 0', async () => {
    const r = await runCli(['gate', 'collect', '--help'], { cwd });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('collect');
    expect(r.stdout).toMatch(/^usage: handoff gate /);
  });

  it('a --help after `--` is data, and an option value -h is a usage error: neither is help', async () => {
    const [data, value, only] = await runMainMany(
      [
        // store validate reads its FILE from after `--`: a file named --help, which does not exist
        ['store', 'validate', '--kind', 'dispatch', '--', '--help'],
        ['store', 'load', '--run-id', '-h'],
        ['baseline', 'check', '--baseline', '-', '--only', '-h'],
      ],
      cwd,
    );
    expect(data?.code).toBe(3);
    expect(data?.out).toContain('payload_unreadable');
    for (const a of [value, only]) {
      expect(a?.code, a?.argv.join(' ')).toBe(2);
      expect(a?.out).toBe('');
      expect(a?.err).toContain('"error":"usage"');
    }
  });
});
