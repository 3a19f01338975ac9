// Benchmark harness: runs every bench/*.bench.mjs (each default-exports an async function that
// returns result rows) against the built package in dist/, and prints a table of measured
// figures and ratios against the raw limits measured in the same run. A row's `target` is met when
// its `ratio` reaches it; a row with `targetMax` is met when its `value` stays at or below it (e.g.
// fsyncs per cycle). Files are discovered by name: a new bench/NAME.bench.mjs is registered by
// existing (durable-cycle.bench.mjs: handoff-runtime's durable cycle against LangGraph.js).
// Usage: npm run bench [-- NAME-FILTER]
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const filter = process.argv[2] ?? '';
const files = (await readdir(dir)).filter((f) => f.endsWith('.bench.mjs') && f.includes(filter)).sort();
const rows = [];
for (const f of files) {
  const mod = await import(new URL(f, import.meta.url).href);
  process.stdout.write(`# ${f}\n`);
  const out = await mod.default();
  for (const r of out) {
    rows.push({ bench: f.replace('.bench.mjs', ''), ...r });
    const ratio = r.ratio === undefined ? '' : `  ratio ${r.ratio.toFixed(3)}`;
    const target =
      r.targetMax !== undefined
        ? `  (target ≤ ${r.targetMax}${r.value <= r.targetMax ? ' met' : ' NOT met'})`
        : r.target === undefined
          ? ''
          : `  (target ${r.target}${r.ratio !== undefined && r.ratio >= r.target ? ' met' : r.ratio !== undefined ? ' NOT met' : ''})`;
    process.stdout.write(
      `  ${r.name}: ${r.value.toLocaleString('en-US', { maximumFractionDigits: 1 })} ${r.unit}${ratio}${target}\n`,
    );
  }
}
await mkdir(new URL('results/', import.meta.url), { recursive: true });
await writeFile(new URL('results/latest.json', import.meta.url), `${JSON.stringify(rows, null, 2)}\n`);
