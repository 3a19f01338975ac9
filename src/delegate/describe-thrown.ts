/**
 * What a worker threw, as one line of text (layer 1, pure): a worker may throw anything — an
 * `Error`, a string, `undefined`, a symbol, an object whose `message` getter throws, a Proxy whose
 * every trap throws. Describing it must never throw in turn, and a worker's text is bounded before
 * it reaches a record.
 */

/**
 * The longest description kept (characters); longer text is cut and marked with `…`.
 *
 * @example
 * ```ts
 * describeThrown('x'.repeat(MAX_THROWN_DETAIL + 9)).length; // MAX_THROWN_DETAIL + 1
 * ```
 */
export const MAX_THROWN_DETAIL = 500;

function clip(text: string, max: number): string {
  const flat = text.trim();
  if (flat === '') return 'an empty value';
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function messageOf(e: object): string | null {
  const m = (e as { message?: unknown }).message;
  return typeof m === 'string' ? m : null;
}

/**
 * One line describing a thrown value: an error's message (with its name when that is not plain
 * `Error`), a string as it is, anything else through `String()`. Never throws: a value that
 * resists every reading is "a value that could not be described". At most
 * {@link MAX_THROWN_DETAIL} characters.
 *
 * @example
 * ```ts
 * describeThrown(new TypeError('x is not a function')); // 'TypeError: x is not a function'
 * describeThrown(42); // '42'
 * describeThrown(new Proxy({}, { get() { throw new Error('no'); } })); // 'a value that could not be described'
 * ```
 */
export function describeThrown(e: unknown, max: number = MAX_THROWN_DETAIL): string {
  try {
    if (typeof e === 'string') return clip(e, max);
    if (typeof e === 'object' && e !== null) {
      const message = messageOf(e);
      if (message !== null) {
        const name = (e as { name?: unknown }).name;
        const prefix = typeof name === 'string' && name !== '' && name !== 'Error' ? `${name}: ` : '';
        return clip(`${prefix}${message}`, max);
      }
    }
    const text: unknown = String(e);
    return typeof text === 'string' ? clip(text, max) : 'a value that could not be described';
  } catch {
    return 'a value that could not be described';
  }
}
