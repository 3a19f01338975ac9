/**
 * The `handoff` commands README.md and docs/tutorial-embed.md show — every `handoff …` line of
 * their shell blocks and every inline `npx handoff …` — run in-process through the CLI main in a
 * project like the pages' (a git project whose attempt is journaled, so `<run-id>` names a real
 * run), and each exits 0 as the pages promise. A command added to a page is run here the day it
 * is added, so the pages cannot drift from the CLI.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceBaseline } from '../../src/baseline/index.js';
import { handoffFor } from '../../src/contract/index.js';
import { createDispatch, delegate } from '../../src/delegate/index.js';
import { createFsStore } from '../../src/store/fs-store.js';
import { cliMain } from '../helpers/cli-main.js';
import { docBlocks } from '../helpers/doc-module.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = ['README.md', 'docs/tutorial-embed.md'];
const SHELL = new Set(['sh', 'bash', 'shell', 'console']);

/**
 * The `handoff` command lines of a Markdown page: lines of its shell blocks that run `handoff`
 * (`npx handoff …` or `handoff …`, a trailing `# comment` dropped), then its inline
 * `` `npx handoff …` `` spans.
 */
function handoffCommands(markdown: string): string[] {
  const out: string[] = [];
  for (const b of docBlocks(markdown)) {
    if (!SHELL.has(b.lang)) continue;
    for (const raw of b.code.split('\n')) {
      const line = raw.replace(/\s+#.*$/, '').trim();
      if (/^(npx )?handoff\s/.test(line)) out.push(line);
    }
  }
  for (const m of markdown.matchAll(/`(npx handoff [^`]+)`/g)) out.push(m[1] ?? '');
  return out;
}

/** A command line as the argument vector after `handoff`, `<run-id>` / `<run_id>` filled in. */
function argvOf(line: string, runId: string): string[] {
  if (/["'\\$|;&<>]/.test(line.replace(/<run[-_]id>/g, '')))
    throw new Error(`${line}: quoting or shell syntax — extend argvOf before adding it to a page`);
  const words = line.replace(/<run[-_]id>/g, runId).split(/\s+/);
  return words.slice(words[0] === 'npx' ? 2 : 1);
}

let project: string;
let runId: string;

beforeAll(async () => {
  // the tutorial's project (docs/tutorial-embed.md § 1) with one journaled attempt (§ 4)
  project = await realpath(await mkdtemp(join(tmpdir(), 'doc-commands-')));
  await mkdir(join(project, 'src'));
  await writeFile(join(project, 'src', 'greeting.ts'), "export const greeting = 'TODO(agent)';\n");
  await writeFile(join(project, 'README.md'), 'A demo project.\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: project, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
  const d = await createDispatch({
    target: 'src/greeting.ts:1',
    scope: 'file',
    mode: 'autoprove',
    ownedFiles: ['src/greeting.ts'],
    cwd: project,
  });
  const r = await delegate(
    d,
    async (x) => {
      await writeFile(x.owned_files[0] ?? '', "export const greeting = 'hello';\n");
      return handoffFor(x, {
        files_changed: [...x.owned_files],
        file_baseline: await advanceBaseline(x.file_baseline, x.owned_files),
      });
    },
    { store: createFsStore({ projectRoot: project }) },
  );
  runId = (r.cite ?? '').split('#')[0] ?? '';
});

afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

describe('the handoff commands the pages show', () => {
  it('finds them: a shell block line, a trailing comment dropped, an inline span', () => {
    const md = '```sh\nnpx handoff inspect <run-id>   # the run\nnpm test\n```\nthen `npx handoff --help`.';
    expect(handoffCommands(md)).toEqual(['npx handoff inspect <run-id>', 'npx handoff --help']);
  });

  for (const page of PAGES) {
    it(`${page}: every command exits 0 in the page's project`, async () => {
      expect(runId).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{8}$/);
      const commands = handoffCommands(await readFile(join(ROOT, page), 'utf8'));
      expect(commands.length, page).toBeGreaterThan(0);
      for (const line of commands) {
        const r = await cliMain(argvOf(line, runId), project);
        expect({ line, code: r.code, err: r.err }).toEqual({ line, code: 0, err: '' });
        expect(r.out, line).not.toBe('');
      }
    });
  }
});
