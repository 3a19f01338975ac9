/**
 * Enumerations of run-contract/v1 (seed 000 and the reference validator).
 */
import type { z } from 'zod';
import { lazySchema } from '../validation/lazy-schema.js';

/** Schema id of both run-contract records. */
export const RUN_CONTRACT_SCHEMA = 'run-contract/v1';

/** Task scope. */
export const ScopeSchema = lazySchema((z) => z.enum(['sorry', 'deps', 'file', 'changed', 'project']));
/** Proving mode. */
export const ModeSchema = lazySchema((z) => z.enum(['prove', 'autoprove', 'golf']));
/** Worker kind; `null` in a dispatch means an inline main-thread pass. */
export const WorkerSchema = lazySchema((z) =>
  z.enum(['sorry-filler-deep', 'proof-repair', 'proof-golfer', 'axiom-eliminator']),
);
/** Handoff status. */
export const StatusSchema = lazySchema((z) => z.enum(['solved', 'stuck', 'stopped']));
/** Why a run stopped (non-null iff status is `stopped`). */
export const StopReasonSchema = lazySchema((z) =>
  z.enum([
    'max-stuck',
    'max-cycles',
    'max-runtime',
    'user-stop',
    'queue-empty',
    'protocol-error',
    'operational-error',
  ]),
);
/** Kind of blocker behind a blocker-driven stop. */
export const BlockerKindSchema = lazySchema((z) =>
  z.enum(['proof', 'false-statement', 'safety-guard', 'capability', 'protocol', 'operational']),
);
/** The seven proof-triage classes (only with blocker_kind `proof`). */
export const BlockerClassSchema = lazySchema((z) =>
  z.enum([
    'definitional-equality',
    'missing-intro-constructor-cases',
    'missing-rewrite',
    'arithmetic',
    'missing-library-lemma',
    'typeclass-coercion-elaboration',
    'needs-helper-lemma',
  ]),
);
/** The review router's next action. */
export const NextActionSchema = lazySchema((z) =>
  z.enum(['continue', 'deep', 'repair', 'redraft', 'golf', 'stop']),
);

/** Task scope. */
export type Scope = z.infer<typeof ScopeSchema>;
/** Proving mode. */
export type Mode = z.infer<typeof ModeSchema>;
/** Worker kind. */
export type WorkerKind = z.infer<typeof WorkerSchema>;
/** Handoff status. */
export type Status = z.infer<typeof StatusSchema>;
/** Stop reason. */
export type StopReason = z.infer<typeof StopReasonSchema>;
/** Blocker kind. */
export type BlockerKind = z.infer<typeof BlockerKindSchema>;
/** Proof blocker class. */
export type BlockerClass = z.infer<typeof BlockerClassSchema>;
/** Review router next action. */
export type NextAction = z.infer<typeof NextActionSchema>;

/** Stop reasons that are operational aborts (carry their cause in stop_detail). */
export const OPERATIONAL_STOP_REASONS: readonly StopReason[] = ['protocol-error', 'operational-error'];

/**
 * The stuck review's human phrases, mapped to the kebab-case {@link BlockerClass}.
 *
 * @example
 * ```ts
 * BLOCKER_CLASS_PHRASES['missing library lemma']; // 'missing-library-lemma'
 * ```
 */
export const BLOCKER_CLASS_PHRASES: Readonly<Record<string, BlockerClass>> = {
  'definitional equality': 'definitional-equality',
  'missing intro/constructor cases': 'missing-intro-constructor-cases',
  'missing rewrite': 'missing-rewrite',
  arithmetic: 'arithmetic',
  'missing library lemma': 'missing-library-lemma',
  'typeclass/coercion/elaboration': 'typeclass-coercion-elaboration',
  'needs helper lemma': 'needs-helper-lemma',
};

/**
 * Maps a stuck-review phrase ("Missing library lemma", "missing-library-lemma", …) to its enum
 * member, or `null` when it names none.
 *
 * @example
 * ```ts
 * blockerClassFromPhrase('Needs helper lemma'); // 'needs-helper-lemma'
 * ```
 */
export function blockerClassFromPhrase(phrase: string): BlockerClass | null {
  const norm = phrase.trim().toLowerCase().replace(/\s+/g, ' ');
  const direct = BlockerClassSchema.safeParse(norm);
  if (direct.success) return direct.data;
  if (Object.hasOwn(BLOCKER_CLASS_PHRASES, norm)) return BLOCKER_CLASS_PHRASES[norm] ?? null;
  const slug = norm.replace(/[^a-z]+/g, '-').replace(/^-|-$/g, '');
  const bySlug = BlockerClassSchema.safeParse(slug);
  return bySlug.success ? bySlug.data : null;
}
