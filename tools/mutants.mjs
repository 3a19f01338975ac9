#!/usr/bin/env node
/**
 * Mutation check of the protocol rules: 20 small, meaningful mutants (a guard inverted, a
 * transition retargeted, a check skipped, a bound off by one) of machines/, src/cycle, src/store,
 * src/chain, src/gate and the checks they call, each run against the test files a developer would
 * run for that file. A mutant the tests do not kill is a finding (a rule nothing pins).
 *
 * Every mutant is an exact-string edit that must match its file exactly once: when the code moves
 * on and a `find` no longer matches (or matches twice), the script fails loudly before running
 * anything, so the table cannot rot silently.
 *
 * The mutants are applied in a PRIVATE copy of the repository (`git clone --shared` of a commit,
 * default HEAD, under the OS temp dir, with node_modules symlinked from the repository): the
 * working tree the script is run from is never edited. Each mutant runs
 * `vitest run <its tests>` in its own process group with a timeout; a run that does not end in
 * time is killed and counted as killed-by-timeout (a hanging graph walk is a detection, but a slow
 * one: the model walks are bounded so that a broken machine fails with a named path instead).
 *
 * Usage:
 *   node tools/mutants.mjs                 # all mutants against HEAD
 *   node tools/mutants.mjs --list          # the table, no run
 *   node tools/mutants.mjs --check         # every find matches once in this working tree, no run
 *   node tools/mutants.mjs --only M07,M09  # some mutants
 *   node tools/mutants.mjs --ref <commit>  # another commit (e.g. the suite before a diet)
 *   node tools/mutants.mjs --timeout 300   # seconds per mutant (default 240)
 *   node tools/mutants.mjs --json out.json # also write the JSON summary to a file
 *   node tools/mutants.mjs --no-baseline   # skip the unmutated run of the selected tests
 *   node tools/mutants.mjs --keep          # keep the private copy (its path is printed)
 *
 * Exit status: 0 when every mutant ran and was killed, 1 when one survived, 2 on a usage error, a
 * `find` that does not match exactly once, or a baseline that does not pass.
 *
 * @example
 * ```sh
 * node tools/mutants.mjs --only M01 --timeout 120
 * ```
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The mutants. `find` must occur exactly once in `file`; `replace` is what it becomes; `tests` are
 * the test files or folders a developer runs for that file, which must kill the mutant; `build`
 * when some of them start processes that import the built `dist/` (it is rebuilt with the mutant).
 *
 * @type {readonly { id: string; what: string; file: string; find: string; replace: string; tests: readonly string[]; build?: boolean }[]}
 */
const MUTANTS = [
  {
    id: 'M01',
    what: 'chain: the seam retry bound off by one (attempt <= max_attempts)',
    file: 'src/chain/seam-lifecycle.ts',
    find: 'return c.attempt < c.max_attempts;',
    replace: 'return c.attempt <= c.max_attempts;',
    tests: ['test/chain/seam-lifecycle.test.ts', 'test/model/chain.test.ts'],
  },
  {
    id: 'M02',
    what: "chain machine: the guard 'seamPassed' inverted (a refused delta commits)",
    file: 'machines/chain.ts',
    find: 'seamPassed: (_, out: SeamOutcome) => seamPassed(out),',
    replace: 'seamPassed: (_, out: SeamOutcome) => !seamPassed(out),',
    tests: ['test/model/chain.test.ts', 'test/chain/seam-lifecycle.test.ts', 'test/chain/machine-runner.test.ts'],
  },
  {
    id: 'M03',
    what: 'chain machine: GIVE_UP retargeted from stopped to accepted',
    file: 'machines/chain.ts',
    find: "GIVE_UP: { target: 'stopped' },",
    replace: "GIVE_UP: { target: 'accepted' },",
    tests: ['test/model/chain.test.ts', 'test/chain/seam-lifecycle.test.ts', 'test/chain/machine-runner.test.ts'],
  },
  {
    id: 'M04',
    what: 'chain seam: the committed-fact overwrite check skipped',
    file: 'src/chain/seam.ts',
    find: 'if (overwrite.length > 0)',
    replace: 'if (overwrite.length > 0 && false)',
    tests: ['test/chain/seam.test.ts'],
  },
  {
    id: 'M05',
    what: 'chain seam: facts need no evidence by default (evidence_required ?? false)',
    file: 'src/chain/seam.ts',
    find: '(rule.evidence_required ?? true)',
    replace: '(rule.evidence_required ?? false)',
    tests: ['test/chain/seam.test.ts'],
  },
  {
    id: 'M06',
    what: 'chain journal: an append lock held by another writer is taken anyway (link EEXIST = ok)',
    file: 'src/chain/append-lock.ts',
    find: "if (errnoOf(e) === 'EEXIST') return { ok: false, busy: true, cause: e };",
    replace: "if (errnoOf(e) === 'EEXIST') return { ok: true };",
    tests: ['test/chain/journal-held-lock.test.ts', 'test/chain/journal-lock.test.ts'],
    // journal-lock races real writer processes, which import the built dist/
    build: true,
  },
  {
    id: 'M07',
    what: "gate: the one-continuation bound off by one (gate_continuations_used <= profile's)",
    file: 'src/gate/lifecycle.ts',
    find: 'ctx.gate_continuations_used < ctx.profile.gate_continuations &&\n',
    replace: 'ctx.gate_continuations_used <= ctx.profile.gate_continuations &&\n',
    tests: ['test/gate/lifecycle.test.ts', 'test/model/gate.test.ts', 'test/gate/runner.test.ts'],
  },
  {
    id: 'M08',
    what: 'gate: a refused reservation accepted as a grant (outcome check skipped)',
    file: 'src/gate/lifecycle.ts',
    find: "if ((out.outcome !== 'granted' && out.outcome !== 'replayed') || out.grant_id === null) return false;",
    replace: 'if (out.grant_id === null) return false;',
    tests: ['test/gate/lifecycle.test.ts', 'test/model/gate.test.ts', 'test/gate/runner.test.ts'],
  },
  {
    id: 'M09',
    what: 'gate: a hard stop no longer stops routing (routeStops ignores hard_stop)',
    file: 'src/gate/lifecycle-reducers.ts',
    find: "out.route === 'STOP' || c.hard_stop !== null",
    replace: "out.route === 'STOP'",
    tests: ['test/gate/lifecycle-reducers.test.ts', 'test/model/gate.test.ts', 'test/gate/runner.test.ts'],
  },
  {
    id: 'M10',
    what: 'gate machine: validating retargeted: after a gate continuation, collect again (not the lead)',
    file: 'machines/gate.ts',
    find: "{ guard: 'afterOrdinaryRepair', target: 'collecting' }, { target: 'leadReview' }",
    replace: "{ guard: 'afterOrdinaryRepair', target: 'collecting' }, { target: 'collecting' }",
    tests: ['test/model/gate.test.ts', 'test/gate/runner.test.ts'],
  },
  {
    id: 'M11',
    what: 'cycle: the rerun guard inverted (forbidden relaunches dispatched, allowed ones refused)',
    file: 'src/cycle/relaunch.ts',
    find: 'relaunchVerdict(c, c.current)?.forbidden === true',
    replace: 'relaunchVerdict(c, c.current)?.forbidden !== true',
    tests: ['test/cycle/reducers.test.ts', 'test/model/cycle.test.ts'],
  },
  {
    id: 'M12',
    what: "rerun guard: the blocker branch's evidence check skipped (same blocker, no evidence, allowed)",
    file: 'src/contract/rerun-guard.ts',
    find: '  if (!hasEvidence) {\n    return {\n      forbidden: true,\n      branch: \'blocker\',',
    replace: '  if (!hasEvidence && false) {\n    return {\n      forbidden: true,\n      branch: \'blocker\',',
    tests: ['test/contract/rerun-guard.test.ts', 'test/model/cycle.test.ts'],
  },
  {
    id: 'M13',
    what: 'cycle: stuck after one failure more than the limit (fails >= max becomes >)',
    file: 'src/cycle/stuck.ts',
    find: 'if (fails.length >= i.maxFailuresPerTarget) {',
    replace: 'if (fails.length > i.maxFailuresPerTarget) {',
    tests: ['test/cycle/rules.test.ts', 'test/cycle/stuck-blocker.test.ts'],
  },
  {
    id: 'M14',
    what: 'cycle: solved while diagnostics still report errors (nothing-open ignores errors)',
    file: 'src/cycle/nothing-open.ts',
    find: 'return out.targets.length === 0 && out.errors.length === 0;',
    replace: 'return out.targets.length === 0;',
    tests: ['test/cycle/solved-verified.test.ts', 'test/cycle/rules.test.ts'],
  },
  {
    id: 'M15',
    what: "cycle machine: the guard 'gateFailed' inverted (a failing gate checkpoints)",
    file: 'machines/cycle.ts',
    find: 'gateFailed: (_, out: DiagnosticsOutput) => !out.ok,',
    replace: 'gateFailed: (_, out: DiagnosticsOutput) => out.ok,',
    tests: ['test/model/cycle.test.ts'],
  },
  {
    id: 'M16',
    what: 'custody: an owned file modified after the returned baseline passes (sha check skipped)',
    file: 'src/runtime/custody-guard.ts',
    find: 'else if (e.exists && sha !== e.sha256) bad.push(`${p} (modified)`);',
    replace: '',
    tests: ['test/delegate/rules.test.ts', 'test/delegate/hostile.test.ts'],
  },
  {
    id: 'M17',
    what: "store: an append proceeds when the run's lock is not taken (busy refusal skipped)",
    file: 'src/store/fs-append.ts',
    find: 'if (!lock.ok) return refused(runId, lock.code, lock.detail);',
    replace: '',
    tests: ['test/store/fs-store.test.ts'],
  },
  {
    id: 'M18',
    what: 'store: a replan may cite its own seq (cite_not_earlier off by one)',
    file: 'src/store/validate-payload.ts',
    find: '} else if (c.seq >= newSeq) {',
    replace: '} else if (c.seq > newSeq) {',
    tests: ['test/store/records.test.ts'],
  },
  {
    id: 'M19',
    what: 'store: a journal with a seq gap loads as valid (only duplicates refused)',
    file: 'src/store/journal-parse.ts',
    find: 'if (e.seq !== expectedSeq)',
    replace: 'if (e.seq < expectedSeq)',
    tests: ['test/store/journal-parse.test.ts', 'test/store/fs-store.test.ts'],
  },
  {
    id: 'M20',
    what: 'synthesis: one redraft more than maxRedrafts (redraftLeft off by one)',
    file: 'src/synthesis/loop/machine-rules.ts',
    find: '(c.active?.redrafts ?? 0) < c.input.maxRedrafts',
    replace: '(c.active?.redrafts ?? 0) <= c.input.maxRedrafts',
    tests: ['test/synthesis/machine-rules.test.ts', 'test/model/synthesis.test.ts', 'test/synthesis/loop-rules.test.ts'],
  },
];

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..');

/** Parses the command line; null and a message on a usage error. */
function parseArgs(argv) {
  const o = { check: false, list: false, only: null, ref: 'HEAD', timeout: 240, json: null, baseline: true, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--list') o.list = true;
    else if (a === '--check') o.check = true;
    else if (a === '--only') o.only = value().split(',').filter(Boolean);
    else if (a === '--ref') o.ref = value();
    else if (a === '--timeout') o.timeout = Number(value());
    else if (a === '--json') o.json = value();
    else if (a === '--no-baseline') o.baseline = false;
    else if (a === '--keep') o.keep = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!Number.isFinite(o.timeout) || o.timeout <= 0) throw new Error('--timeout must be a positive number');
  return o;
}

/** Runs git with an argument array; throws with its stderr when it fails. */
function git(cwd, args) {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

/** Occurrences of `find` in `text`. */
function countOf(text, find) {
  let n = 0;
  for (let at = text.indexOf(find); at !== -1; at = text.indexOf(find, at + 1)) n++;
  return n;
}

/** Every mutant whose `find` does not occur exactly once in the copy (the table has rotted). */
function rotted(copy, mutants) {
  const out = [];
  for (const m of mutants) {
    const path = join(copy, m.file);
    if (!existsSync(path)) {
      out.push(`${m.id}: ${m.file} does not exist`);
      continue;
    }
    const n = countOf(readFileSync(path, 'utf8'), m.find);
    if (n !== 1) out.push(`${m.id}: the find of ${m.file} matches ${n} times (must be exactly 1)`);
    for (const t of m.tests) if (!existsSync(join(copy, t))) out.push(`${m.id}: test ${t} does not exist`);
  }
  return out;
}

/**
 * Runs `vitest run <tests>` in `cwd` in its own process group; resolves to its exit status, or
 * 'timeout' once it was killed after `seconds`.
 */
function runTests(cwd, tests, seconds) {
  return new Promise((done) => {
    const bin = join(cwd, 'node_modules', '.bin', 'vitest');
    const child = spawn(bin, ['run', '--reporter=dot', ...tests], {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    });
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, seconds * 1000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ status: timedOut ? 'timeout' : code, log });
    });
  });
}

/** Compiles the copy's dist/ (incrementally after the first time); throws when tsc fails. */
function build(cwd) {
  const tsc = join(cwd, 'node_modules', '.bin', 'tsc');
  const r = spawnSync(
    tsc,
    ['-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', join(cwd, '.mutants.tsbuildinfo')],
    { cwd, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`tsc -p tsconfig.build.json failed:\n${r.stdout}${r.stderr}`);
}

/** The first failing test names of a vitest log (what killed the mutant). */
function killers(log) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes are stripped
  const plain = log.replace(/\x1b\[[0-9;]*m/g, '');
  const lines = plain.split('\n').filter((l) => /^\s*FAIL\s/.test(l));
  return [...new Set(lines.map((l) => l.trim().replace(/^FAIL\s+/, '')))].slice(0, 3);
}

/** Makes the private copy of `ref` and links node_modules; returns its path. */
function privateCopy(ref) {
  const sha = git(ROOT, ['rev-parse', '--verify', `${ref}^{commit}`]);
  const dir = mkdtempSync(join(tmpdir(), 'handoff-mutants-'));
  git(ROOT, ['clone', '--quiet', '--shared', '--no-checkout', ROOT, dir]);
  git(dir, ['checkout', '--quiet', '--detach', sha]);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { dir, sha };
}

function pad(s, n) {
  return String(s).padEnd(n);
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`mutants: ${e.message}\n`);
    return 2;
  }
  const ids = new Set(MUTANTS.map((m) => m.id));
  if (opts.only) {
    const unknown = opts.only.filter((id) => !ids.has(id));
    if (unknown.length > 0) {
      process.stderr.write(`mutants: unknown id(s) ${unknown.join(', ')}\n`);
      return 2;
    }
  }
  const selected = opts.only ? MUTANTS.filter((m) => opts.only.includes(m.id)) : MUTANTS;
  if (opts.list) {
    for (const m of selected) process.stdout.write(`${m.id}  ${pad(m.file, 32)} ${m.what}\n      tests: ${m.tests.join(' ')}\n`);
    return 0;
  }

  if (opts.check) {
    const bad = rotted(ROOT, selected);
    for (const b of bad) process.stderr.write(`mutants: ${b}\n`);
    process.stdout.write(`mutants: ${selected.length - new Set(bad.map((b) => b.slice(0, 3))).size}/${selected.length} finds match exactly once\n`);
    return bad.length === 0 ? 0 : 2;
  }
  const { dir, sha } = privateCopy(opts.ref);
  process.stdout.write(`mutants: private copy of ${sha.slice(0, 12)} at ${dir}\n`);
  try {
    const bad = rotted(dir, selected);
    if (bad.length > 0) {
      process.stderr.write(`mutants: the table no longer matches the code:\n  ${bad.join('\n  ')}\n`);
      return 2;
    }
    if (selected.some((m) => m.build)) {
      const t0 = Date.now();
      build(dir);
      process.stdout.write(`mutants: dist/ built in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
    }
    if (opts.baseline) {
      const all = [...new Set(selected.flatMap((m) => m.tests))];
      const t0 = Date.now();
      const base = await runTests(dir, all, opts.timeout * 2);
      const secs = ((Date.now() - t0) / 1000).toFixed(1);
      if (base.status !== 0) {
        process.stderr.write(`mutants: the unmutated tests do not pass (${base.status}, ${secs}s):\n${base.log.slice(-4000)}\n`);
        return 2;
      }
      process.stdout.write(`mutants: baseline (unmutated, ${all.length} test files) passed in ${secs}s\n`);
    }
    const results = [];
    for (const m of selected) {
      const path = join(dir, m.file);
      const original = readFileSync(path, 'utf8');
      writeFileSync(path, original.replace(m.find, () => m.replace));
      const t0 = Date.now();
      let r;
      try {
        // a mutant that does not compile is killed by the build, as it would be by CI
        if (m.build) build(dir);
        r = await runTests(dir, m.tests, opts.timeout);
      } catch (e) {
        r = { status: 'build', log: String(e?.message ?? e) };
      } finally {
        writeFileSync(path, original);
        if (m.build) build(dir);
      }
      const seconds = Math.round((Date.now() - t0) / 100) / 10;
      const status =
        r.status === 'timeout'
          ? 'killed-by-timeout'
          : r.status === 'build'
            ? 'killed-by-build'
            : r.status === 0
              ? 'survived'
              : 'killed';
      const row = { id: m.id, what: m.what, file: m.file, status, seconds, by: status === 'killed' ? killers(r.log) : [] };
      results.push(row);
      process.stdout.write(`${m.id}  ${pad(status, 17)} ${pad(`${seconds}s`, 7)} ${m.what}\n`);
    }
    const killed = results.filter((r) => r.status !== 'survived').length;
    const summary = {
      commit: sha,
      total: results.length,
      killed,
      killed_by_timeout: results.filter((r) => r.status === 'killed-by-timeout').length,
      survived: results.filter((r) => r.status === 'survived').map((r) => r.id),
      seconds: Math.round(results.reduce((s, r) => s + r.seconds, 0)),
      mutants: results,
    };
    process.stdout.write(`\nmutants: ${killed}/${results.length} killed\n${JSON.stringify(summary, null, 2)}\n`);
    if (opts.json) writeFileSync(opts.json, `${JSON.stringify(summary, null, 2)}\n`);
    return summary.survived.length === 0 ? 0 : 1;
  } finally {
    if (opts.keep) process.stdout.write(`mutants: kept ${dir}\n`);
    else {
      rmSync(join(dir, 'node_modules'), { force: true }); // the link only, never its target
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

// a reader that stops early (`| head`) ends the output, not the script with an EPIPE trace
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});
process.exitCode = await main();
