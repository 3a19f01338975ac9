/**
 * Errors a person can act on (issue 28, item 3): by default one human line on stderr — what
 * failed and the fix — with the documented exit code; `--json` keeps the machine line; the seeds'
 * helper groups keep their documented JSON refusals. A mistyped option or command names the
 * closest known one (a pure edit-distance suggestion). In-process through the CLI's `main`.
 */
import { describe, expect, it } from 'vitest';
import { usageMessage } from '../../src/cli/args.js';
import { didYouMean, editDistance, suggestName } from '../../src/cli/did-you-mean.js';
import { humanErrorLine, JSON_ERROR_GROUPS, wantsJsonError } from '../../src/cli/error-line.js';
import { cliMain } from '../helpers/cli-main.js';

describe('did you mean (pure)', () => {
  it('edit distance counts insertions, deletions, substitutions and neighbour swaps as one', () => {
    expect(editDistance('targt', 'target')).toBe(1);
    expect(editDistance('taregt', 'target')).toBe(1);
    expect(editDistance('tarxet', 'target')).toBe(1);
    expect(editDistance('target', 'target')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('suggests the closest name within two edits, none for a far or a tiny name', () => {
    expect(suggestName('targt', ['scope', 'target', 'mode'])).toBe('target');
    expect(suggestName('TARGET', ['target'])).toBe('target');
    expect(suggestName('max-cycle', ['max-cycles', 'max-stuck'])).toBe('max-cycles');
    expect(suggestName('verbose', ['target', 'scope'])).toBeNull();
    expect(suggestName('x', ['json', 'y'])).toBeNull();
    expect(didYouMean('apend', ['create', 'append'])).toBe(' (did you mean append?)');
    expect(didYouMean('zzz', ['create', 'append'])).toBe(' (known: create, append)');
  });

  it('parseArgs refusals become lines a person can act on', () => {
    const err = (code: string, message: string) => Object.assign(new Error(message), { code });
    const options = { target: { type: 'string' as const } };
    expect(usageMessage(err('ERR_PARSE_ARGS_UNKNOWN_OPTION', "Unknown option '--targt'"), options)).toBe(
      'unknown option --targt (did you mean --target?)',
    );
    expect(usageMessage(err('ERR_PARSE_ARGS_UNKNOWN_OPTION', "Unknown option '--zzzzzz'"), options)).toBe(
      'unknown option --zzzzzz (--help lists the options)',
    );
    expect(
      usageMessage(
        err('ERR_PARSE_ARGS_INVALID_OPTION_VALUE', "Option '--target <value>' argument missing"),
        options,
      ),
    ).toBe('option --target needs a value (--target <value>)');
  });
});

describe('the error line', () => {
  it('is human unless --json (before --) or a group whose docs pin JSON refusals', () => {
    expect(wantsJsonError('run', ['--json'])).toBe(true);
    expect(wantsJsonError('run', ['--', '--json'])).toBe(false);
    expect(wantsJsonError('inspect', [])).toBe(false);
    for (const g of ['baseline', 'store', 'persist', 'envelope', 'chain', 'gate']) {
      expect(JSON_ERROR_GROUPS.has(g)).toBe(true);
    }
    expect(humanErrorLine('viz', { code: 'usage', message: 'expected one machine\n\nusage: …' })).toBe(
      'handoff viz: expected one machine (handoff viz --help shows the usage)',
    );
    expect(humanErrorLine('inspect', { code: 'no_such_run', message: 'no run X' })).toMatch(
      /^handoff inspect: no run X \[no_such_run\] — `handoff store list`/,
    );
  });

  it('handoff run --targt: one line with the suggestion, exit 2; --json keeps the machine line', async () => {
    const r = await cliMain(['run', '--targt', '.'], process.cwd());
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toBe('handoff run: unknown option --targt (did you mean --target?)\n');
    const j = await cliMain(['run', '--targt', '.', '--json'], process.cwd());
    expect(j.code).toBe(2);
    expect(JSON.parse(j.err)).toEqual({
      error: 'usage',
      message: 'unknown option --targt (did you mean --target?)',
      details: {},
    });
  });

  it('an unknown command names the closest one on one line', async () => {
    const r = await cliMain(['inpsect'], process.cwd());
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      "handoff: unknown command 'inpsect' (did you mean inspect? handoff --help lists the commands)\n",
    );
  });

  it('a seeds helper keeps its JSON refusal, with the suggestion in its message', async () => {
    const r = await cliMain(['store', 'apend'], process.cwd());
    expect(r.code).toBe(2);
    expect(JSON.parse(r.err)).toMatchObject({
      error: 'usage',
      message: "unknown store verb 'apend' (did you mean append?)",
    });
    const missing = await cliMain(['store'], process.cwd());
    expect(missing.code).toBe(2);
    expect(missing.err.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(missing.err).message).not.toContain('usage:');
  });
});
