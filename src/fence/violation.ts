/**
 * Fence violations (layer 0): what a worker changed in a declaration header it had no right to
 * change. Produced by compareHeaders and fenceCheck, described by describeViolation.
 */

/**
 * Every form of violation:
 * - `changed`: same name, a different statement (or a different kind — then `kindAfter` is set);
 * - `added-hypothesis`: same name, the statement gained binders before its type (`added`);
 * - `renamed`: the name is gone and a new name carries the same kind and statement (`renamedTo`);
 * - `deleted`: the name is gone and nothing new carries its statement;
 * - `added-axiom`: a new `axiom` declaration;
 * - `added-context`: a new `variable`/`include`/`omit` command (changes the statements after it);
 * - `added-declaration`: proof work added a declaration that is not a `theorem`, `lemma` or
 *   `example` (`def`, `instance`, `abbrev`, `opaque`, `structure`, …) without the grant;
 * - `added-command` / `removed-command`: proof work added, removed or moved a command that changes
 *   how statements are read (`set_option`, `open`, `@[…]`, `macro`, `notation`, `#exit`, …);
 *   `declaration` is the fenced declaration the command precedes (`''`: the end of the file),
 *   `kind` the command's keyword, `after`/`before` its text;
 * - `unparseable`: the headers were read before the worker ran and cannot be read after (`detail`).
 *
 * @example
 * ```ts
 * const c: FenceChange = 'added-hypothesis';
 * ```
 */
export type FenceChange =
  | 'changed'
  | 'added-hypothesis'
  | 'renamed'
  | 'deleted'
  | 'added-axiom'
  | 'added-context'
  | 'added-declaration'
  | 'added-command'
  | 'removed-command'
  | 'unparseable';

/**
 * All {@link FenceChange} values, in documentation order.
 *
 * @example
 * ```ts
 * FENCE_CHANGES.includes('deleted'); // true
 * ```
 */
export const FENCE_CHANGES: readonly FenceChange[] = [
  'changed',
  'added-hypothesis',
  'renamed',
  'deleted',
  'added-axiom',
  'added-context',
  'added-declaration',
  'added-command',
  'removed-command',
  'unparseable',
];

/**
 * One violation of the statement fence in one file.
 *
 * `declaration` is the (qualified) name before the worker ran — the new name for `added-*` — and
 * `''` for `unparseable`; `kind` likewise (`''` for `unparseable`). `before`/`after` are the
 * signatures (null where there is none). `line` is the before header's line (the after header's
 * for `added-*`, 0 for `unparseable`).
 *
 * @example
 * ```ts
 * const v: FenceViolation = {
 *   declaration: 't', kind: 'theorem', change: 'changed',
 *   before: '(n : Nat) : n + 0 = n', after: ': True', line: 1,
 * };
 * ```
 */
export interface FenceViolation {
  readonly declaration: string;
  readonly kind: string;
  readonly change: FenceChange;
  readonly before: string | null;
  readonly after: string | null;
  readonly line: number;
  /** `renamed`: the new name. */
  readonly renamedTo?: string;
  /** `changed` by a kind change (`theorem` → `def`): the new kind. */
  readonly kindAfter?: string;
  /** `added-hypothesis`: the binders that were added, in order. */
  readonly added?: readonly string[];
  /** `unparseable`: the extractor's error. */
  readonly detail?: string;
}
