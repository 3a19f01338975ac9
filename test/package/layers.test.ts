/**
 * The import layers (docs/architecture.md § Layers) are enforced by Biome's noRestrictedImports
 * overrides in biome.json, which `npm test` runs through `npm run lint`. These tests prove the
 * rules bite: each probe file with a forbidden import, placed in a copy of the config, fails the
 * linter with the layer message; the allowed import passes.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIOME = join(ROOT, 'node_modules', '.bin', 'biome');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-layers-'));
  const config = JSON.parse(await readFile(join(ROOT, 'biome.json'), 'utf8')) as Record<string, unknown>;
  delete config.$schema;
  await writeFile(join(dir, 'biome.json'), JSON.stringify(config));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function lint(rel: string, source: string): Promise<{ code: number; out: string }> {
  return (async () => {
    await mkdir(dirname(join(dir, rel)), { recursive: true });
    await writeFile(join(dir, rel), source);
    return new Promise((resolve) => {
      execFile(BIOME, ['lint', rel], { cwd: dir }, (err, stdout, stderr) => {
        resolve({
          code: err === null ? 0 : ((err as { code?: number }).code ?? 1),
          out: `${stdout}${stderr}`,
        });
      });
    });
  })();
}

const probe = (spec: string) => `import { x } from '${spec}';\n\nexport const y = x;\n`;

describe('import layers', () => {
  it.each([
    ['src/contract/p1.ts', '../cli/io.js', /records and pure rules import only records/],
    ['src/cycle/p2.ts', '../runtime/ports.js', /records and pure rules import only records/],
    ['src/canonical/p3.ts', 'node:fs', /records and pure rules do no I\/O/],
    ['src/patch/apply.ts', 'node:fs', /records and pure rules do no I\/O/],
    ['machines/p4.ts', '../src/runtime/ports.js', /machines import records and pure rules only/],
    ['machines/p5.ts', 'node:child_process', /machines are pure/],
    ['src/store/p6.ts', '../cli/main.js', /the library never imports the CLI/],
    ['src/runtime/p7.ts', '../../examples/payroll/index.js', /never imports examples/],
    ['src/cli/p8.ts', '../../examples/payroll/index.js', /the CLI loads examples as programs/],
  ])('%s importing %s fails the lint', async (rel, spec, message) => {
    const r = await lint(rel, probe(spec));
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(message);
  });

  it('an import inside the layer passes', async () => {
    const r = await lint('src/cycle/ok.ts', probe('../contract/index.js'));
    expect(r.out).not.toMatch(/layers:/);
    expect(r.code).toBe(0);
  });
});
