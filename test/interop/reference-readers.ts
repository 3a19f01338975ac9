/**
 * Strict readers of the reference formats, written from the documented rules (shared/spec
 * lean4-contracts.md §1, §2, §4 and issue 17), used to check the "we write → they read" direction:
 * what the reference's validator requires (every key present; exact keys only in the typed item
 * shapes) and what its host-local baseline loader accepts (`file_baseline.py`: schema, non-empty,
 * `os.path.isabs` on POSIX, 64-hex sha256, int size ≥ 0, no duplicate path or realpath).
 */
import { readFileSync } from 'node:fs';

const DISPATCH_KEYS = [
  'schema',
  'record',
  'target',
  'scope',
  'mode',
  'worker',
  'parameters',
  'capabilities',
  'owned_files',
  'file_baseline',
  'prior_blocker',
  'evidence_delta',
  'budget',
  'context',
];
const CONTEXT_KEYS = [
  'prior_failure',
  'goal_state',
  'diagnostics',
  'search_results',
  'candidates_tested',
  'code_actions',
  'scratch_location',
];
const HANDOFF_KEYS = [
  'schema',
  'record',
  'target',
  'scope',
  'mode',
  'status',
  'stop_reason',
  'stop_detail',
  'blocker_kind',
  'blocker_class',
  'blocker_signature',
  'attempted_tools',
  'best_candidates',
  'failed_avenues',
  'evidence',
  'files_owned',
  'files_changed',
  'file_baseline',
  'artifacts',
  'next_action',
  'new_evidence_required_for_rerun',
];

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const missing = (o: unknown, keys: readonly string[]): string[] =>
  isRec(o) ? keys.filter((k) => !Object.hasOwn(o, k)) : [...keys];
const exactItems = (v: unknown, keys: readonly string[]): boolean =>
  Array.isArray(v) &&
  v.every(
    (x) =>
      isRec(x) &&
      Object.keys(x).length === keys.length &&
      keys.every((k) => typeof x[k] === 'string' || (k === 'top' && Array.isArray(x[k]))),
  );

/** The serialized path grammar of the reference validator (`^(/|[A-Za-z]:[\\/]|\\\\)`). */
const SERIALIZED_ABS = /^(\/|[A-Za-z]:[\\/]|\\\\)/;

/** The reference validator's `_valid_baseline` (serialized grammar; extra keys ignored). */
export function referenceBaselineValid(fb: unknown): boolean {
  if (!isRec(fb) || fb.schema !== 'file-baseline/v1' || !Array.isArray(fb.files) || fb.files.length === 0)
    return false;
  const paths = new Set<unknown>();
  const reals = new Set<unknown>();
  for (const f of fb.files) {
    if (!isRec(f) || typeof f.path !== 'string' || typeof f.realpath !== 'string') return false;
    if (!SERIALIZED_ABS.test(f.path) || !SERIALIZED_ABS.test(f.realpath)) return false;
    if (paths.has(f.path) || reals.has(f.realpath)) return false;
    paths.add(f.path);
    reals.add(f.realpath);
    if (typeof f.exists !== 'boolean') return false;
    if (f.exists) {
      if (typeof f.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(f.sha256)) return false;
      if (typeof f.size !== 'number' || !Number.isInteger(f.size) || f.size < 0) return false;
    } else if (f.sha256 !== null || f.size !== null) return false;
  }
  return true;
}

/** Reasons the reference validator would give (structural subset: keys, typed items, baseline). */
export function referenceRecordProblems(kind: 'dispatch' | 'handoff', r: unknown): string[] {
  if (!isRec(r)) return ['not an object'];
  const p: string[] = [];
  if (kind === 'dispatch') {
    p.push(...missing(r, DISPATCH_KEYS).map((k) => `missing ${k}`));
    p.push(...missing(r.context, CONTEXT_KEYS).map((k) => `missing context.${k}`));
    const ctx = isRec(r.context) ? r.context : {};
    if (!exactItems(ctx.search_results, ['tool', 'query', 'top'])) p.push('search_results shape');
    if (!exactItems(ctx.candidates_tested, ['snippet', 'result'])) p.push('candidates_tested shape');
    const b = r.budget;
    if (!isRec(b) || Object.keys(b).sort().join() !== 'max_cycles,max_stuck_cycles,runtime')
      p.push('budget keys');
  } else {
    p.push(...missing(r, HANDOFF_KEYS).map((k) => `missing ${k}`));
    const ev = r.evidence;
    if (!isRec(ev) || missing(ev, ['goal_delta', 'diagnostic_delta']).length > 0) p.push('evidence shape');
    if (!exactItems(r.best_candidates, ['candidate', 'outcome'])) p.push('best_candidates shape');
    if (!exactItems(r.artifacts, ['kind', 'content'])) p.push('artifacts shape');
  }
  if (r.file_baseline !== null && !referenceBaselineValid(r.file_baseline)) p.push('file_baseline');
  return p;
}

/**
 * The reference's host-local baseline loader (`file_baseline.py _load_baseline` on POSIX): exit 2
 * with a reason, or `ok`. Extra keys are ignored.
 */
export function referenceLoadBaseline(text: string): 'ok' | string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return 'malformed JSON';
  }
  if (!isRec(data) || data.schema !== 'file-baseline/v1') return 'unsupported schema';
  if (!Array.isArray(data.files) || !data.files.every(isRec)) return "'files' must be a list of entries";
  if (data.files.length === 0) return 'empty baseline';
  const paths = new Set<unknown>();
  const reals = new Set<unknown>();
  for (const e of data.files as Rec[]) {
    if (typeof e.path !== 'string' || typeof e.realpath !== 'string') return 'path/realpath must be strings';
    if (!e.path.startsWith('/') || !e.realpath.startsWith('/')) return 'path/realpath must be absolute';
    if (typeof e.exists !== 'boolean') return 'exists must be a boolean';
    if (e.exists) {
      if (typeof e.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(e.sha256)) return 'needs a 64-hex sha256';
      if (typeof e.size !== 'number' || !Number.isInteger(e.size) || e.size < 0) return 'needs a size';
    } else if (e.sha256 !== null || e.size !== null) return 'absent entry must have null sha256/size';
    if (paths.has(e.path) || reals.has(e.realpath)) return 'duplicate path/realpath entry';
    paths.add(e.path);
    reals.add(e.realpath);
  }
  return 'ok';
}

/** Reads a fixture of this folder as text. */
export function fixtureText(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
}

/** Reads a JSON fixture of this folder (a fresh copy each call). */
export function fixtureJson<T = Rec>(name: string): T {
  return JSON.parse(fixtureText(name)) as T;
}
