/**
 * The protocol-error handoff: for any input, however malformed, a handoff record that itself
 * validates. It echoes the task identity it can parse and names the defect in stop_detail.
 */
import { FileBaselineSchema, uncoveredPaths } from '../baseline/schema.js';
import { ModeSchema, RUN_CONTRACT_SCHEMA, ScopeSchema } from './enums.js';
import { emptyEvidence, type Handoff } from './handoff-schema.js';

/**
 * Recovers the complete top-level members of a truncated or damaged JSON object: the longest
 * prefix ending at a top-level comma (or the whole text) that parses once closed with `}`.
 * Returns undefined when nothing before the defect forms an object.
 *
 * @example
 * ```ts
 * recoverObjectPrefix('{"target": "A.lean", "scope": "fi'); // { target: 'A.lean' }
 * ```
 */
export function recoverObjectPrefix(text: string): Record<string, unknown> | undefined {
  const start = text.indexOf('{');
  if (start === -1 || text.slice(0, start).trim() !== '') return undefined;
  const cuts: number[] = [];
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === ',' && depth === 1) cuts.push(i);
  }
  cuts.push(text.length);
  // bounded: at most 64 parse attempts, so hostile input cannot make recovery quadratic
  for (let k = cuts.length - 1; k >= Math.max(0, cuts.length - 64); k--) {
    try {
      const v = JSON.parse(`${text.slice(start, cuts[k])}}`) as unknown;
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      // try a shorter prefix
    }
  }
  return undefined;
}

function parseMaybeJson(raw: unknown): unknown {
  if (typeof raw === 'string' || raw instanceof Uint8Array) {
    const text = typeof raw === 'string' ? raw : Buffer.from(raw).toString('utf8');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return recoverObjectPrefix(text);
    }
  }
  return raw;
}

function field(obj: unknown, key: string): unknown {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return undefined;
  try {
    return Object.hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/**
 * Builds a protocol-error handoff for a malformed (or unusable) dispatch.
 *
 * `raw` may be the dispatch text (string/bytes, parsed as JSON when possible; for damaged JSON the
 * complete top-level members before the defect are recovered) or any value.
 * Target, scope and mode are echoed when they parse; the owned files are echoed when they are a
 * string list, with the dispatch's baseline when that baseline is valid and covers them.
 *
 * @example
 * ```ts
 * const h = protocolErrorHandoff('{"target": "A.lean"', 'dispatch is not JSON');
 * h.stop_reason; // 'protocol-error'
 * ```
 */
export function protocolErrorHandoff(raw: unknown, detail: string): Handoff {
  const value = parseMaybeJson(raw);
  const target = field(value, 'target');
  const scope = ScopeSchema.safeParse(field(value, 'scope'));
  const mode = ModeSchema.safeParse(field(value, 'mode'));
  const owned = field(value, 'owned_files');
  const filesOwned = isStringArray(owned) ? [...new Set(owned)] : [];
  const baseline = FileBaselineSchema.safeParse(field(value, 'file_baseline'));
  const fileBaseline =
    baseline.success && uncoveredPaths(baseline.data, filesOwned).length === 0 ? baseline.data : null;
  const text = typeof detail === 'string' && detail.trim() !== '' ? detail : 'malformed dispatch';
  return {
    schema: RUN_CONTRACT_SCHEMA,
    record: 'handoff',
    target: typeof target === 'string' && target !== '' ? target : null,
    scope: scope.success ? scope.data : null,
    mode: mode.success ? mode.data : null,
    status: 'stopped',
    stop_reason: 'protocol-error',
    stop_detail: text,
    blocker_kind: null,
    blocker_class: null,
    blocker_signature: null,
    attempted_tools: [],
    best_candidates: [],
    failed_avenues: [],
    evidence: emptyEvidence(),
    files_owned: filesOwned,
    files_changed: [],
    file_baseline: fileBaseline,
    artifacts: [],
    next_action: 'stop',
    new_evidence_required_for_rerun: null,
  };
}
