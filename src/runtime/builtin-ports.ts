/**
 * Built-in planner, reviewer and human ports (in-process): a deterministic planner that orders
 * targets, a reviewer that turns the last worker handoff into the stuck-review block, and humans
 * that answer from a script or from lines read interactively.
 */
import { BLOCKER_CLASS_PHRASES, type BlockerClass, type Handoff } from '../contract/index.js';
import type { HumanInput, ReviewInput, TargetInfo } from '../cycle/types.js';
import { type BlockerClassTable, LEAN_BLOCKER_CLASSES, phraseOfClass } from '../profile/blocker-classes.js';
import type { HumanPort, PlannerPort, ReviewerPort } from './ports.js';

/**
 * A planner that orders targets by file and line, undeclared blockers first, and performs no
 * searches (so it never spends the knowledge-search budget).
 *
 * @example
 * ```ts
 * const planner = builtinPlanner();
 * ```
 */
export function builtinPlanner(): PlannerPort {
  return {
    async plan(input) {
      const order = (t: TargetInfo) => (input.blocked.includes(t.id) ? 1 : 0);
      const sorted = [...input.targets].sort(
        (a, b) => order(a) - order(b) || a.file.localeCompare(b.file) || a.line - b.line,
      );
      const steps = sorted.map((t) => ({
        target: t.id,
        note: input.blocked.includes(t.id) ? 'blocked: needs new evidence before a relaunch' : 'attempt',
      }));
      const summary =
        input.kind === 'replan'
          ? `replan after ${input.stuck ? `stuck ${input.stuck.target} (${input.stuck.condition})` : 'review'}; ${steps.length} open target(s)`
          : `${steps.length} open target(s); next ${steps[0]?.target ?? 'none'}`;
      return { steps, searches: [], evidence: {}, summary };
    },
  };
}

const PHRASE_OF: Record<string, string> = Object.fromEntries(
  Object.entries(BLOCKER_CLASS_PHRASES).map(([phrase, cls]) => [cls, phrase]),
);

/**
 * The human phrase of a blocker class ("missing library lemma").
 *
 * @example
 * ```ts
 * phraseOf('missing-library-lemma'); // 'missing library lemma'
 * ```
 */
export function phraseOf(cls: BlockerClass): string {
  return PHRASE_OF[cls] ?? cls.replace(/-/g, ' ');
}

/** Options of {@link builtinReviewer}. */
export interface BuiltinReviewerOptions {
  /** The domain's blocker phrases (default: the proof phrases). */
  readonly blockerClasses?: BlockerClassTable;
  /** Deep mode is available to the run (a snapshot port, `--deep` not `never`): route stubborn proof blockers to it. */
  readonly deep?: boolean;
  /** Repair mode is available to the run (a patcher port): route repeated build errors to it. */
  readonly repair?: boolean;
}

/** The stuck conditions of a stubborn proof blocker (deep mode's trigger). */
const STUBBORN: ReadonlySet<string> = new Set(['repeated-failure', 'no-progress', 'empty-search']);

/**
 * The stuck review's `next_action` (pure; seed 002 § Review Router): a changed statement goes
 * back to its author (`redraft`); a worker's non-proof blocker (`capability`, `operational`,
 * `protocol`, `safety-guard`, `false-statement`) is not a proof problem and stops (a
 * `false-statement` raises the falsification flag instead); a repeated build error goes to repair
 * mode when it is available; a stubborn proof blocker (repeated failure, no progress, empty
 * search) to deep mode when it is available; anything else (deep rolled back, repair exhausted)
 * stops.
 *
 * @example
 * ```ts
 * stuckNextAction({ ...stuck, condition: 'repeated-build-error' }, handoff, { repair: true }); // 'repair'
 * stuckNextAction({ ...stuck, condition: 'no-progress' }, { ...handoff, blocker_kind: 'capability' }, { deep: true }); // 'stop'
 * ```
 */
export function stuckNextAction(
  stuck: ReviewInput['stuck'],
  last: Handoff | null,
  available: { readonly deep?: boolean; readonly repair?: boolean } = {},
): Handoff['next_action'] {
  if (stuck?.condition === 'fence-violation') return 'redraft';
  const kind = last?.status === 'solved' ? null : (last?.blocker_kind ?? null);
  if (kind !== null && kind !== 'proof') return 'stop';
  if (stuck?.condition === 'repeated-build-error' && available.repair === true) return 'repair';
  if (stuck !== null && STUBBORN.has(stuck.condition) && available.deep === true) return 'deep';
  return 'stop';
}

/**
 * A reviewer that summarizes the last worker handoff; in stuck mode it emits the stuck review
 * block (primary blocker phrase, top blockers, evidence, falsification flag, next_action). The
 * phrase is the worker's class in the domain profile's words (`blockerClasses`, default the proof
 * phrases); a worker's non-proof blocker (`capability`, `false-statement`, …) is named by its
 * kind, which no class table maps, so the stuck handoff keeps that kind. The falsification flag
 * is raised when the last handoff's blocker is a `false-statement`; `next_action` follows
 * {@link stuckNextAction} with the modes the run has (`deep`, `repair`).
 *
 * @example
 * ```ts
 * const reviewer = builtinReviewer();
 * const codeReviewer = builtinReviewer({ blockerClasses: CODE_BLOCKER_CLASSES });
 * const routed = builtinReviewer({ deep: true, repair: true });
 * ```
 */
export function builtinReviewer(o: BuiltinReviewerOptions = {}): ReviewerPort {
  const table = o.blockerClasses ?? LEAN_BLOCKER_CLASSES;
  return {
    async review(input) {
      const h = input.lastHandoff;
      if (input.mode === 'normal') {
        return {
          mode: 'normal',
          primaryBlocker: null,
          topBlockers: [],
          evidence: [],
          falsification: false,
          nextAction: 'continue',
          suggestions: [
            `reviewed ${input.scope}${input.file ? ` ${input.file}` : ''}: continue with the plan`,
          ],
        };
      }
      const kind = h?.status === 'solved' ? null : (h?.blocker_kind ?? null);
      const primary =
        kind !== null && kind !== 'proof' ? kind : phraseOfClass(table, h?.blocker_class ?? table.fallback);
      return {
        mode: 'stuck',
        primaryBlocker: primary,
        topBlockers: [input.stuck?.signature ?? h?.blocker_signature ?? 'unknown'].slice(0, 3),
        evidence: [
          ...(h?.failed_avenues ?? []),
          ...(h?.evidence.attempts.map((a) => `${a.snippet}: ${a.result}`) ?? []),
        ],
        falsification: kind === 'false-statement',
        nextAction: stuckNextAction(input.stuck, h, o),
        suggestions: [`${input.stuck?.target ?? 'target'} needs new evidence: ${input.stuck?.detail ?? ''}`],
      };
    },
  };
}

/**
 * Parses a scripted answer line: `continue-with-evidence: TEXT` carries evidence.
 *
 * @example
 * ```ts
 * parseAnswer('continue-with-evidence: lemma foo now verified'); // { answer: 'continue-with-evidence', evidence: ['lemma foo now verified'] }
 * ```
 */
export function parseAnswer(line: string): { answer: string; evidence: string[] } {
  const m = /^\s*([a-z-]+)\s*(?::\s*(.*))?$/.exec(line);
  if (!m) return { answer: line.trim(), evidence: [] };
  const ev = (m[2] ?? '').trim();
  return { answer: m[1] as string, evidence: ev === '' ? [] : [ev] };
}

/**
 * A human answering from a script, in order; when the script runs out every answer is `stop`.
 * An answer not among the offered options is also taken as `stop` (fail closed).
 *
 * @example
 * ```ts
 * const human = scriptedHuman(['approve', 'continue', 'stop']);
 * ```
 */
export function scriptedHuman(lines: readonly string[], asked: HumanInput[] = []): HumanPort {
  let i = 0;
  return {
    async ask(input) {
      asked.push(input);
      const line = lines[i++];
      const a = line === undefined ? { answer: 'stop', evidence: [] } : parseAnswer(line);
      return input.options.includes(a.answer) ? a : { answer: 'stop', evidence: [] };
    },
  };
}

/**
 * A human answering interactively: writes the question, reads one line per question.
 *
 * @example
 * ```ts
 * const human = lineHuman(async () => rl.question('> '), (t) => process.stderr.write(t));
 * ```
 */
export function lineHuman(readLine: () => Promise<string | null>, write: (text: string) => void): HumanPort {
  return {
    async ask(input) {
      write(`\n? ${input.question}: ${input.summary}\n  options: ${input.options.join(' | ')}\n> `);
      const line = await readLine();
      const a = line === null ? { answer: 'stop', evidence: [] } : parseAnswer(line);
      return input.options.includes(a.answer) ? a : { answer: 'stop', evidence: [] };
    },
  };
}
