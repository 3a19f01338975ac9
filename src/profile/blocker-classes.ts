/**
 * A domain's blocker-class vocabulary (layer 1, pure). run-contract/v1 fixes the seven classes a
 * `proof` blocker may carry (`blocker_class`); a domain profile only chooses the human phrases
 * its reviewers use for them and the class assumed when a review names none.
 */
import { BLOCKER_CLASS_PHRASES, type BlockerClass, blockerClassFromPhrase } from '../contract/index.js';

/** A domain's phrases for the seven run-contract/v1 blocker classes, and its fallback class. */
export interface BlockerClassTable {
  /** Human phrase (lower case, single spaces) → class. Every class should have one phrase. */
  readonly phrases: Readonly<Record<string, BlockerClass>>;
  /** The class assumed when neither the review nor the worker names one. */
  readonly fallback: BlockerClass;
}

/**
 * The proof vocabulary (the stuck review's phrases of the Lean proving workflow).
 *
 * @example
 * ```ts
 * LEAN_BLOCKER_CLASSES.phrases['missing library lemma']; // 'missing-library-lemma'
 * ```
 */
export const LEAN_BLOCKER_CLASSES: BlockerClassTable = Object.freeze({
  phrases: BLOCKER_CLASS_PHRASES,
  fallback: 'needs-helper-lemma',
});

/**
 * The same seven classes in the words of ordinary code work: a missing helper function is a
 * `needs-helper-lemma`, an API the dependencies lack is a `missing-library-lemma`, a type error is
 * a `typeclass-coercion-elaboration`, and so on. The proof phrases are understood too.
 *
 * @example
 * ```ts
 * classOfPhrase(CODE_BLOCKER_CLASSES, 'type error'); // 'typeclass-coercion-elaboration'
 * ```
 */
export const CODE_BLOCKER_CLASSES: BlockerClassTable = Object.freeze({
  phrases: Object.freeze({
    'representation mismatch': 'definitional-equality',
    'missing case handling': 'missing-intro-constructor-cases',
    'needs refactoring': 'missing-rewrite',
    'numeric logic': 'arithmetic',
    'missing library api': 'missing-library-lemma',
    'type error': 'typeclass-coercion-elaboration',
    'needs helper function': 'needs-helper-lemma',
  } satisfies Record<string, BlockerClass>),
  fallback: 'needs-helper-lemma',
});

/**
 * Maps a review's phrase to a class: the table's phrases first, then the proof phrases and the
 * kebab-case class names (`blockerClassFromPhrase`); `null` when it names none.
 *
 * @example
 * ```ts
 * classOfPhrase(CODE_BLOCKER_CLASSES, 'Needs helper function'); // 'needs-helper-lemma'
 * classOfPhrase(CODE_BLOCKER_CLASSES, 'missing-rewrite');       // 'missing-rewrite'
 * ```
 */
export function classOfPhrase(table: BlockerClassTable, phrase: string): BlockerClass | null {
  const norm = phrase.trim().toLowerCase().replace(/\s+/g, ' ');
  if (Object.hasOwn(table.phrases, norm)) return table.phrases[norm] ?? null;
  return blockerClassFromPhrase(phrase);
}

/**
 * The table's phrase of a class (the first phrase mapping to it), else the class with spaces.
 *
 * @example
 * ```ts
 * phraseOfClass(CODE_BLOCKER_CLASSES, 'needs-helper-lemma'); // 'needs helper function'
 * ```
 */
export function phraseOfClass(table: BlockerClassTable, cls: BlockerClass): string {
  for (const [phrase, c] of Object.entries(table.phrases)) if (c === cls) return phrase;
  return cls.replace(/-/g, ' ');
}
