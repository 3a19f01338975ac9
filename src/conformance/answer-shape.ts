/**
 * What an in-process worker's answer is made of (layer 3: `node:util`'s Proxy test). A command's
 * answer is JSON text, plain data by construction; an in-process worker returns a live object,
 * which may be a Proxy, carry getters that answer differently on each read, or be changed after
 * it was returned. The harness reads the answer once on arrival (src/delegate `detachAnswer`, as
 * `delegate` does) and rates these shapes as `plain-answer` and `answer-stable`.
 */
import { types } from 'node:util';
import { canonicalJson } from '../canonical/index.js';
import type { Detached } from '../delegate/detach.js';

const MAX_NODES = 200_000;

const child = (path: string, key: string | symbol): string =>
  `${path === '' ? '' : `${path}.`}${typeof key === 'symbol' ? `[${String(key.description ?? 'symbol')}]` : key}`;

/**
 * Why `answer` is not plain data, or null when it is: a Proxy (anywhere in it) or an accessor
 * property (a getter or setter: its value can differ from one read to the next). Never calls a
 * getter or a Proxy trap. Other non-JSON values (functions, class instances, cycles) are left to
 * the JSON read, which refuses them.
 *
 * @example
 * ```ts
 * notPlainData({ a: [1, { b: 2 }] }); // null
 * notPlainData(new Proxy({}, {})); // 'the answer is a Proxy'
 * notPlainData(Object.defineProperty({}, 'status', { get: () => 'solved', enumerable: true })); // 'status is a getter …'
 * ```
 */
export function notPlainData(answer: unknown): string | null {
  const where = (path: string) => (path === '' ? 'the answer' : path);
  const seen = new Set<object>();
  const stack: [unknown, string][] = [[answer, '']];
  while (stack.length > 0 && seen.size < MAX_NODES) {
    const [v, path] = stack.pop() as [unknown, string];
    if ((typeof v !== 'object' && typeof v !== 'function') || v === null) continue;
    if (types.isProxy(v)) return `${where(path)} is a Proxy (its traps can answer each read differently)`;
    if (seen.has(v)) continue;
    seen.add(v);
    let descriptors: PropertyDescriptorMap;
    try {
      descriptors = Object.getOwnPropertyDescriptors(v);
    } catch {
      return `${where(path)} could not be inspected`;
    }
    for (const key of Reflect.ownKeys(descriptors)) {
      const d = descriptors[key as string] as PropertyDescriptor;
      const at = child(path, key);
      if (d.get !== undefined || d.set !== undefined)
        return `${at} is a ${d.get !== undefined ? 'getter' : 'setter'} (its value can change from one read to the next)`;
      stack.push([d.value, at]);
    }
  }
  return null;
}

/**
 * How an answer read again later differs from the copy read on arrival (both read with
 * `detachAnswer`): the top-level members whose value changed, or null when none did.
 *
 * @example
 * ```ts
 * answerChange({ ok: true, value: { status: 'stuck' } }, { ok: true, value: { status: 'solved' } }); // 'status changed'
 * ```
 */
export function answerChange(arrival: Detached, later: Detached): string | null {
  if (!arrival.ok) return null;
  if (!later.ok) return `it can no longer be read: ${later.detail}`;
  const a = arrival.value;
  const b = later.value;
  const isRecord = (x: unknown): x is Record<string, unknown> =>
    typeof x === 'object' && x !== null && !Array.isArray(x);
  if (!isRecord(a) || !isRecord(b)) return canonicalJson(a) === canonicalJson(b) ? null : 'its value changed';
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  const changed = keys.filter((k) => !(k in a) || !(k in b) || canonicalJson(a[k]) !== canonicalJson(b[k]));
  if (changed.length === 0) return null;
  const shown =
    changed.length <= 4
      ? changed.join(', ')
      : `${changed.slice(0, 4).join(', ')} and ${changed.length - 4} more`;
  return `${shown} changed`;
}
