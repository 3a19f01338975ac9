/**
 * Text hygiene for claims (layer 1, pure): source text is data that reaches drafters, journals and
 * terminals, so control characters other than tab and newline are dropped, and the lines of a block
 * are dedented and trimmed.
 */

// C0 controls except \t and \n, DEL, C1 controls, and the bidi overrides/isolates
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `s` without control characters (keeps `\t` and `\n`): no terminal escape, carriage return or
 * bidi override survives from a source into a claim.
 *
 * @example
 * ```ts
 * stripControls('a\u001b[2Jb'); // 'a[2Jb'
 * ```
 */
export function stripControls(s: string): string {
  return s.replace(CONTROL, '');
}

/**
 * The text of a block of lines: controls stripped, trailing blanks removed, the common leading
 * indentation removed, leading and trailing empty lines dropped, inner runs of empty lines kept as one.
 *
 * @example
 * ```ts
 * blockText(['  a', '    b', '', '', '  c  ']); // 'a\n  b\n\nc'
 * ```
 */
export function blockText(lines: readonly string[]): string {
  const clean = lines.map((l) => stripControls(l).replace(/\t/g, '    ').trimEnd());
  let indent = Number.POSITIVE_INFINITY;
  for (const l of clean) {
    if (l === '') continue;
    const lead = l.length - l.trimStart().length;
    if (lead < indent) indent = lead;
  }
  const cut = Number.isFinite(indent) ? indent : 0;
  const out: string[] = [];
  for (const l of clean) {
    const line = l.slice(cut);
    if (line === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    out.push(line);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out.join('\n');
}

/**
 * Why `text` is not usable as a text source, or null: a NUL character means binary content.
 *
 * @example
 * ```ts
 * textProblem('a\u0000b'); // 'binary content: NUL character at line 1'
 * textProblem('plain'); // null
 * ```
 */
export function textProblem(text: string): string | null {
  const nul = text.indexOf('\u0000');
  if (nul < 0) return null;
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < nul; i = text.indexOf('\n', i + 1)) line += 1;
  return `binary content: NUL character at line ${line}`;
}

/**
 * The lines of `text`: a leading byte-order mark dropped, `\r\n` and lone `\r` read as line ends.
 *
 * @example
 * ```ts
 * splitLines('\uFEFFa\r\nb\rc'); // ['a', 'b', 'c']
 * ```
 */
export function splitLines(text: string): string[] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return body.split(/\r\n|\r|\n/);
}
