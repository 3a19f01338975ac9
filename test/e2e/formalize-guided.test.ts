/**
 * `handoff formalize` (guided): every draft is put to the human before it touches the target —
 * `skip` declines that claim with nothing written, `stop` ends the session (later claims are
 * not-attempted, exit 1). Real git, the example drafter and worker as child processes, answers
 * from `--answers FILE`.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formalizeCommand } from '../../src/cli/formalize.js';
import { captureIo, formalizeExample as EX, formalizeArgs } from '../helpers/formalize-cli.js';
import { withGitProject } from './helpers.js';

describe('handoff formalize (guided)', () => {
  it('asks before each draft: skip writes nothing for that claim, stop ends the session', async () => {
    const lean = await readFile(EX('project/Paper.lean'), 'utf8');
    await withGitProject({ 'Paper.lean': lean }, async ({ dir }) => {
      await writeFile(join(dir, 'answers.txt'), 'skip\nstop\n');
      const { o, io } = captureIo(dir);
      const code = await formalizeCommand(
        'guided',
        formalizeArgs('--statement-policy', 'rewrite-generated-only'),
        io,
      );
      const { out, err } = o;
      expect(code).toBe(1);
      expect(out).toMatch(/#1 \S+ skipped: already present/);
      expect(out).toMatch(/#2 \S+ declined: the human skipped the draft/);
      expect(out).toMatch(/#3 \S+ declined: the human stopped the session/);
      expect(out).toMatch(/#4 \S+ not-attempted/);
      // the question showed the draft (escaped), and nothing of it reached the target
      expect(err).toContain('? approve the draft of claim');
      expect(err).toContain('theorem two_eq : 1 + 1 = 2');
      expect(await readFile(join(dir, 'Paper.lean'), 'utf8')).toBe(lean);
      expect(execFileSync('git', ['log', '--format=%s'], { cwd: dir, encoding: 'utf8' }).trim()).toBe('init');
    });
  }, 120_000);

  it('autoformalize refuses --answers, and --run-store without --persist (usage)', async () => {
    const { io } = captureIo('/');
    await expect(formalizeCommand('auto', ['--answers', 'a.txt'], io)).rejects.toMatchObject({
      code: 'usage',
    });
    await expect(
      formalizeCommand('auto', ['--run-store', 'x', '--target', 'P.lean'], io),
    ).rejects.toMatchObject({
      code: 'usage',
    });
  });
});
