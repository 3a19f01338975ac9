/**
 * Reading a sub-agent's final output as a handoff (layer 1 rules, no I/O): an object from a
 * structured `outputType` as it is, a text parsed as one JSON object — bounded in size, a single
 * fenced ```json block accepted, anything else refused with the reason. Never throws.
 */

/**
 * The largest final output read, in UTF-16 code units of text (default 1 MiB): a longer one is
 * refused before parsing.
 *
 * @example
 * ```ts
 * readAgentOutput('x'.repeat(DEFAULT_MAX_OUTPUT_CHARS + 1)).ok; // false
 * ```
 */
export const DEFAULT_MAX_OUTPUT_CHARS = 1024 * 1024;

/**
 * A sub-agent's final output read as a JSON object, or what is wrong with it.
 *
 * @example
 * ```ts
 * const r: AgentOutput = readAgentOutput(result.finalOutput);
 * ```
 */
export type AgentOutput =
  | { readonly ok: true; readonly value: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly detail: string };

const FENCED = /^```(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n```$/;

/**
 * Reads `output` (a run's `finalOutput`): a plain object is taken as it is (the checks read it once
 * into plain JSON later); a string longer than `maxChars` is refused unread; otherwise its trimmed
 * text — or the inside of one fenced block that is the whole text — must parse as a JSON object.
 *
 * @example
 * ```ts
 * readAgentOutput('{"schema":"run-contract/v1"}'); // { ok: true, value: { schema: 'run-contract/v1' } }
 * readAgentOutput('Done! I fixed it.'); // { ok: false, detail: 'is not JSON: …' }
 * ```
 */
export function readAgentOutput(output: unknown, maxChars: number = DEFAULT_MAX_OUTPUT_CHARS): AgentOutput {
  if (output === undefined || output === null) return { ok: false, detail: 'is empty' };
  if (typeof output === 'object') {
    if (Array.isArray(output)) return { ok: false, detail: 'is a list, not a handoff object' };
    return { ok: true, value: output as Record<string, unknown> };
  }
  if (typeof output !== 'string') return { ok: false, detail: `is a ${typeof output}, not a handoff object` };
  if (output.length > maxChars) {
    return { ok: false, detail: `is ${output.length} characters long; the limit is ${maxChars}` };
  }
  const trimmed = output.trim();
  if (trimmed === '') return { ok: false, detail: 'is empty' };
  const text = FENCED.exec(trimmed)?.[1] ?? trimmed;
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return { ok: false, detail: `is not JSON: ${why.slice(0, 200)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, detail: 'is JSON but not a handoff object' };
  }
  return { ok: true, value: value as Record<string, unknown> };
}
