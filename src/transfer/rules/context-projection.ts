/**
 * Context projection (layer 1, pure): what of a request's context travels over a route — only the
 * route's `include` keys, minus its `redact` keys. A redacted key's value is never copied: the
 * result names the removed keys, never their values.
 */
import type { Route } from '../policy-schema.js';

/** The projected context and the names of the keys the route's `redact` list removed. */
export interface ProjectedContext {
  readonly context: Readonly<Record<string, unknown>>;
  readonly redacted: readonly string[];
}

/**
 * Projects `context` through the route's filter: included own keys are copied, redacted keys are
 * dropped (even when also included), everything else is not forwarded. `redacted` lists (sorted)
 * the redacted keys that were present in `context`.
 *
 * @example
 * ```ts
 * projectContext({ question: 'refund?', card_number: '4111…', notes: 'x' },
 *   { include: ['question', 'card_number'], redact: ['card_number'] });
 * // { context: { question: 'refund?' }, redacted: ['card_number'] }
 * ```
 */
export function projectContext(
  context: Readonly<Record<string, unknown>>,
  filter: Route['context'],
): ProjectedContext {
  const redact = new Set(filter.redact);
  const out: Record<string, unknown> = {};
  for (const key of filter.include) {
    if (redact.has(key) || !Object.hasOwn(context, key)) continue;
    // defineProperty: a key named __proto__ is copied as data, never as the object's prototype
    Object.defineProperty(out, key, {
      value: context[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  const redacted = filter.redact.filter((k) => Object.hasOwn(context, k));
  return { context: out, redacted: [...new Set(redacted)].sort() };
}
