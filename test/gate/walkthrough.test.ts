/**
 * docs/gate.md's walkthrough is exactly reproducible: its shell block runs (bash, from the
 * repository root, against the built CLI) and prints exactly the documented output block.
 * Needs `npm run build`.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The fenced block between `<!-- name:start -->` and `<!-- name:end -->`. */
function fencedBlock(markdown: string, name: string): string {
  const m = new RegExp(
    `<!-- ${name}:start -->\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\`\`\`\\n<!-- ${name}:end -->`,
  ).exec(markdown);
  if (m === null || m[1] === undefined) throw new Error(`no ${name} block in docs/gate.md`);
  return m[1];
}

describe('docs/gate.md walkthrough', () => {
  it('runs as written and prints exactly the documented output', async () => {
    const doc = readFileSync(`${ROOT}docs/gate.md`, 'utf8');
    const script = fencedBlock(doc, 'walkthrough');
    const expected = fencedBlock(doc, 'walkthrough-output');
    const env: Record<string, string | undefined> = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith('GATE_') || k.startsWith('GIT_')) delete env[k];
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        'bash',
        ['-e', '-c', script],
        { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 },
        (err, out, stderr) => (err === null ? resolve(out) : reject(new Error(`${err.message}\n${stderr}`))),
      );
    });
    expect(stdout).toBe(expected);
  }, 150_000);
});
