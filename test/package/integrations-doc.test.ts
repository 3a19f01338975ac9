/**
 * docs/integrations.md runs as written: its shell block's `node dist/examples/<adapter>/run.js DIR`
 * lines run the built examples (a fresh temporary directory for each DIR; `npm run build` is what
 * `npm test` did before the suite), each exiting 0; and the page's table names exactly the adapter
 * subpaths of package.json `exports`, each with a guide that exists.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const doc = await readFile(join(ROOT, 'docs', 'integrations.md'), 'utf8');
const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
};
const sh = [...doc.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'integrations-doc-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('docs/integrations.md', () => {
  it('its shell block builds, then runs each adapter example offline', async () => {
    expect(sh).toHaveLength(1);
    const lines = (sh[0] as string).split('\n').filter((l) => l.trim() !== '');
    expect(lines[0]).toBe('npm run build');
    const examples = lines.slice(1);
    expect(examples).toHaveLength(3);
    for (const [i, line] of examples.entries()) {
      const m = /^node (dist\/examples\/[a-z-]+\/run\.js) \S+$/.exec(line);
      expect(m, line).not.toBeNull();
      const script = join(ROOT, m?.[1] ?? '');
      expect(existsSync(script), script).toBe(true);
      const { stdout } = await run(process.execPath, [script, join(dir, `demo-${i}`)], {
        cwd: ROOT,
        env: { ...process.env, OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' },
        timeout: 120_000,
      });
      expect(stdout.length, line).toBeGreaterThan(0);
    }
  }, 300_000);

  it('its table lists exactly the adapter subpaths, each with an existing guide', () => {
    const adapters = Object.keys(pkg.exports)
      .filter((s) => ['./langgraph', './claude-agent-sdk', './openai-agents'].includes(s))
      .map((s) => `handoff-runtime/${s.slice(2)}`);
    const rows = [...doc.matchAll(/^\| `(handoff-runtime\/[a-z-]+)` \|.*\[(integrations\/[a-z-]+\.md)\]/gm)];
    expect(rows.map((r) => r[1]).sort()).toEqual(adapters.sort());
    for (const r of rows) expect(existsSync(join(ROOT, 'docs', r[2] as string)), r[2]).toBe(true);
  });
});
