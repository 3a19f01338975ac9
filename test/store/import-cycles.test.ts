/**
 * src/store and src/durable import without cycles, type-only imports included: the store's record
 * types live in the leaf `store-types.ts`, so the pure rules (chain-rules, cite, journal-parse,
 * validate-payload) never import `store.ts`. A small scanner over `import … from './x.js'` lines
 * (no dependency needed), with a probe showing it finds a cycle.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?[^'";]*?from\s+'(\.[^']+)'/g;

/** Edges file → files it imports (relative imports inside the given sources only). */
function graphOf(sources: ReadonlyMap<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of sources) {
    const deps: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const target = resolve(dirname(file), (m[1] as string).replace(/\.js$/, '.ts'));
      if (sources.has(target)) deps.push(target);
    }
    graph.set(file, deps);
  }
  return graph;
}

/** The strongly connected components with more than one file (Tarjan). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

function folder(name: string): Map<string, string> {
  const dir = join(SRC, name);
  return new Map(
    readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => [join(dir, f), readFileSync(join(dir, f), 'utf8')] as const),
  );
}

describe('import cycles', () => {
  it('the scanner finds a type-only cycle', () => {
    const probe = new Map([
      ['/p/a.ts', "import type { B } from './b.js';\n"],
      ['/p/b.ts', "import {\n  type A,\n} from './a.js';\n"],
      ['/p/c.ts', "import { A } from './a.js';\n"],
    ]);
    expect(cycles(graphOf(probe)).map((c) => c.sort())).toEqual([['/p/a.ts', '/p/b.ts']]);
  });

  it.each(['store', 'durable'])('src/%s has none (type-only imports included)', (name) => {
    const found = cycles(graphOf(folder(name))).map((c) => c.map((f) => relative(SRC, f)).sort());
    expect(found).toEqual([]);
  });
});
