/**
 * Per-verb help (issue 28, item 4): every verb of every group answers `--help` with its own
 * usage, the lines of its group's help that describe it, its options (where the group declares
 * them per verb) and the exit codes — never its group's text. In-process through `main`, walking
 * the groups' own verb tables (a new verb is covered without touching this test).
 */
import { describe, expect, it } from 'vitest';
import type { CliCommand } from '../../src/cli/command.js';
import { GROUPS, loadGroup } from '../../src/cli/main.js';
import { verbHelpText, verbOptionTable } from '../../src/cli/verb-help.js';
import { cliMain } from '../helpers/cli-main.js';

describe('every verb has its own help', () => {
  it('walks every verb of every group: exit 0, names the verb, differs from the group help', async () => {
    const seen: string[] = [];
    const bad: string[] = [];
    for (const group of Object.keys(GROUPS)) {
      const command = (await loadGroup(group)) as CliCommand;
      const groupHelp = await cliMain([group, '--help'], process.cwd());
      for (const verb of command.verbs) {
        const r = await cliMain([group, verb, '--help'], process.cwd());
        const where = `handoff ${group} ${verb} --help`;
        const ok =
          r.code === 0 &&
          r.err === '' &&
          new RegExp(`^usage: .*handoff ${group} ${verb}\\b`).test(r.out.split('\n')[0] ?? '') &&
          r.out !== groupHelp.out &&
          /exit|Exit/.test(r.out);
        if (!ok) bad.push(`${where}: exit ${r.code}\n${r.err}${r.out}`);
        seen.push(`${group} ${verb}`);
      }
    }
    expect(bad).toEqual([]);
    expect(seen).toContain('store append');
    expect(seen.length).toBeGreaterThan(50);
  }, 60_000);

  it('handoff store append --help: its usage line, its options, not the other verbs', async () => {
    const r = await cliMain(['store', 'append', '--help'], process.cwd());
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^usage: handoff store append \[--root DIR \| --project-root DIR\] \[options\]\n/);
    expect(r.out).toContain('  append --run-id ID --kind');
    expect(r.out).toContain('--payload VALUE');
    expect(r.out).not.toContain('--dispatch VALUE');
    expect(r.out).not.toContain('  create --dispatch');
    expect(r.out).toContain('Exit: 0 committed');
  });

  it('a verb whose module parses its own --help (baseline check -h) gets the verb help too', async () => {
    const r = await cliMain(['baseline', 'check', '--only', 'x', '-h'], process.cwd());
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^usage: handoff baseline check --baseline/);
    expect(r.out).toContain('--only VALUE  (repeatable)');
    expect(r.out).not.toMatch(/^usage: handoff baseline record/m);
  });
});

describe('verbHelpText (pure)', () => {
  const groupHelp = [
    'usage: handoff g <verb> [options]',
    '',
    'verbs:',
    '  one --a X        first verb',
    '                   more about one',
    '  two|three        the other two',
    '',
    'Exit: 0 ok, 2 usage.',
  ].join('\n');
  it('fills the usage placeholder, keeps the verb lines and their continuations, adds exits and options', () => {
    const text = verbHelpText({
      group: 'g',
      verb: 'one',
      verbs: ['one', 'two', 'three'],
      groupHelp,
      options: { a: { type: 'string' } },
    });
    expect(text).toBe(
      [
        'usage: handoff g one [options]',
        '',
        '  one --a X        first verb',
        '                   more about one',
        '',
        'options:',
        '      --a VALUE',
        '  -h, --help    this help',
        '',
        'Exit: 0 ok, 2 usage.',
        '',
        '`handoff g --help` describes g and its other verbs (two, three).',
        '',
      ].join('\n'),
    );
    expect(verbHelpText({ group: 'g', verb: 'three', verbs: ['one', 'two', 'three'], groupHelp })).toContain(
      '  two|three        the other two',
    );
    expect(verbOptionTable(['a'], { a: { type: 'string' }, b: { type: 'boolean' } })).toEqual({
      a: { type: 'string' },
    });
  });
});
