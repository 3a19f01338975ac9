/**
 * Reading a subagent's final text as an answer (layer 1, pure): the whole text is one JSON value,
 * optionally inside one Markdown code fence. Anything else is not JSON, and the text itself is
 * the answer — the record validators downstream refuse it with their own codes.
 */

/**
 * What {@link parseAnswerText} found: the parsed JSON value, or the text when it is not JSON.
 *
 * @example
 * ```ts
 * const a: AnswerText = { format: 'text', value: 'I could not do it' };
 * ```
 */
export type AnswerText =
  | { readonly format: 'json'; readonly value: unknown }
  | { readonly format: 'text'; readonly value: string };

const FENCED = /^```[A-Za-z0-9_-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/;

/**
 * Parses a subagent's final text: the trimmed text, or the body of a single fenced block that is
 * the whole text (```` ```json … ``` ````), must be one JSON value. Prose around the JSON, two
 * values, or no JSON at all give `format: 'text'` with the original text. Never throws.
 *
 * @example
 * ```ts
 * parseAnswerText('```json\n{"a":1}\n```'); // { format: 'json', value: { a: 1 } }
 * parseAnswerText('Done! {"a":1}');          // { format: 'text', value: 'Done! {"a":1}' }
 * ```
 */
export function parseAnswerText(text: string): AnswerText {
  const trimmed = text.trim();
  const fenced = FENCED.exec(trimmed);
  const body = fenced === null ? trimmed : (fenced[1] ?? '');
  try {
    return { format: 'json', value: JSON.parse(body) as unknown };
  } catch {
    return { format: 'text', value: text };
  }
}
