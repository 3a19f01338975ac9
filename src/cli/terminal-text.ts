/**
 * Text that reaches a person through the CLI (pure). Worker strings (`stop_detail`,
 * `blocker_signature`, `attempted_tools`, progress lines) are someone else's bytes: a terminal
 * obeys the control characters in them (clear the screen, move the cursor, set the window title,
 * plant an OSC 8 hyperlink, overwrite a line with CR or BS), and bidi controls reorder what a
 * reader sees. Every such code point is shown as its JSON/JavaScript escape `\uXXXX` (four
 * lowercase hex digits) instead, so it is visible and inert.
 *
 * The escaped code points (the display controls):
 * - C0 `U+0000–U+001F` (ESC, CR, BS, BEL, NUL, …) — {@link escapeControls} keeps `\n` and `\t`
 *   of multi-line text, {@link escapeLine} escapes them too;
 * - DEL `U+007F` and C1 `U+0080–U+009F` (U+009B is a one-byte CSI, U+009D a one-byte OSC);
 * - the line and paragraph separators `U+2028`, `U+2029`;
 * - the bidi controls `U+061C`, `U+200E`, `U+200F`, `U+202A–U+202E`, `U+2066–U+2069`
 *   (the "Trojan Source" set).
 * Zero-width characters, variation selectors and tag characters are left alone: they do not move
 * the cursor or reorder text, and emoji sequences need them.
 *
 * Why `\uXXXX`: it is the one escape form that is also a JSON string escape. `JSON.stringify`
 * already escapes C0, so the only controls left in its output are inside strings, and escaping
 * them as `\uXXXX` keeps the JSON valid and parsing back to exactly the original value. The same
 * function therefore makes human lines and JSON output safe, and applying it twice changes
 * nothing (its output holds no control character but `\n`/`\t`) — no double escaping.
 * Backslashes are not escaped: the display is for reading, not a reversible encoding (a literal
 * `\u001b` typed by a worker shows the same as an escaped ESC). Records are never escaped; the
 * stored text is the original.
 */

/** Every code point a terminal or text renderer may obey instead of show (see the module doc). */
const DISPLAY_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** The display controls without `\t` (U+0009) and `\n` (U+000A). */
const TEXT_CONTROLS =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

function uEscape(ch: string): string {
  return `\\u${(ch.codePointAt(0) as number).toString(16).padStart(4, '0')}`;
}

/**
 * Escapes the control characters of multi-line text for display: every code point of
 * the display controls (see the module doc) except `\n` and `\t` becomes `\uXXXX`. Idempotent.
 *
 * @example
 * ```ts
 * escapeControls('ok\x1b[2J\n\x9b31m'); // 'ok\\u001b[2J\n\\u009b31m'
 * ```
 */
export function escapeControls(text: string): string {
  return text.replace(TEXT_CONTROLS, uEscape);
}

/**
 * Escapes a value placed inside one line of output: like {@link escapeControls}, and `\n` and
 * `\t` too, so a worker string cannot start a forged line of its own. Idempotent.
 *
 * @example
 * ```ts
 * escapeLine('omega failed\nrun r1: solved'); // 'omega failed\\u000arun r1: solved'
 * ```
 */
export function escapeLine(text: string): string {
  return text.replace(DISPLAY_CONTROLS, uEscape);
}

/**
 * JSON text for the CLI's output: `JSON.stringify(value, null, indent)` with every display
 * control inside a string escaped as `\uXXXX` (C0 already is; DEL, C1, the separators and the
 * bidi controls are added). `JSON.parse` of the result equals `JSON.parse(JSON.stringify(value))`.
 * A value JSON cannot represent at the top level (`undefined`, a function) gives `null`.
 *
 * @example
 * ```ts
 * toTerminalJson({ stop_detail: 'x\u009b2J' }, 0); // '{"stop_detail":"x\\u009b2J"}'
 * ```
 */
export function toTerminalJson(value: unknown, indent = 2): string {
  return escapeControls((JSON.stringify(value, null, indent) as string | undefined) ?? 'null');
}
