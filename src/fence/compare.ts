/**
 * The statement-fence comparison (pure): headers before a worker ran against headers after.
 *
 * Named declarations are matched by name (the i-th occurrence of a name before with the i-th
 * after). A matched pair with a different kind is `changed` (with `kindAfter`); with a different
 * signature it is `added-hypothesis` when the only difference is binders inserted before the type
 * (see binders.ts), else `changed`. A name that is gone is `renamed` when a new name (absent
 * before) has the same kind and signature — each new name is used once, earliest first — else
 * `deleted`.
 *
 * Anonymous declarations (`instance@2`, `example@1`, `variable@1`: their names are only ordinals)
 * are matched by kind, namespace and signature first, so inserting one does not shift the others
 * into a false change; a left-over one is compared with the left-over one of the same name, or is
 * `deleted`.
 *
 * New declarations are allowed (helper lemmas, definitions, instances, `opaque` constants — an
 * `opaque` needs an inhabited type, so it cannot assume a proposition), except a new `axiom`
 * (`added-axiom`) and a new `variable`/`include`/`omit` command (`added-context`), which can add
 * hypotheses to existing statements without touching their text.
 *
 * Output order: by line (before header, else after header), then declaration, then change.
 */
import { addedBinders } from './binders.js';
import type { DeclarationHeader } from './header.js';
import type { FenceViolation } from './violation.js';

/**
 * Kinds whose new occurrences change existing statements (Lean's `variable`, `include`, `omit`).
 *
 * @example
 * ```ts
 * CONTEXT_KINDS.has('variable'); // true: a new one is `added-context`
 * ```
 */
export const CONTEXT_KINDS: ReadonlySet<string> = new Set(['variable', 'include', 'omit']);

/**
 * Whether a header carries a synthetic name (`<namespace.>kind@<ordinal>`).
 *
 * @example
 * ```ts
 * isAnonymousHeader({ name: 'Foo.instance@2', kind: 'instance', signature: ': Inhabited Nat', line: 4 }); // true
 * isAnonymousHeader({ name: 'Foo.t', kind: 'theorem', signature: ': True', line: 1 }); // false
 * ```
 */
export function isAnonymousHeader(h: DeclarationHeader): boolean {
  const last = h.name.slice(h.name.lastIndexOf('.') + 1);
  return last.startsWith(`${h.kind}@`) && /^\d+$/.test(last.slice(h.kind.length + 1));
}

/**
 * Compares the headers of one file before and after a worker ran; `[]` means the fence holds.
 *
 * @example
 * ```ts
 * const before = [{ name: 't', kind: 'theorem', signature: '(n : Nat) : n + 0 = n', line: 1 }];
 * compareHeaders(before, [{ ...before[0], signature: ': True' }]);
 * // [{ declaration: 't', kind: 'theorem', change: 'changed', before: '(n : Nat) : n + 0 = n', after: ': True', line: 1 }]
 * ```
 */
export function compareHeaders(
  before: readonly DeclarationHeader[],
  after: readonly DeclarationHeader[],
): FenceViolation[] {
  const out: FenceViolation[] = [];
  const push = (v: FenceViolation | null) => {
    if (v !== null) out.push(v);
  };
  const beforeNamed = before.filter((h) => !isAnonymousHeader(h));
  const afterNamed = after.filter((h) => !isAnonymousHeader(h));

  const beforeByName = groupByName(beforeNamed);
  const afterByName = groupByName(afterNamed);
  const gone: DeclarationHeader[] = [];
  const fresh: DeclarationHeader[] = [];
  for (const [name, bs] of beforeByName) {
    const as = afterByName.get(name) ?? [];
    bs.forEach((b, i) => {
      const a = as[i];
      if (a === undefined) gone.push(b);
      else push(compareOne(b, a));
    });
    for (const a of as.slice(bs.length)) fresh.push(a);
  }
  for (const [name, as] of afterByName) {
    if (!beforeByName.has(name)) for (const a of as) fresh.push(a);
  }
  gone.sort(byLineThenName);
  fresh.sort(byLineThenName);
  const renameTargets = queues(
    fresh.filter((a) => !beforeByName.has(a.name)),
    (a) => `${a.kind}\u0000${a.signature}`,
  );
  const used = new Set<DeclarationHeader>();
  for (const b of gone) {
    const target = renameTargets.get(`${b.kind}\u0000${b.signature}`)?.shift();
    if (target !== undefined) {
      used.add(target);
      out.push({ ...base(b, 'renamed'), after: target.signature, renamedTo: target.name });
    } else out.push({ ...base(b, 'deleted'), after: null });
  }
  for (const a of fresh) if (!used.has(a)) push(added(a));

  const afterAnon = after.filter(isAnonymousHeader);
  const bySignature = queues(afterAnon, anonKey);
  const taken = new Set<DeclarationHeader>();
  const leftover: DeclarationHeader[] = [];
  for (const b of before.filter(isAnonymousHeader)) {
    const same = bySignature.get(anonKey(b))?.shift();
    if (same !== undefined) taken.add(same);
    else leftover.push(b);
  }
  const byName = new Map<string, DeclarationHeader>();
  for (const a of afterAnon) if (!taken.has(a) && !byName.has(a.name)) byName.set(a.name, a);
  for (const b of leftover) {
    const a = byName.get(b.name);
    if (a !== undefined) {
      byName.delete(b.name);
      taken.add(a);
      push(compareOne(b, a));
    } else out.push({ ...base(b, 'deleted'), after: null });
  }
  for (const a of afterAnon) if (!taken.has(a)) push(added(a));

  return out.sort((x, y) => x.line - y.line || cmp(x.declaration, y.declaration) || cmp(x.change, y.change));
}

function compareOne(b: DeclarationHeader, a: DeclarationHeader): FenceViolation | null {
  if (b.kind !== a.kind) return { ...base(b, 'changed'), after: a.signature, kindAfter: a.kind };
  if (b.signature === a.signature) return null;
  const extra = addedBinders(b.signature, a.signature);
  if (extra !== null) return { ...base(b, 'added-hypothesis'), after: a.signature, added: extra };
  return { ...base(b, 'changed'), after: a.signature };
}

function added(a: DeclarationHeader): FenceViolation | null {
  const change = a.kind === 'axiom' ? 'added-axiom' : CONTEXT_KINDS.has(a.kind) ? 'added-context' : null;
  if (change === null) return null;
  return { declaration: a.name, kind: a.kind, change, before: null, after: a.signature, line: a.line };
}

function base(b: DeclarationHeader, change: FenceViolation['change']) {
  return { declaration: b.name, kind: b.kind, change, before: b.signature, line: b.line };
}

function groupByName(headers: readonly DeclarationHeader[]): Map<string, DeclarationHeader[]> {
  return queues(headers, (h) => h.name);
}

/** Groups headers (in their order) under a key; consumers `shift()` the earliest unused one. */
function queues(
  headers: readonly DeclarationHeader[],
  key: (h: DeclarationHeader) => string,
): Map<string, DeclarationHeader[]> {
  const m = new Map<string, DeclarationHeader[]>();
  for (const h of headers) {
    const k = key(h);
    const list = m.get(k);
    if (list === undefined) m.set(k, [h]);
    else list.push(h);
  }
  return m;
}

/** Kind, namespace and signature of an anonymous header (its ordinal left out). */
function anonKey(h: DeclarationHeader): string {
  return `${h.kind}\u0000${h.name.slice(0, h.name.lastIndexOf('.') + 1)}\u0000${h.signature}`;
}

function byLineThenName(x: DeclarationHeader, y: DeclarationHeader): number {
  return x.line - y.line || cmp(x.name, y.name);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
