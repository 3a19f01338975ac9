/**
 * Escaping for every output format of the visualiser (pure). State keys, event types, guard and
 * action names come from machine configs and may hold any character; none of them can break out
 * of the label they are placed in. Control characters (C0, DEL, C1) become spaces in every format,
 * so a drawing written to a file is also safe to print on a terminal (the terminal itself is
 * guarded by the CLI, `src/cli/terminal-text.ts`).
 */

/** C0 (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F). */
function isControl(cp: number): boolean {
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

const MERMAID_SAFE = /[A-Za-z0-9 _.,:()=/+\-[\]*!?']/;

/**
 * Escapes text for a Mermaid label (state description or transition text): every character
 * outside a small safe set becomes a Mermaid entity code `#<decimal>;`, control characters
 * become spaces.
 *
 * @example
 * ```ts
 * mermaidText('a: b; <c>'); // 'a: b#59; #60;c#62;'
 * ```
 */
export function mermaidText(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (isControl(cp)) out += ' ';
    else if (MERMAID_SAFE.test(ch)) out += ch;
    else out += `#${cp};`;
  }
  return out;
}

const MERMAID_RESERVED = new Set([
  'state',
  'note',
  'end',
  'direction',
  'class',
  'classdef',
  'style',
  'as',
  'left',
  'right',
  'of',
  'tb',
  'bt',
  'lr',
  'rl',
  'click',
  'hide',
  'default',
]);

/**
 * Returns a Mermaid-safe identifier for `wanted` (letters, digits, `_`; not a keyword; unique in
 * `taken`, which it updates).
 *
 * @example
 * ```ts
 * const taken = new Set<string>();
 * mermaidId('plan', taken); // 'plan'
 * mermaidId('end', taken);  // 's_end'
 * ```
 */
export function mermaidId(wanted: string, taken: Set<string>): string {
  let base = wanted.replace(/[^A-Za-z0-9_]/g, '_');
  if (base === '' || /^[0-9]/.test(base) || MERMAID_RESERVED.has(base.toLowerCase())) base = `s_${base}`;
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
  taken.add(id);
  return id;
}

/**
 * Quotes text as a Graphviz DOT double-quoted string (backslash, quote and line breaks escaped,
 * so DOT's own `\N`/`\l` escapes cannot be injected).
 *
 * @example
 * ```ts
 * dotString('say "hi"'); // '"say \\"hi\\""'
 * ```
 */
export function dotString(text: string): string {
  let out = '"';
  for (const ch of text) {
    if (ch === '\\') out += '\\\\';
    else if (ch === '"') out += '\\"';
    else if (ch === '\n') out += '\\n';
    else if (isControl(ch.codePointAt(0) as number)) out += ' ';
    else out += ch;
  }
  return `${out}"`;
}

/**
 * Escapes text for HTML/SVG element content and attribute values.
 *
 * @example
 * ```ts
 * htmlText('<script>"x" & \'y\''); // '&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;'
 * ```
 */
export function htmlText(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (ch === '&') out += '&amp;';
    else if (ch === '<') out += '&lt;';
    else if (ch === '>') out += '&gt;';
    else if (ch === '"') out += '&quot;';
    else if (ch === "'") out += '&#39;';
    else if (isControl(cp) && ch !== '\n' && ch !== '\t') out += ' ';
    else out += ch;
  }
  return out;
}

/**
 * Escapes text for a Markdown table cell: pipes, backslashes, HTML-significant characters,
 * backticks and Markdown emphasis characters are neutralised, line breaks and other control
 * characters become spaces.
 *
 * @example
 * ```ts
 * markdownCell('a|b <c>'); // 'a\\|b &lt;c&gt;'
 * ```
 */
export function markdownCell(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\|`*_[\]])/g, '\\$1');
}
