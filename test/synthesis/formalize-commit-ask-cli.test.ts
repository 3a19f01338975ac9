/**
 * `handoff formalize --commit ask` through the CLI (real git, the example subprocess drafter and
 * worker, scripted `--answers`): the commit question is printed with its `draft:` message after
 * the draft's approval, `keep` leaves the draft uncommitted; a hostile answer line is a stop; a
 * `--golf-search` outside the contract's modes is a usage error.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formalizeCommand } from '../../src/cli/formalize.js';
import { withGitProject } from '../e2e/helpers.js';
import { captureIo, formalizeArgs } from '../helpers/formalize-cli.js';

/** Claim 2 of the example paper, the commit question asked (`--commit ask`), then `extra`. */
const args = (extra: string[]) => formalizeArgs('--claim-select', '2', '--commit', 'ask', ...extra);

const log = (dir: string) =>
  execFileSync('git', ['log', '--format=%s'], { cwd: dir, encoding: 'utf8' }).trim();

describe('handoff formalize --commit ask (CLI)', () => {
  it('approve then keep: the commit question names the draft: message; nothing is committed', async () => {
    await withGitProject({ 'Paper.lean': '-- the paper\n' }, async ({ dir }) => {
      await writeFile(join(dir, 'answers.txt'), 'approve\nkeep\n');
      const { o, io } = captureIo(dir);
      const code = await formalizeCommand('guided', args([]), io);
      expect(o.err).toContain('? approve the draft of claim');
      expect(o.err).toMatch(
        /\? commit the checked draft of claim \S+ as 'draft: [^']+' \(keep: leave it uncommitted/,
      );
      expect(o.err.indexOf('? approve')).toBeLessThan(o.err.indexOf('? commit'));
      expect(o.err).toContain('options: commit | keep | stop');
      expect(log(dir)).toBe('init');
      expect(await readFile(join(dir, 'Paper.lean'), 'utf8')).toContain('theorem two_eq');
      expect(code).toBe(0);
    });
  }, 120_000);

  it('a hostile answer line at the commit question is a stop (exit 1), never a commit', async () => {
    await withGitProject({ 'Paper.lean': '-- the paper\n' }, async ({ dir }) => {
      await writeFile(join(dir, 'answers.txt'), 'approve\n\u001b[2Jcommit\n');
      const { o, io } = captureIo(dir);
      const code = await formalizeCommand('guided', args([]), io);
      expect(code).toBe(1);
      expect(o.out).toMatch(/declined: the human stopped the session at the draft: commit question/);
      expect(log(dir)).toBe('init');
    });
  }, 120_000);

  it('--golf-search takes only off|quick|full (usage)', async () => {
    await withGitProject({ 'Paper.lean': '-- the paper\n' }, async ({ dir }) => {
      await writeFile(join(dir, 'answers.txt'), 'approve\n');
      const { io } = captureIo(dir);
      await expect(formalizeCommand('guided', args(['--golf-search', 'deep']), io)).rejects.toMatchObject({
        code: 'usage',
      });
    });
  });
});
