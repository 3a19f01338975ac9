import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMarkerDiagnostics } from '../../src/runtime/marker-diagnostics.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-check-cmd-'));
  await writeFile(join(dir, 'a.js'), 'let x = 0; // TODO(agent): let x = 1;\n');
  await writeFile(join(dir, 'verdict'), '1');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

// exits with the number in ./verdict and prints a last line naming it
const CHECK = [
  process.execPath,
  '-e',
  "const v = Number(require('fs').readFileSync('verdict', 'utf8')); console.log('tests: ' + v + ' failing'); process.exit(v)",
];

describe('the built-in diagnostics with a check command (the code profile)', () => {
  it('a failing check reports one error per checked file and keeps a vanished target open until it passes', async () => {
    const d = createMarkerDiagnostics({
      projectRoot: dir,
      target: '.',
      scope: 'project',
      markers: ['TODO(agent)'],
      errorComment: null,
      check: { argv: CHECK, timeoutMs: 20_000 },
    });
    const first = await d.diagnose({ question: 'discover', tier: 'file-fast', files: [] });
    expect(first.targets.map((t) => t.id)).toEqual(['a.js:1']);
    expect(first.errors).toContain('a.js:0:check failed (exit 1): tests: 1 failing');

    await writeFile(join(dir, 'a.js'), 'let x = 2;\n');
    const red = await d.diagnose({ question: 'edit', tier: 'file-fast', files: ['a.js'] });
    expect(red.targets.map((t) => t.id)).toEqual(['a.js:1']);
    expect(red.targets[0]?.goal).toContain('check failed (exit 1)');
    expect(red.ok).toBe(false);

    await writeFile(join(dir, 'verdict'), '0');
    const green = await d.diagnose({ question: 'edit', tier: 'file-fast', files: ['a.js'] });
    expect(green.targets).toEqual([]);
    expect(green.errors).toEqual([]);
    expect(green.ok).toBe(true);
  }, 60_000);

  it('without a check command the scan alone decides (the Lean default is unchanged)', async () => {
    await writeFile(join(dir, 'A.lean'), 'theorem t : 1 = 1 := sorry -- error: boom\n');
    const d = createMarkerDiagnostics({ projectRoot: dir, target: '.', scope: 'project' });
    const out = await d.diagnose({ question: 'discover', tier: 'file-fast', files: [] });
    expect(out.targets.map((t) => t.id)).toEqual(['A.lean:1']);
    expect(out.errors).toEqual(['A.lean:1:boom']);
  });
});
