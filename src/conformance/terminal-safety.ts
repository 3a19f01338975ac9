/**
 * Terminal safety of a worker's records (layer 1, pure): which strings of a handoff or progress
 * line carry a code point a terminal would obey instead of show — a C0 control other than `\n`
 * and `\t` (ESC starts CSI and OSC sequences, CR and BS overwrite a line), DEL, or a C1 control
 * (U+009B is a one-byte CSI, U+009D a one-byte OSC). The CLI escapes worker strings before it
 * prints them (src/cli/terminal-text.ts), but other tools show the same records raw; a conforming
 * worker does not put such characters in them.
 */

/** The code points rated unsafe (see the module doc). */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const UNSAFE_ALL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** One string holding an unsafe code point. */
export interface UnsafeString {
  /** Where it is: `handoff.stop_detail`, `progress[0].attempted_tools[1]`; a key as `… (key)`. */
  readonly path: string;
  /** The first unsafe code point, as `U+001B`. */
  readonly codePoint: string;
}

const hex = (c: string): string =>
  `U+${(c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;

/** A member name fit for a path: itself when it is an identifier, else a JSON string with the controls escaped. */
function member(key: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return `.${key}`;
  const quoted = JSON.stringify(key).replace(
    UNSAFE_ALL,
    (c) => `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, '0')}`,
  );
  return `[${quoted}]`;
}

/**
 * Every string (member names included) under `value` that holds an unsafe code point, in
 * document order, each named by its path from `root`. Walks iteratively (no recursion limit).
 *
 * @example
 * ```ts
 * unsafeStrings({ stop_detail: 'ok\u001b[2J', attempted_tools: ['a', 'b\u009b'] }, 'handoff');
 * // [{ path: 'handoff.stop_detail', codePoint: 'U+001B' }, { path: 'handoff.attempted_tools[1]', codePoint: 'U+009B' }]
 * ```
 */
export function unsafeStrings(value: unknown, root: string): UnsafeString[] {
  const out: UnsafeString[] = [];
  const stack: { path: string; v: unknown }[] = [{ path: root, v: value }];
  while (stack.length > 0) {
    const { path, v } = stack.pop() as { path: string; v: unknown };
    if (typeof v === 'string') {
      const m = UNSAFE.exec(v);
      if (m !== null) out.push({ path, codePoint: hex(m[0]) });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ path: `${path}[${i}]`, v: v[i] });
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i] as [string, unknown];
        stack.push({ path: `${path}${member(k)}`, v: child });
        // an unsafe member name is reported (as a one-character string) just before its value
        const m = UNSAFE.exec(k);
        if (m !== null) stack.push({ path: `${path}${member(k)} (key)`, v: m[0] });
      }
    }
  }
  return out;
}
