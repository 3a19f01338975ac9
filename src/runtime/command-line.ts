/**
 * A small quote-aware splitter for `--worker 'CMD …'` strings: the result is an argument array
 * for `spawn`; nothing is ever run through a shell (no expansion, globbing or substitution).
 */
import { HandoffError } from '../errors/index.js';

/**
 * Splits a command string into argv. Whitespace separates words; single quotes keep everything
 * literally; double quotes keep everything except `\"` and `\\`; a backslash outside quotes
 * escapes the next character. `$`, backticks, `*`, `;`, `|` are ordinary characters.
 *
 * @example
 * ```ts
 * splitCommand(`python3 'my worker.py' --flag "a b"`); // ['python3', 'my worker.py', '--flag', 'a b']
 * ```
 * @throws HandoffError `usage` on an unterminated quote or an empty command.
 */
export function splitCommand(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end === -1) throw new HandoffError('usage', `unterminated ' in command: ${text}`);
      cur += text.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      i++;
      let closed = false;
      while (i < text.length) {
        const d = text[i] as string;
        if (d === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) {
          cur += text[i + 1];
          i += 2;
        } else if (d === '"') {
          closed = true;
          i++;
          break;
        } else {
          cur += d;
          i++;
        }
      }
      if (!closed) throw new HandoffError('usage', `unterminated " in command: ${text}`);
      inWord = true;
    } else if (c === '\\' && i + 1 < text.length) {
      cur += text[i + 1];
      inWord = true;
      i += 2;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(cur);
      cur = '';
      inWord = false;
      i++;
    } else {
      cur += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) out.push(cur);
  if (out.length === 0) throw new HandoffError('usage', 'empty command');
  return out;
}
