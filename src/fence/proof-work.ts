/**
 * The proof-work rule over one file (pure): what a worker added besides proofs and helper lemmas.
 * The rules themselves (which keywords, which grants) are in proof-work-rules.ts.
 *
 * - A new declaration (one more of its kind and name than before; anonymous ones counted by kind,
 *   namespace and signature) that is not a `theorem`, `lemma` or `example` is `added-declaration`
 *   unless the dispatch grants its class. New axioms and context commands are reported by
 *   compareHeaders (`added-axiom`, `added-context`) and never granted.
 * - Commands (see {@link LeanCommand}) are compared as a multiset keyed by keyword, canonical text
 *   and anchor — the first declaration after the command that exists both before and after, so a
 *   command moved across a fenced declaration counts as removed there and added elsewhere, while
 *   a helper lemma inserted after it moves nothing. One more than before is `added-command`, one
 *   fewer is `removed-command`, unless the dispatch grants the keyword's class.
 */
import { isAnonymousHeader } from './compare.js';
import type { DeclarationHeader, LeanCommand } from './header.js';
import {
  COMMAND_CLASS_GRANTS,
  commandClass,
  isResourceOption,
  PROOF_WORK_DECLARATIONS,
  proofWorkAllows,
} from './proof-work-rules.js';
import type { FenceViolation } from './violation.js';

/**
 * One side of the comparison: a file's headers and commands.
 *
 * @example
 * ```ts
 * const side: ProofWorkSide = { headers: [], commands: [{ keyword: '#exit', text: '#exit', line: 1 }] };
 * ```
 */
export interface ProofWorkSide {
  readonly headers: readonly DeclarationHeader[];
  readonly commands: readonly LeanCommand[];
}

/**
 * The violations of the proof-work rule in one file; `[]` when the worker added only proofs and
 * helper lemmas (or what `grants`, the dispatch's capabilities, allow).
 *
 * @example
 * ```ts
 * compareProofWork({ headers: [], commands: [] }, { headers: [], commands: [{ keyword: '#exit', text: '#exit', line: 1 }] }, []);
 * // [{ declaration: '', kind: '#exit', change: 'added-command', before: null, after: '#exit', line: 1 }]
 * ```
 */
export function compareProofWork(
  before: ProofWorkSide,
  after: ProofWorkSide,
  grants: readonly string[],
): FenceViolation[] {
  const out: FenceViolation[] = [];
  const seen = counts(before.headers.map(declarationKey));
  const named = new Set(before.headers.filter((h) => !isAnonymousHeader(h)).map((h) => h.name));
  for (const h of after.headers) {
    // a name that existed before is compareHeaders' matter (a kind change is `changed`)
    if (!isAnonymousHeader(h) && named.has(h.name)) continue;
    const key = declarationKey(h);
    const n = seen.get(key) ?? 0;
    if (n > 0) {
      seen.set(key, n - 1);
      continue;
    }
    if (PROOF_WORK_DECLARATIONS.has(h.kind)) continue;
    const cls = commandClass(h.kind);
    if (cls === null || cls === 'axiom' || cls === 'context' || proofWorkAllows(h.kind, grants, h.name))
      continue;
    out.push({
      declaration: h.name,
      kind: h.kind,
      change: 'added-declaration',
      before: null,
      after: h.signature,
      line: h.line,
    });
  }

  const fenced = (h: DeclarationHeader) => !isAnonymousHeader(h) && named.has(h.name);
  const stable = new Set(after.headers.filter(fenced).map((h) => h.name));
  const anchored = (side: ProofWorkSide) => {
    const anchors = side.headers.filter((h) => stable.has(h.name)).sort((x, y) => x.line - y.line);
    return side.commands
      .filter((c) => !isResourceOption(c.text))
      .map((c) => {
        const next = anchors.find((h) => h.line >= c.line);
        return { c, anchor: next === undefined ? '' : `${next.kind} ${next.name}`, name: next?.name ?? '' };
      });
  };
  const key = (x: { c: LeanCommand; anchor: string; name: string }) =>
    `${x.c.keyword}\u0000${x.c.text}\u0000${x.anchor}`;
  const was = anchored(before);
  const now = anchored(after);
  const left = counts(was.map(key));
  for (const x of now) {
    const k = key(x);
    const n = left.get(k) ?? 0;
    if (n > 0) {
      left.set(k, n - 1);
      continue;
    }
    if (!proofWorkAllows(x.c.keyword, grants, x.name))
      out.push({
        declaration: x.anchor,
        kind: x.c.keyword,
        change: 'added-command',
        before: null,
        after: x.c.text,
        line: x.c.line,
      });
  }
  const right = counts(now.map(key));
  for (const x of was) {
    const k = key(x);
    const n = right.get(k) ?? 0;
    if (n > 0) {
      right.set(k, n - 1);
      continue;
    }
    if (!proofWorkAllows(x.c.keyword, grants, x.name))
      out.push({
        declaration: x.anchor,
        kind: x.c.keyword,
        change: 'removed-command',
        before: x.c.text,
        after: null,
        line: x.c.line,
      });
  }
  return out.sort((x, y) => x.line - y.line || cmp(x.change, y.change) || cmp(x.after ?? '', y.after ?? ''));
}

/**
 * The grant that would allow a keyword during proof work, or null when none exists.
 *
 * @example
 * ```ts
 * grantFor('macro'); // 'fence:new-syntax'
 * grantFor('#exit'); // null
 * ```
 */
export function grantFor(keyword: string): string | null {
  const c = commandClass(keyword);
  return c === null ? null : COMMAND_CLASS_GRANTS[c];
}

function declarationKey(h: DeclarationHeader): string {
  return isAnonymousHeader(h)
    ? `${h.kind}\u0000${h.name.slice(0, h.name.lastIndexOf('.') + 1)}\u0000${h.signature}`
    : `${h.kind}\u0000${h.name}`;
}

function counts(keys: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
  return m;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
