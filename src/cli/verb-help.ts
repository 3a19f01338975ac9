/**
 * Per-verb help (pure): `handoff store append --help` prints the help of `append`, generated from
 * what the group already declares — its help text (the usage line and the lines that describe the
 * verb, its exit codes) and, where the group has one, the verb's option table — so no verb's help
 * can drift from its group's.
 */
import type { OptionSpec } from './args.js';

/** One verb's options: an option table, or option names looked up in the group's table. */
export type VerbOptions = OptionSpec | readonly string[];

/** What {@link verbHelpText} reads. */
export interface VerbHelpSource {
  /** The group's name (`store`). */
  readonly group: string;
  /** The verb (`append`). */
  readonly verb: string;
  /** The group's help text. */
  readonly groupHelp: string;
  /** The group's verbs (a single-verb group's description is the verb's). */
  readonly verbs: readonly string[];
  /** The verb's options, when the group declares them per verb. */
  readonly options?: OptionSpec;
}

const indentOf = (line: string): number => line.length - line.trimStart().length;

/** True when `line` (trimmed) starts with `verb` as a word, alone or in an `a|b|verb` list. */
function startsWithVerb(line: string, verb: string): boolean {
  const head = line.trimStart().split(/[\s:]/, 1)[0] ?? '';
  return head.split('|').includes(verb);
}

/** The group's usage lines (`usage: handoff g …` and its continuation `       handoff g …`). */
function usageLines(lines: readonly string[], group: string): string[] {
  return lines.filter((l) => new RegExp(`^(usage: +|\\s+)handoff ${group}\\b`).test(l));
}

/** The lines that describe `verb`: each line starting with it and the deeper-indented ones after. */
function describingLines(lines: readonly string[], verb: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (/^\s*(usage: +)?handoff /.test(line) || !startsWithVerb(line, verb)) continue;
    out.push(line);
    const base = indentOf(line);
    for (let j = i + 1; j < lines.length; j++) {
      const next = lines[j] as string;
      if (next.trim() === '' || indentOf(next) <= base) break;
      out.push(next);
      i = j;
    }
  }
  return out;
}

/** The group's option lines (`  --name …`) and their deeper-indented continuations. */
function optionBlock(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (!/^\s+--?[a-z]/.test(line)) continue;
    out.push(line);
    const base = indentOf(line);
    while (
      i + 1 < lines.length &&
      (lines[i + 1] as string).trim() !== '' &&
      indentOf(lines[i + 1] as string) > base
    ) {
      out.push(lines[i + 1] as string);
      i++;
    }
  }
  return out;
}

/** The group's exit-code block: from its first `exit…:` line to the next blank line. */
function exitLines(lines: readonly string[]): string[] {
  const start = lines.findIndex((l) => /^\s*exit( codes)?\s*:/i.test(l));
  if (start === -1) return [];
  const end = lines.findIndex((l, i) => i > start && l.trim() === '');
  return lines.slice(start, end === -1 ? lines.length : end);
}

/** The option table as help lines: `--name VALUE`, repeatable ones marked, short forms shown. */
function optionLines(options: OptionSpec): string[] {
  const rows = Object.entries(options)
    .filter(([name]) => name !== 'help')
    .map(([name, o]) => {
      const flag = `${o.short === undefined ? '    ' : `-${o.short}, `}--${name}${o.type === 'string' ? ' VALUE' : ''}`;
      return `  ${flag}${o.multiple === true ? '  (repeatable)' : ''}`;
    });
  return [...rows, '  -h, --help    this help'];
}

/**
 * The help of one verb of a group: its usage line (the group's own usage line naming the verb,
 * else the group's with `<verb>` filled in, else `handoff GROUP VERB [options]`), the lines of the
 * group's help that describe it (a single-verb group's whole description), its options (from the
 * verb's option table when the group has one) and the group's exit codes.
 *
 * @example
 * ```ts
 * verbHelpText({ group: 'store', verb: 'list', verbs: ['load', 'list'],
 *   groupHelp: 'usage: handoff store <verb>\n\nverbs:\n  load --run-id ID   print a run\n  list   print the run ids\n\nExit: 0 ok, 2 usage.' });
 * // 'usage: handoff store list [options]\n\n  list   print the run ids\n\nExit: 0 ok, 2 usage.\n\n…'
 * ```
 */
export function verbHelpText(s: VerbHelpSource): string {
  const lines = s.groupHelp.split('\n');
  const usages = usageLines(lines, s.group);
  const own = usages.filter((l) =>
    new RegExp(`handoff ${s.group} (\\S*\\|)?${escapeRegex(s.verb)}(\\||\\s|$)`).test(l),
  );
  const placeholder = usages
    .map((l) => l.trim().replace(/^usage: +/, ''))
    .find((l) => new RegExp(`^handoff ${s.group} <[^>]+>`).test(l));
  const usage =
    own.length > 0
      ? own.map(
          (l, i) =>
            `${i === 0 ? 'usage: ' : '       '}${l
              .trim()
              .replace(/^usage: +/, '')
              .replace(new RegExp(`^(handoff ${s.group} )\\S*\\|\\S*`), `$1${s.verb}`)}`,
        )
      : placeholder !== undefined
        ? [`usage: ${placeholder.replace(/^(handoff \S+) <[^>]+>/, `$1 ${s.verb}`)}`]
        : [`usage: handoff ${s.group} ${s.verb} [options]`];
  const described = describingLines(lines, s.verb);
  // a single-verb group's description is the verb's; a verb the text never names alone (viz's
  // machines) gets the group's option lines
  const body =
    s.verbs.length === 1
      ? lines.filter((l) => !usages.includes(l) && !exitLines(lines).includes(l))
      : described.length > 0
        ? described
        : optionBlock(lines);
  const trimmed = trimBlank(body);
  const exits = exitLines(lines);
  const others = s.verbs.filter((v) => v !== s.verb);
  return [
    ...usage,
    ...(trimmed.length > 0 ? ['', ...trimmed] : []),
    ...(s.options === undefined ? [] : ['', 'options:', ...optionLines(s.options)]),
    ...(exits.length > 0 ? ['', ...exits] : []),
    '',
    others.length === 0
      ? `\`handoff ${s.group} --help\` describes ${s.group}.`
      : `\`handoff ${s.group} --help\` describes ${s.group} and its other verbs (${others.join(', ')}).`,
    '',
  ].join('\n');
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function trimBlank(lines: readonly string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && (lines[a] as string).trim() === '') a++;
  while (b > a && (lines[b - 1] as string).trim() === '') b--;
  return lines.slice(a, b);
}

/**
 * The option table of a verb: a table as is, names picked from the group's table.
 *
 * @example
 * ```ts
 * verbOptionTable(['root', 'run-id'], { root: { type: 'string' }, 'run-id': { type: 'string' }, kind: { type: 'string' } });
 * // { root: { type: 'string' }, 'run-id': { type: 'string' } }
 * ```
 */
export function verbOptionTable(options: VerbOptions, groupTable: OptionSpec = {}): OptionSpec {
  if (!Array.isArray(options)) return options as OptionSpec;
  const out: OptionSpec = {};
  for (const name of options as readonly string[]) {
    const o = groupTable[name];
    if (o !== undefined) out[name] = o;
  }
  return out;
}
