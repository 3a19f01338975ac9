/**
 * `runGate` with the sandbox really started: the worker's writes that `allowed_writes` matches
 * reach the tree; a write to another file, `.git/config`, `.handoff/…`, `$HOME` or outside the
 * repository never does, is named in the lead packet and fails the exact checks
 * (`scope_violation`); a check command's writes — one to an allowed file included — are discarded
 * and named, so a check cannot change the evidence.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  buildEvaluatorRequest,
  createFsLedger,
  currentCandidate,
  DEFAULT_THRESHOLDS,
  ownerAuthority,
  runGate,
  subprocessEvaluator,
} from '../../src/gate/index.js';
import { probeSandbox } from '../../src/sandbox/index.js';
import { contract, exampleContract, gitRepo, packet, rm, T0, tempDir, write } from './fixtures.js';

const ATTACKER = fileURLToPath(new URL('../helpers/sandbox-attacker.mjs', import.meta.url));
const WORKER = fileURLToPath(new URL('../../examples/gate/worker.mjs', import.meta.url));
const EVALUATOR = new URL('../../examples/gate/evaluator.mjs', import.meta.url).href;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rm(d);
});

describe('runGate in the sandbox', () => {
  it('takes only allowed writes, names and refuses the rest, and a check cannot change the evidence', async () => {
    expect(await probeSandbox()).toEqual({ available: true });
    const repo = gitRepo({ 'README.md': 'demo\n', '.gitignore': '.handoff/\n' });
    const side = tempDir('gate-sandbox-');
    dirs.push(repo, side);
    const gitConfig = readFileSync(join(repo, '.git', 'config'), 'utf8');
    const contract = exampleContract(await currentCandidate(repo));
    const spec = {
      write: ['README.md', '.git/config', '.handoff/forged'],
      home: true,
      outside: join(side, 'outside.txt'),
    };
    const r = await runGate({
      repo,
      contract,
      ledger: createFsLedger(join(side, 'ledger'), { now: () => T0 }),
      evaluator: null,
      worker: [process.execPath, ATTACKER, JSON.stringify(spec), WORKER],
      check: ['/bin/sh', '-c', 'echo dirty > check-wrote.txt; echo tampered >> src/greet.js'],
      authority: ownerAuthority(contract.owner),
      thresholds: DEFAULT_THRESHOLDS,
      now: () => T0,
      recordsDir: join(side, 'records'),
      register: true,
      sandbox: { network: 'deny' },
    });
    // the allowed write reached the tree, untouched by the check
    expect(readFileSync(join(repo, 'src', 'greet.js'), 'utf8')).toBe(
      "export function greet(name) { return 'hello ' + name; }\n",
    );
    // nothing else did
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('demo\n');
    expect(readFileSync(join(repo, '.git', 'config'), 'utf8')).toBe(gitConfig);
    expect(existsSync(join(repo, '.handoff', 'forged'))).toBe(false);
    expect(existsSync(join(side, 'outside.txt'))).toBe(false);
    expect(existsSync(join(repo, 'check-wrote.txt'))).toBe(false);
    // named, and refused by the exact checks
    const text = JSON.stringify(r.lead);
    expect(text).toContain(
      'worker (initial): files outside the owned set were written and discarded: .git/config, .handoff/forged, README.md, ~/.bashrc',
    );
    expect(text).toContain(
      'check command (the evidence is unchanged): files outside the owned set were written and discarded: check-wrote.txt, src/greet.js',
    );
    expect(text).toContain('README.md was written outside allowed_writes (discarded by the sandbox)');
    expect(r.lead.route).toBe('LEAD_REVIEW');
    expect(r.records.packets[0]?.changeset.map((c) => c.path)).toEqual(['src/greet.js']);
  });

  it('a sandboxed evaluator answers, and what it wrote never reaches its directory', async () => {
    const cwd = tempDir('gate-sandbox-eval-');
    dirs.push(cwd);
    write(
      cwd,
      'eval.mjs',
      `import { writeFileSync } from 'node:fs';\nwriteFileSync('eval-wrote.txt', 'x');\nawait import(${JSON.stringify(EVALUATOR)});\n`,
    );
    const port = subprocessEvaluator([process.execPath, join(cwd, 'eval.mjs')], {
      cwd,
      sandbox: { network: 'allow' },
    });
    const c = contract();
    const answer = await port.evaluate(buildEvaluatorRequest(c, packet(c)), {
      signal: new AbortController().signal,
    });
    expect(answer).toMatchObject({
      claims: [expect.objectContaining({ criterion_id: 'reload-idempotent' })],
    });
    expect(existsSync(join(cwd, 'eval-wrote.txt'))).toBe(false);
  });
});
