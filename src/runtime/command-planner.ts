/**
 * A planner port backed by a command (`--planner CMD`), in any language: the {@link PlannerInput}
 * (plus `project_root`) as one JSON object on stdin, one JSON plan (a `PlannerOutput` without
 * `now`) on stdout, validated with zod. The command runs contained (argument array, no shell, its
 * own process group, bounded output) under seed 002's planning-search time box (30 s by default):
 * past it the group is killed and the fallback's plan is used. A planner is advisory, so it never
 * stops a run: a crash, a time-out or malformed output falls back to the built-in plan with a note
 * in the summary; and what a hostile planner says is filtered — steps naming targets the input did
 * not list are dropped, as are evidence for such targets, `files` entries that are not safe
 * project-relative paths, and searches beyond the input's search budget.
 */
import { z } from 'zod';
import type { PlannerInput, PlannerOutput, PlanStep } from '../cycle/types.js';
import { escapeControls, unsafePathReason } from '../patch/index.js';
import type { SandboxNetwork } from '../sandbox/index.js';
import type { PlannerPort, Unstamped } from './ports.js';
import { runReadOnly } from './read-only-run.js';

/**
 * Options of {@link commandPlanner}.
 *
 * @example
 * ```ts
 * const o: CommandPlannerOptions = { timeoutMs: 30_000, fallback: builtinPlanner() };
 * ```
 */
export interface CommandPlannerOptions {
  /** The planning time box in milliseconds (default {@link PLANNER_TIME_BOX_MS}). */
  readonly timeoutMs?: number;
  /** The planner whose plan is used when the command fails (usually the built-in one). */
  readonly fallback: PlannerPort;
  /** Stdout cap in characters (default 1 MiB); beyond it the command is stopped and the fallback used. */
  readonly maxOutputBytes?: number;
  /**
   * Run the planner in the sandbox (decide with `probeSandbox` first; the project root a
   * realpath): the project read-only, every write discarded; a planner that wrote in the project
   * is not trusted — the fallback's plan is used, the paths named in its summary.
   */
  readonly sandbox?: { readonly network: SandboxNetwork } | null;
}

/**
 * Seed 002's planning-search time box: 30 s.
 *
 * @example
 * ```ts
 * commandPlanner(argv, root, { fallback, timeoutMs: PLANNER_TIME_BOX_MS });
 * ```
 */
export const PLANNER_TIME_BOX_MS = 30_000;

const text = (max: number) => z.string().max(max);

/**
 * The plan a planner command prints: `steps` (required; `{ target, note, files? }`), `searches`
 * (`{ tool, query, top }`, default none), `evidence` (target id → new evidence, default none) and
 * `summary` (default empty). Unknown keys (a `now` included) are ignored; sizes are bounded.
 *
 * @example
 * ```ts
 * PlannerResponseSchema.safeParse({ steps: [{ target: 'A.lean:2', note: 'try simp' }], summary: 's' }).success; // true
 * ```
 */
export const PlannerResponseSchema = z.object({
  steps: z
    .array(
      z.object({
        target: text(4096),
        note: text(10_000),
        files: z.array(text(4096)).max(1000).optional(),
      }),
    )
    .max(10_000),
  searches: z
    .array(z.object({ tool: text(200), query: text(10_000), top: z.array(text(10_000)).max(100) }))
    .max(1000)
    .default([]),
  evidence: z.record(text(4096), z.array(text(10_000)).max(1000)).default({}),
  summary: text(10_000).default(''),
});

/** The plan a planner command printed, after validation. */
type PlannerResponse = z.infer<typeof PlannerResponseSchema>;

const seconds = (ms: number): string => (ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`);

/** The fallback's plan with `note` appended to its summary. */
async function fallbackWith(
  fallback: PlannerPort,
  input: PlannerInput,
  note: string,
): Promise<Unstamped<PlannerOutput>> {
  const p = await fallback.plan(input);
  return { ...p, summary: `${p.summary} [${note}; fallback plan used]` };
}

/**
 * Filters a validated response against the input: known targets only (first step per target),
 * safe `files`, evidence for known targets, searches within the budget. Pure.
 */
function admit(input: PlannerInput, r: PlannerResponse): Unstamped<PlannerOutput> {
  const known = new Set(input.targets.map((t) => t.id));
  const notes: string[] = [];
  const seen = new Set<string>();
  const steps: PlanStep[] = [];
  let foreign = 0;
  let droppedFiles = 0;
  for (const s of r.steps) {
    if (!known.has(s.target)) {
      foreign += 1;
      continue;
    }
    if (seen.has(s.target)) continue;
    seen.add(s.target);
    const step: { target: string; note: string; files?: string[] } = {
      target: s.target,
      note: escapeControls(s.note),
    };
    if (s.files !== undefined) {
      const files = s.files.filter((f) => unsafePathReason(f) === null);
      droppedFiles += s.files.length - files.length;
      if (files.length > 0) step.files = files;
    }
    steps.push(step);
  }
  const evidence = Object.fromEntries(Object.entries(r.evidence).filter(([t]) => known.has(t)));
  const foreignEvidence = Object.keys(r.evidence).length - Object.keys(evidence).length;
  const budget = Math.max(0, input.searchBudget);
  const searches = r.searches.slice(0, budget);
  if (foreign > 0) notes.push(`${foreign} step(s) naming targets not in the input ignored`);
  if (foreignEvidence > 0) notes.push(`evidence for ${foreignEvidence} unknown target(s) ignored`);
  if (droppedFiles > 0)
    notes.push(`${droppedFiles} unsafe file entr${droppedFiles === 1 ? 'y' : 'ies'} dropped`);
  if (searches.length < r.searches.length) {
    notes.push(`${r.searches.length - searches.length} search(es) beyond the budget of ${budget} dropped`);
  }
  const summary = escapeControls(r.summary);
  return {
    steps,
    searches,
    evidence,
    summary: notes.length === 0 ? summary : `${summary} [planner: ${notes.join('; ')}]`,
  };
}

/**
 * A planner port that runs `argv` (no shell) in `projectRoot` once per plan or replan, with
 * `{ ...input, project_root }` on stdin, and expects one JSON object
 * ({@link PlannerResponseSchema}) as its whole stdout. Time-out (default
 * {@link PLANNER_TIME_BOX_MS}; the process group is killed), failure to start, a non-zero exit,
 * oversized or malformed output: the `fallback`'s plan, with the reason noted in its summary.
 * Accepted output is filtered against the input (see the module note). Never rejects unless the
 * fallback does.
 *
 * @example
 * ```ts
 * const planner = commandPlanner(['python3', 'plan.py'], '/repo', { fallback: builtinPlanner() });
 * const plan = await planner.plan(input);
 * ```
 */
export function commandPlanner(
  argv: readonly string[],
  projectRoot: string,
  options: CommandPlannerOptions,
): PlannerPort {
  const timeoutMs = options.timeoutMs ?? PLANNER_TIME_BOX_MS;
  const name = escapeControls(argv[0] ?? '(empty command)');
  return {
    async plan(input) {
      const { result: r, wrote } = await runReadOnly(
        argv,
        `${JSON.stringify({ ...input, project_root: projectRoot })}\n`,
        {
          cwd: projectRoot,
          timeoutMs,
          maxOutputBytes: options.maxOutputBytes ?? 1024 * 1024,
          killGraceMs: 500,
        },
        options.sandbox,
      );
      if (wrote.length > 0) {
        const shown = wrote.slice(0, 5).map(escapeControls).join(', ');
        return fallbackWith(
          options.fallback,
          input,
          `planner ${name} wrote in the project (discarded by the sandbox): ${shown}${wrote.length > 5 ? ` and ${wrote.length - 5} more` : ''}`,
        );
      }
      if (r.spawnError !== null) {
        return fallbackWith(
          options.fallback,
          input,
          `planner ${name} could not start: ${escapeControls(r.spawnError)}`,
        );
      }
      if (r.timedOut) {
        return fallbackWith(
          options.fallback,
          input,
          `planner ${name}: the planning time box of ${seconds(timeoutMs)} expired and the planner was stopped`,
        );
      }
      if (r.truncated) return fallbackWith(options.fallback, input, `planner ${name}: output too large`);
      if (r.code !== 0) {
        return fallbackWith(
          options.fallback,
          input,
          `planner ${name} exited with ${r.code ?? r.signal ?? 'no code'}`,
        );
      }
      let raw: unknown;
      try {
        raw = JSON.parse(r.stdout);
      } catch {
        return fallbackWith(options.fallback, input, `planner ${name} did not print one JSON object`);
      }
      let parsed: ReturnType<typeof PlannerResponseSchema.safeParse>;
      try {
        parsed = PlannerResponseSchema.safeParse(raw);
      } catch (e) {
        const why = escapeControls(e instanceof Error ? e.message : String(e));
        return fallbackWith(
          options.fallback,
          input,
          `planner ${name}: its plan could not be checked (${why})`,
        );
      }
      if (!parsed.success) {
        const i = parsed.error.issues[0];
        const where = i === undefined ? '' : `${i.path.map(String).join('.') || '(root)'}: ${i.message}`;
        return fallbackWith(
          options.fallback,
          input,
          `planner ${name} printed an invalid plan (${escapeControls(where)})`,
        );
      }
      return admit(input, parsed.data);
    },
  };
}
