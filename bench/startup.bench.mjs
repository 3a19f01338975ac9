// Import weight of the worker-side entry points (issue 28 item 7, issue 33 target 4): a worker that
// imports `handoff-runtime/contract` (or `/baseline`) to build its handoff pays that import once per
// dispatch. Target: ≤ 2× bare node startup, i.e. ratio = (node -e 0) ÷ (node -e "await
// import('handoff-runtime/contract')") ≥ 0.5, both measured in this run, interleaved, median of
// ROUNDS fresh processes each (HANDOFF_BENCH_STARTUP_ROUNDS, default 9, at least 5).
// Two figures per case: wall time (measured by this process around spawnSync) and the child's own
// CPU time (user + system, written at exit by the preloaded cpu-at-exit.cjs — every case, the bare
// one included, carries the same preload). CPU time is the one to trust on a loaded machine; the
// load average is printed with the rows. The import resolves through package.json "exports" (the
// package's self-reference) against dist/, which `npm run bench` builds first.
// Rows without a target, for context: zod alone (the schemas' library, the floor of any entry point
// that hands out zod schemas), the first validateHandoff after the import (the schemas are built on
// first use, so that cost moves here), and the root entry point.
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PRELOAD = fileURLToPath(new URL('cpu-at-exit.cjs', import.meta.url));
const esm = (code) => ['--input-type=module', '-e', code];

/** The measured processes: key, label, node arguments, whether it is held to the target. */
const CASES = [
  { key: 'bare', label: 'node -e 0', args: ['-e', '0'], target: false },
  {
    key: 'contract',
    label: "import('handoff-runtime/contract')",
    args: esm("await import('handoff-runtime/contract')"),
    target: true,
  },
  {
    key: 'baseline',
    label: "import('handoff-runtime/baseline')",
    args: esm("await import('handoff-runtime/baseline')"),
    target: true,
  },
  { key: 'zod', label: "import('zod') alone", args: esm("await import('zod')"), target: false },
  {
    key: 'first-check',
    label: '/contract import + first validateHandoff',
    args: esm("const c = await import('handoff-runtime/contract'); c.validateHandoff({});"),
    target: false,
  },
  {
    key: 'root',
    label: "import('handoff-runtime')",
    args: esm("await import('handoff-runtime')"),
    target: false,
  },
];

/** One fresh process: wall ms (measured here) and CPU ms (reported by the child). */
function once(args) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['-r', PRELOAD, ...args], { cwd: ROOT, encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  const m = /cpu-us (\d+)/.exec(r.stderr);
  if (r.status !== 0 || m === null) throw new Error(`node ${args.join(' ')} failed: ${r.stderr}`);
  return { wall, cpu: Number(m[1]) / 1000 };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export default async function bench() {
  const rounds = Math.max(5, Number(process.env.HANDOFF_BENCH_STARTUP_ROUNDS ?? 9));
  const load = loadavg()[0];
  const times = Object.fromEntries(CASES.map((c) => [c.key, { wall: [], cpu: [] }]));
  for (const c of CASES) once(c.args); // warm the file cache
  for (let r = 0; r < rounds; r++) {
    for (const c of CASES) {
      const t = once(c.args);
      times[c.key].wall.push(t.wall);
      times[c.key].cpu.push(t.cpu);
    }
  }
  const bare = { wall: median(times.bare.wall), cpu: median(times.bare.cpu) };
  const rows = [{ name: `load average (1 min) at start; median of ${rounds} rounds`, value: load, unit: '' }];
  for (const c of CASES) {
    for (const kind of ['wall', 'cpu']) {
      const value = median(times[c.key][kind]);
      const row = { name: `${c.label} (${kind === 'wall' ? 'wall' : 'CPU'})`, value, unit: 'ms' };
      if (c.key !== 'bare') row.ratio = bare[kind] / value; // bare node ÷ this: ≥ 0.5 ⇔ ≤ 2× bare
      if (c.target) row.target = 0.5;
      rows.push(row);
    }
  }
  return rows;
}
