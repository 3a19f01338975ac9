/**
 * Target and working-directory derivation from the resolver bundle and the caller options.
 */
import { TARGET_KINDS, type TargetKind, WORKTREE_NAMESPACE } from './constants.js';
import { envelopeError } from './errors.js';
import { isRecord, nonBlankOrNull, positiveIntOrNull } from './guards.js';
import type { EnvelopeTarget } from './schema.js';

type Rec = Readonly<Record<string, unknown>>;

/**
 * The artifact a bundle targets: `bundle.activeArtifact ?? bundle.canonicalState.target` (an empty
 * record when neither is an object).
 *
 * @example
 * ```ts
 * targetArtifact({ activeArtifact: { kind: 'pr', pr: 7 } }); // { kind: 'pr', pr: 7 }
 * ```
 */
export function targetArtifact(bundle: Rec): Rec {
  const active = bundle.activeArtifact;
  if (active !== undefined && active !== null) return isRecord(active) ? active : {};
  const state = bundle.canonicalState;
  const target = isRecord(state) ? state.target : undefined;
  return isRecord(target) ? target : {};
}

/**
 * The target kind, trimmed and lower-cased, or `null` when it is not one of {@link TARGET_KINDS}.
 *
 * @example
 * ```ts
 * normalizeTargetKind(' PR '); // 'pr'
 * ```
 */
export function normalizeTargetKind(kind: unknown): TargetKind | null {
  if (typeof kind !== 'string') return null;
  const k = kind.trim().toLowerCase();
  return (TARGET_KINDS as readonly string[]).includes(k) ? (k as TargetKind) : null;
}

function fail(message: string, artifact: Rec, field: string): never {
  throw envelopeError('envelope_invalid_target', message, { field, got: artifact[field] ?? null });
}

/**
 * Derives the envelope `target` from a bundle and the normalized repo slug.
 *
 * @example
 * ```ts
 * deriveTarget({ activeArtifact: { kind: 'issue', issue: 42, pr: 0 } }, 'acme/app');
 * // { kind: 'issue', repo: 'acme/app', issue: 42 }
 * ```
 * @throws HandoffError `envelope_invalid_target` when the kind or its required field is missing.
 */
export function deriveTarget(bundle: Rec, repo: string): EnvelopeTarget {
  const a = targetArtifact(bundle);
  const kind = normalizeTargetKind(a.kind);
  if (kind === null) fail('resolver output must include a valid target kind', a, 'kind');
  const target: EnvelopeTarget = { kind, repo };
  const issue = positiveIntOrNull(a.issue);
  const pr = positiveIntOrNull(a.pr);
  switch (kind) {
    case 'issue': {
      if (issue === null) fail('issue target must include a valid positive issue number', a, 'issue');
      target.issue = issue;
      if (pr !== null) target.pr = pr;
      const linkedPr = positiveIntOrNull(a.linkedPr);
      if (linkedPr !== null) target.linkedPr = linkedPr;
      break;
    }
    case 'pr':
      if (pr === null) fail('PR target must include a valid positive PR number', a, 'pr');
      target.pr = pr;
      if (issue !== null) target.issue = issue;
      break;
    case 'local_branch': {
      const branch = nonBlankOrNull(a.branch);
      if (branch === null) fail('local_branch target must include a non-empty branch name', a, 'branch');
      target.branch = branch;
      if (issue !== null) target.issue = issue;
      break;
    }
    case 'local_phase': {
      const phase = nonBlankOrNull(a.phase);
      if (phase === null && issue === null) {
        fail(
          'local_phase target must include a non-empty phase or a valid positive issue number',
          a,
          'phase',
        );
      }
      if (phase !== null) target.phase = phase;
      if (issue !== null) target.issue = issue;
      break;
    }
  }
  return target;
}

/**
 * A path segment made safe: `/` and `\` become `-`, anything outside `[A-Za-z0-9._-]` is dropped.
 *
 * @example
 * ```ts
 * flattenSlugSegment('feat/x y'); // 'feat-xy'
 * ```
 */
export function flattenSlugSegment(s: string): string {
  return s.replace(/[/\\]/g, '-').replace(/[^a-zA-Z0-9._-]/g, '');
}

/**
 * The worktree slug of a target: `issue-N`, `pr-N`, the flattened branch, `phase-<issue>-<phase>`,
 * `phase-<phase>` or `issue-N` for a phase without a name; `null` when none applies.
 *
 * @example
 * ```ts
 * worktreeSlug({ kind: 'local_phase', repo: 'a/b', issue: 3, phase: 'p1' }); // 'phase-3-p1'
 * ```
 */
export function worktreeSlug(target: EnvelopeTarget): string | null {
  switch (target.kind) {
    case 'issue':
      return target.issue === undefined ? null : `issue-${target.issue}`;
    case 'pr':
      return target.pr === undefined ? null : `pr-${target.pr}`;
    case 'local_branch': {
      const slug = target.branch === undefined ? '' : flattenSlugSegment(target.branch);
      return slug === '' ? null : slug;
    }
    case 'local_phase': {
      const phase = target.phase === undefined ? '' : flattenSlugSegment(target.phase);
      if (phase !== '' && target.issue !== undefined) return `phase-${target.issue}-${phase}`;
      if (phase !== '') return `phase-${phase}`;
      return target.issue === undefined ? null : `issue-${target.issue}`;
    }
  }
}

/**
 * The working directory: a trimmed `worktreeCwd` wins; else `<repoRoot>/tmp/worktrees/dev-loops/<slug>`;
 * else `null`.
 *
 * @example
 * ```ts
 * deriveCwd(target, { repoRoot: '/repo' }); // '/repo/tmp/worktrees/dev-loops/issue-42'
 * ```
 */
export function deriveCwd(
  target: EnvelopeTarget,
  options: { readonly repoRoot?: unknown; readonly worktreeCwd?: unknown },
): string | null {
  const explicit = nonBlankOrNull(options.worktreeCwd);
  if (explicit !== null) return explicit;
  const root = nonBlankOrNull(options.repoRoot);
  if (root === null) return null;
  const slug = worktreeSlug(target);
  return slug === null ? null : `${root.replace(/\/+$/, '')}/${WORKTREE_NAMESPACE}/${slug}`;
}
