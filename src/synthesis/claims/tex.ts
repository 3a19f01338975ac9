/**
 * Claims of a LaTeX source (layer 1, pure; docs/synthesis-claims.md § LaTeX): one claim per
 * theorem-like environment (`theorem`, `lemma`, `proposition`, `corollary`, `claim`, `definition`,
 * their common short names `thm`, `lem`, `prop`, `cor`, `defn`, `dfn`, `clm`, starred forms, and any
 * environment a `\newtheorem` declares with one of those words as its printed name), with the optional
 * `[title]` and a `\label{…}` as the suggested name. Comments (`%`) are stripped first; proofs,
 * verbatim-like environments and `comment` environments are skipped whole; an environment that is
 * never closed is a structured error.
 */
import { blockText, splitLines, stripControls, textProblem } from './clean-text.js';
import { nameFromLabel, nameFromTitle } from './names.js';
import type { ClaimKind, FoundClaim, FoundClaimsResult } from './types.js';

const DEFAULT_ENVS: Readonly<Record<string, ClaimKind>> = {
  theorem: 'theorem',
  thm: 'theorem',
  lemma: 'lemma',
  lem: 'lemma',
  proposition: 'proposition',
  prop: 'proposition',
  corollary: 'corollary',
  cor: 'corollary',
  claim: 'claim',
  clm: 'claim',
  definition: 'definition',
  defn: 'definition',
  dfn: 'definition',
};

const WORDS: Readonly<Record<string, ClaimKind>> = {
  theorem: 'theorem',
  lemma: 'lemma',
  proposition: 'proposition',
  corollary: 'corollary',
  claim: 'claim',
  definition: 'definition',
};

const SKIPPED = new Set(['verbatim', 'Verbatim', 'lstlisting', 'minted', 'comment', 'filecontents']);
const TOKEN = /\\(begin|end)[ \t]*\{([^{}\n]{1,80})\}/g;
const NEWTHEOREM =
  /\\newtheorem\*?[ \t]*\{([^{}\n]{1,80})\}[ \t]*(?:\[[^\]\n]{0,80}\][ \t]*)?\{([^{}\n]{1,80})\}/g;
const LABEL = /\\label[ \t]*\{([^{}\n]{0,200})\}/g;

/**
 * `line` without its comment: from the first `%` that is not escaped by an odd run of backslashes.
 *
 * @example
 * ```ts
 * stripTexComment('a \\% b % c'); // 'a \\% b '
 * ```
 */
export function stripTexComment(line: string): string {
  for (let i = line.indexOf('%'); i >= 0; i = line.indexOf('%', i + 1)) {
    let slashes = 0;
    for (let j = i - 1; j >= 0 && line[j] === '\\'; j -= 1) slashes += 1;
    if (slashes % 2 === 0) return line.slice(0, i);
  }
  return line;
}

function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function envKinds(src: string): Map<string, ClaimKind> {
  const kinds = new Map<string, ClaimKind>(Object.entries(DEFAULT_ENVS));
  for (const m of src.matchAll(NEWTHEOREM)) {
    const env = (m[1] ?? '').trim();
    const word = (m[2] ?? '').trim().toLowerCase();
    const kind = WORDS[word];
    if (kind !== undefined && env !== '') kinds.set(env, kind);
  }
  return kinds;
}

/** The end of an optional `[title]` at `from` (blanks skipped), honouring braces; null when none. */
function titleAt(src: string, from: number): { title: string; end: number } | null {
  let i = from;
  while (i < src.length && /\s/.test(src[i] ?? '')) i += 1;
  if (src[i] !== '[') return null;
  let braces = 0;
  const limit = Math.min(src.length, i + 1000);
  for (let j = i + 1; j < limit; j += 1) {
    const ch = src[j];
    if (ch === '\\') j += 1;
    else if (ch === '{') braces += 1;
    else if (ch === '}') braces = Math.max(0, braces - 1);
    else if (ch === ']' && braces === 0) return { title: src.slice(i + 1, j), end: j + 1 };
  }
  return null;
}

interface Scan {
  readonly src: string;
  readonly starts: readonly number[];
}

/** Index just past the `\end{name}` matching a `\begin{name}` whose token ends at `from`, or an error. */
function closeOf(scan: Scan, name: string, from: number): { bodyEnd: number; after: number } | null {
  if (SKIPPED.has(name.replace(/\*$/, ''))) {
    const end = `\\end{${name}}`;
    const at = scan.src.indexOf(end, from);
    return at < 0 ? null : { bodyEnd: at, after: at + end.length };
  }
  const token = new RegExp(TOKEN.source, 'g');
  token.lastIndex = from;
  let depth = 1;
  for (let m = token.exec(scan.src); m !== null; m = token.exec(scan.src)) {
    const [whole, verb, env = ''] = m;
    const inner = env.trim();
    if (verb === 'begin' && SKIPPED.has(inner.replace(/\*$/, ''))) {
      const skipped = closeOf(scan, inner, m.index + whole.length);
      if (skipped === null) return null;
      token.lastIndex = skipped.after;
      continue;
    }
    if (inner !== name) continue;
    depth += verb === 'begin' ? 1 : -1;
    if (depth === 0) return { bodyEnd: m.index, after: m.index + whole.length };
  }
  return null;
}

function claimOf(
  scan: Scan,
  kind: ClaimKind,
  begin: number,
  bodyStart: number,
  bodyEnd: number,
): FoundClaim | null {
  const title = titleAt(scan.src, bodyStart);
  const raw = scan.src.slice(title?.end ?? bodyStart, bodyEnd);
  let label: string | null = null;
  const body = raw.replace(LABEL, (_all, l: string) => {
    label ??= l.trim();
    return '';
  });
  const text = blockText(body.split('\n').map((l) => l.trim()));
  if (text === '') return null;
  const cleanTitle = title === null ? '' : stripControls(title.title).replace(/\s+/g, ' ').trim();
  const name =
    (label === null ? null : nameFromLabel(label)) ?? (cleanTitle === '' ? null : nameFromTitle(cleanTitle));
  return {
    text,
    title: cleanTitle === '' ? null : cleanTitle,
    kind,
    line: lineAt(scan.starts, begin),
    page: null,
    name,
  };
}

/**
 * The claims of a LaTeX document, in document order (see the module summary for the rule). Never
 * throws; an unclosed claim, proof or verbatim environment is `{ ok: false }` naming its line.
 *
 * @example
 * ```ts
 * findTexClaims('\\begin{lemma}[Zero]\\label{lem:zero}\n$0 \\le n$ % trivial\n\\end{lemma}\n');
 * // { ok: true, found: [{ text: '$0 \\le n$', title: 'Zero', kind: 'lemma', name: 'zero', line: 1, page: null }] }
 * ```
 */
export function findTexClaims(text: string): FoundClaimsResult {
  const problem = textProblem(text);
  if (problem !== null) return { ok: false, error: problem };
  const lines = splitLines(text).map(stripTexComment);
  const src = lines.join('\n');
  const starts: number[] = [];
  let offset = 0;
  for (const l of lines) {
    starts.push(offset);
    offset += l.length + 1;
  }
  const scan: Scan = { src, starts };
  const kinds = envKinds(src);
  const found: FoundClaim[] = [];
  const token = new RegExp(TOKEN.source, 'g');
  for (let m = token.exec(src); m !== null; m = token.exec(src)) {
    const [whole, verb, env = ''] = m;
    if (verb !== 'begin') continue;
    const name = env.trim();
    const base = name.replace(/\*$/, '');
    const kind = kinds.get(base);
    const skipped = SKIPPED.has(base) || base === 'proof';
    if (kind === undefined && !skipped) continue;
    const bodyStart = m.index + whole.length;
    const close = closeOf(scan, name, bodyStart);
    if (close === null) {
      return {
        ok: false,
        error: `line ${lineAt(starts, m.index)}: \\begin{${name}} is never closed by \\end{${name}}`,
      };
    }
    token.lastIndex = close.after;
    if (kind === undefined) continue;
    const claim = claimOf(scan, kind, m.index, bodyStart, close.bodyEnd);
    if (claim !== null) found.push(claim);
  }
  return { ok: true, found };
}
