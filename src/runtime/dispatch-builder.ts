/**
 * Builds the run-contract/v1 dispatches (pure): the files a worker task owns, one worker task per
 * role (fill, deep, repair, falsify, golf), and the run-level first dispatch of a prior-run reuse.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { FileBaseline } from '../baseline/schema.js';
import { emptyContext } from '../contract/dispatch-schema.js';
import type { Dispatch } from '../contract/index.js';
import type { CycleOptions, WorkerInput, WorkRole } from '../cycle/types.js';

/**
 * `rel` resolved under `root` (pure, lexical): the absolute path, or null when it leaves the root
 * (`..`, an absolute path elsewhere, the root itself) or is not a usable path (empty, NUL).
 *
 * @example
 * ```ts
 * resolveUnder('/repo', 'src/A.lean'); // '/repo/src/A.lean'
 * resolveUnder('/repo', '../etc/passwd'); // null
 * ```
 */
export function resolveUnder(root: string, rel: string): string | null {
  if (typeof rel !== 'string' || rel === '' || rel.includes('\0')) return null;
  const abs = resolve(root, rel);
  const r = relative(root, abs);
  if (r === '' || r === '..' || r.startsWith(`..${sep}`) || isAbsolute(r)) return null;
  return abs;
}

/** The files one dispatch owns (absolute, sorted, unique), or why the input names a bad one. */
export type OwnedPaths =
  | { readonly ok: true; readonly owned: readonly string[] }
  | { readonly ok: false; readonly detail: string };

/**
 * The files a worker dispatch owns (pure): `input.ownedFiles` resolved under the project root
 * (a deep cross-file dispatch's declared set), else the target's file. A path outside the root
 * (or an empty set) is refused with the reason, never thrown.
 *
 * @example
 * ```ts
 * ownedPathsOf('/repo', { ...input, ownedFiles: ['A.lean', 'B.lean'] }); // { ok: true, owned: ['/repo/A.lean', '/repo/B.lean'] }
 * ownedPathsOf('/repo', { ...input, ownedFiles: ['../x'] }); // { ok: false, detail: 'owned file ../x is outside the project root /repo' }
 * ```
 */
export function ownedPathsOf(root: string, input: Pick<WorkerInput, 'ownedFiles' | 'target'>): OwnedPaths {
  const rels = input.ownedFiles ?? [input.target.file];
  if (rels.length === 0) return { ok: false, detail: 'the dispatch owns no files' };
  const out: string[] = [];
  for (const rel of rels) {
    const abs = resolveUnder(root, rel);
    if (abs === null)
      return { ok: false, detail: `owned file ${String(rel)} is outside the project root ${root}` };
    out.push(abs);
  }
  return { ok: true, owned: [...new Set(out)].sort() };
}

/** The tactic shapes a golfer is pointed at by default (data for the worker, `golfable_patterns`). */
export const GOLFABLE_PATTERNS: readonly string[] = ['by\\n  TACTIC → by TACTIC'];

/** The proof-golfer's `search_mode` values (run-contract/v1). */
export const GOLF_SEARCH_MODES = ['off', 'quick', 'full'] as const;
/** A proof-golfer's `search_mode`. */
export type GolfSearchMode = (typeof GOLF_SEARCH_MODES)[number];

const obj = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const str = (v: unknown, d: string): string => (typeof v === 'string' ? v : d);
const int = (v: unknown, d: number): number => (Number.isInteger(v) ? (v as number) : d);

/**
 * A compiler error for `proof-repair`'s exact `parameters.error` shape (pure): an object that
 * already has it is kept (its six fields, typed); a `file:line:text` string (the cycle's repair
 * error) is split into file, line and message, the error type being the message up to its first
 * `:`; the goal is the target's.
 *
 * @example
 * ```ts
 * repairError('A.lean:4:type mismatch: Nat vs Int', target);
 * // { errorType: 'type mismatch', message: 'type mismatch: Nat vs Int', file: 'A.lean', line: 4, goal: target.goal, localContext: [] }
 * ```
 */
export function repairError(
  error: unknown,
  target: WorkerInput['target'],
): { errorType: string; message: string; file: string; line: number; goal: string; localContext: string[] } {
  if (typeof error === 'object' && error !== null && !Array.isArray(error)) {
    const e = obj(error);
    const ctx = Array.isArray(e.localContext) ? e.localContext.filter((x) => typeof x === 'string') : [];
    return {
      errorType: str(e.errorType, ''),
      message: str(e.message, ''),
      file: str(e.file, target.file),
      line: int(e.line, target.line),
      goal: str(e.goal, target.goal),
      localContext: ctx as string[],
    };
  }
  const text = typeof error === 'string' ? error : '';
  const m = /^(.*?):(\d+):(.*)$/s.exec(text);
  const message = (m ? (m[3] as string) : text).trim();
  return {
    errorType: (message.split(':')[0] ?? '').trim(),
    message,
    file: m ? (m[1] as string) : target.file,
    line: m ? Number(m[2]) : target.line,
    goal: target.goal,
    localContext: [],
  };
}

/**
 * The `worker` and `parameters` of a role's dispatch (pure), in run-contract/v1's exact per-worker
 * shapes, with the role and everything the cycle sent for it kept in the context (`role`,
 * `role_parameters`; the context accepts extra members): fill is the inline pass (`null`, `{}`);
 * deep is `sorry-filler-deep` with `fast_pass_error` (given, else the prior failure),
 * `permission_level: 'edit'` and `deep_budget` (scope, max files, max lines); repair is
 * `proof-repair` with the compiler error ({@link repairError}, from `parameters.error` or
 * `parameters.repair.error`); falsify is `null` with `{}` (run-contract/v1 has no falsify worker
 * and an inline pass takes `{}` exactly); golf is `proof-golfer` with `search_mode` (given and
 * valid, else `off`), `golfable_patterns` (given strings, else {@link GOLFABLE_PATTERNS}) and
 * `candidate_targets: [target]` — its dispatch's mode is `golf` ({@link buildDispatch}).
 *
 * @example
 * ```ts
 * roleFields({ ...input, role: 'deep', parameters: { deep_budget: { scope: 'target', max_files: 1, max_lines: 120, sorry_budget: 1 } } });
 * // { worker: 'sorry-filler-deep',
 * //   parameters: { fast_pass_error: '', permission_level: 'edit', deep_budget: { scope: 'target', max_files: 1, max_lines: 120 } },
 * //   context: { role: 'deep', role_parameters: { deep_budget: { …, sorry_budget: 1 } } } }
 * roleFields({ ...input, role: 'golf', parameters: { search_mode: 'quick' } }).parameters;
 * // { search_mode: 'quick', golfable_patterns: GOLFABLE_PATTERNS, candidate_targets: [input.target.id] }
 * ```
 */
export function roleFields(input: Pick<WorkerInput, 'role' | 'parameters' | 'target' | 'priorFailure'>): {
  worker: Dispatch['worker'];
  parameters: Record<string, unknown>;
  context: Record<string, unknown>;
} {
  const role: WorkRole = input.role ?? 'fill';
  const given = { ...(input.parameters ?? {}) };
  const context = { role, role_parameters: given };
  switch (role) {
    case 'deep': {
      const b = obj(given.deep_budget);
      return {
        worker: 'sorry-filler-deep',
        parameters: {
          fast_pass_error: str(given.fast_pass_error, input.priorFailure ?? ''),
          permission_level: 'edit',
          deep_budget: {
            scope: str(b.scope, 'target'),
            max_files: int(b.max_files, 1),
            max_lines: int(b.max_lines, 0),
          },
        },
        context,
      };
    }
    case 'repair':
      return {
        worker: 'proof-repair',
        parameters: { error: repairError(given.error ?? obj(given.repair).error, input.target) },
        context,
      };
    case 'falsify':
      return { worker: null, parameters: {}, context };
    case 'golf': {
      const mode = GOLF_SEARCH_MODES.find((m) => m === given.search_mode) ?? 'off';
      const patterns = Array.isArray(given.golfable_patterns)
        ? given.golfable_patterns.filter((p): p is string => typeof p === 'string')
        : [...GOLFABLE_PATTERNS];
      return {
        worker: 'proof-golfer',
        parameters: {
          search_mode: mode,
          golfable_patterns: patterns,
          candidate_targets: [input.target.id],
        },
        context,
      };
    }
    default:
      return { worker: null, parameters: {}, context: {} };
  }
}

/**
 * The dispatch for `input`: per-target task (`file:line`, scope `sorry`, mode `golf` for the golf
 * role, else the cycle's), the role's worker and
 * parameters ({@link roleFields}), the owned files with their fresh baseline, the prior blocker
 * and evidence delta for a relaunch, the budget and a complete context (never omitted members)
 * carrying the pre-flight context (diagnostics, candidates tested, code actions).
 *
 * @example
 * ```ts
 * const d = buildDispatch(input, ['/repo/A.lean'], baseline, '/tmp/scratch');
 * ```
 */
export function buildDispatch(
  input: WorkerInput,
  owned: readonly string[],
  baseline: FileBaseline,
  scratch: string,
  capabilities: readonly string[] = ['marker-diagnostics'],
): Dispatch {
  const role = roleFields(input);
  const pre = input.preflight;
  return {
    schema: 'run-contract/v1',
    record: 'dispatch',
    target: input.target.id,
    scope: 'sorry',
    // a golf pass is the contract's golf mode (the cycle's own modes are prove/autoprove)
    mode: input.role === 'golf' ? 'golf' : input.mode,
    worker: role.worker,
    parameters: role.parameters,
    capabilities: [...capabilities],
    owned_files: [...owned],
    file_baseline: baseline,
    prior_blocker: input.priorBlocker,
    evidence_delta: [...input.evidenceDelta],
    budget: { ...input.budget },
    context: {
      ...emptyContext(scratch),
      prior_failure: input.priorFailure,
      goal_state: input.target.goal === '' ? null : input.target.goal,
      search_results: input.searchResults.map((s) => ({ tool: s.tool, query: s.query, top: [...s.top] })),
      diagnostics: [...(pre?.diagnostics ?? [])],
      candidates_tested: (pre?.candidatesTested ?? []).map((c) => ({ snippet: c.snippet, result: c.result })),
      code_actions: [...(pre?.codeActions ?? [])],
      ...role.context,
    },
  };
}

/** What {@link buildRunDispatch} needs: the run's task, custody and the carried blocker. */
export interface RunDispatchInput {
  readonly options: Pick<CycleOptions, 'target' | 'scope' | 'mode' | 'maxCycles' | 'maxStuck' | 'maxRuntime'>;
  readonly owned: readonly string[];
  readonly baseline: FileBaseline;
  readonly priorBlocker: string | null;
  readonly evidenceDelta: readonly string[];
  readonly scratch: string;
  readonly capabilities?: readonly string[];
}

/**
 * The run-level dispatch of a prior-run reuse (pure): the parent's own task (the run's target,
 * scope and mode, `worker: null`) over the whole owned set with the fresh custody baseline,
 * carrying the prior blocker and the evidence offered for it. It is the first dispatch the
 * persistence controller's `start --prior-run` checks and records; per-target dispatches follow
 * as ordinary `dispatch` events.
 *
 * @example
 * ```ts
 * const d = buildRunDispatch({ options, owned, baseline: custody.fresh_baseline, priorBlocker, evidenceDelta: [], scratch });
 * ```
 */
export function buildRunDispatch(i: RunDispatchInput): Dispatch {
  return {
    schema: 'run-contract/v1',
    record: 'dispatch',
    target: i.options.target,
    scope: i.options.scope,
    mode: i.options.mode,
    worker: null,
    parameters: {},
    capabilities: [...(i.capabilities ?? ['marker-diagnostics'])],
    owned_files: [...i.owned],
    file_baseline: i.baseline,
    prior_blocker: i.priorBlocker,
    evidence_delta: [...i.evidenceDelta],
    budget: {
      max_cycles: i.options.maxCycles,
      max_stuck_cycles: i.options.maxStuck,
      runtime: i.options.maxRuntime === '' ? null : i.options.maxRuntime,
    },
    context: emptyContext(i.scratch),
  };
}
