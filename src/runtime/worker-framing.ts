/**
 * The worker protocol's stdout framing (pure): JSON Lines. Every non-empty line is one JSON
 * object: zero or more `run-persist-progress/v1` progress objects, then exactly one run-contract/v1
 * handoff record, which ends the stream. Anything else is a protocol error.
 */

/** Schema id of a progress line. */
export const PROGRESS_SCHEMA = 'run-persist-progress/v1';
/** Version of this framing (documented in docs/worker-protocol.md). */
export const WORKER_PROTOCOL_VERSION = 'handoff-worker/v1';

/** The parsed stdout of a worker. */
export type FramedOutput =
  | { readonly ok: true; readonly progress: readonly Record<string, unknown>[]; readonly handoff: unknown }
  | { readonly ok: false; readonly progress: readonly Record<string, unknown>[]; readonly defect: string };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Parses a worker's complete stdout. A multi-line (pretty-printed) final handoff is accepted when
 * everything after the last progress line parses as one JSON object.
 *
 * @example
 * ```ts
 * const f = parseWorkerOutput('{"schema":"run-persist-progress/v1"}\n{"schema":"run-contract/v1",…}\n');
 * f.ok && f.progress.length; // 1
 * ```
 */
export function parseWorkerOutput(stdout: string): FramedOutput {
  const lines = stdout.split(/\r?\n/);
  const progress: Record<string, unknown>[] = [];
  let i = 0;
  for (; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      break;
    }
    if (isObject(v) && v.schema === PROGRESS_SCHEMA) {
      progress.push(v);
      continue;
    }
    break;
  }
  const rest = lines.slice(i).join('\n').trim();
  if (rest === '') return { ok: false, progress, defect: 'the worker printed no handoff record' };
  let final: unknown;
  try {
    final = JSON.parse(rest);
  } catch {
    const first = rest.split('\n')[0] ?? '';
    return {
      ok: false,
      progress,
      defect: `stdout is not protocol output (line ${i + 1}: ${JSON.stringify(first.slice(0, 80))})`,
    };
  }
  if (!isObject(final)) return { ok: false, progress, defect: 'the final stdout value is not a JSON object' };
  return { ok: true, progress, handoff: final };
}

const countOf = (v: unknown): number => (Array.isArray(v) ? v.length : 0);
const namesOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : []);

/**
 * One display line for a worker's progress object: the task, the tools tried, the files changed
 * (base names), candidates, queries and artifacts reported so far.
 *
 * @example
 * ```ts
 * describeProgress({ schema: 'run-persist-progress/v1', attempted_tools: ['simp'] }, 'A.lean:2');
 * // 'progress A.lean:2: tools simp'
 * ```
 */
export function describeProgress(p: Readonly<Record<string, unknown>>, target: string): string {
  const parts: string[] = [];
  const tools = namesOf(p.attempted_tools);
  if (tools.length > 0) parts.push(`tools ${tools.join(', ')}`);
  const changed = namesOf(p.files_changed).map((f) => f.split('/').pop() ?? f);
  if (changed.length > 0) parts.push(`changed ${changed.join(', ')}`);
  const ev = isObject(p.evidence) ? p.evidence : {};
  const n = [
    [countOf(p.best_candidates), 'candidate'],
    [countOf(ev.queries), 'query'],
    [countOf(ev.attempts), 'attempt'],
    [countOf(p.artifacts), 'artifact'],
  ] as const;
  for (const [k, what] of n) {
    if (k > 0) parts.push(`${k} ${what === 'query' && k > 1 ? 'queries' : `${what}${k > 1 ? 's' : ''}`}`);
  }
  return `progress ${target}: ${parts.length > 0 ? parts.join(' · ') : 'working'}`;
}
