/**
 * Consumer-side envelope validation: never throws; returns every field-level error (with the
 * offending value echoed in `got`) and the advisory warnings.
 */
import {
  ASYNC_START_MODES,
  EXECUTION_MODES,
  FAIL_CLOSED_DIRECTIVE_PREFIXES,
  HANDOFF_ENVELOPE_VERSION,
  hasFailClosedDirective,
  MERGE_STOP_RULE,
  RECONCILE_CRITERION_ID,
  RECONCILE_STOP_RULE,
  RECONCILE_TUPLE,
  SPEC_SOURCES,
  TARGET_KINDS,
} from './constants.js';
import { isNonBlank, isPositiveInt, isRecord } from './guards.js';
import { normalizeRepoSlug } from './repo-slug.js';

/** One validation error: the field (dotted), why, and the value found. */
export interface EnvelopeValidationError {
  readonly field: string;
  readonly reason: string;
  readonly got: unknown;
}

/** One advisory warning. */
export interface EnvelopeValidationWarning {
  readonly field: string;
  readonly reason: string;
}

/** Result of {@link validateHandoffEnvelope}; `warnings` is omitted when empty. */
export interface EnvelopeValidationResult {
  readonly ok: boolean;
  readonly errors: readonly EnvelopeValidationError[];
  readonly warnings?: readonly EnvelopeValidationWarning[];
}

type Rec = Record<string, unknown>;

class Collector {
  readonly errors: EnvelopeValidationError[] = [];
  readonly warnings: EnvelopeValidationWarning[] = [];
  error(field: string, reason: string, got: unknown): void {
    this.errors.push({ field, reason, got });
  }
  warn(field: string, reason: string): void {
    this.warnings.push({ field, reason });
  }
}

function checkEnum(c: Collector, e: Rec, field: string, values: readonly string[]): void {
  const v = e[field];
  if (v === undefined || v === null) c.error(field, 'must be present', v);
  else if (typeof v !== 'string' || !values.includes(v))
    c.error(field, `must be one of: ${values.join(', ')}`, v);
}

function checkTarget(c: Collector, t: unknown): void {
  if (!isRecord(t)) {
    c.error('target', 'must be a non-array object with kind and repo', t);
    return;
  }
  const kind = t.kind;
  if (typeof kind !== 'string' || !(TARGET_KINDS as readonly string[]).includes(kind)) {
    c.error('target.kind', `must be one of: ${TARGET_KINDS.join(', ')}`, kind);
  }
  if (typeof t.repo !== 'string' || !t.repo.includes('/')) {
    c.error('target.repo', 'must be a non-empty owner/name string', t.repo);
  } else if (normalizeRepoSlug(t.repo) !== t.repo) {
    c.error('target.repo', 'must be a valid normalized repo slug (owner/name)', t.repo);
  }
  if (kind === 'issue' && !isPositiveInt(t.issue))
    c.error('target.issue', 'must be a positive integer', t.issue);
  if (kind === 'pr' && !isPositiveInt(t.pr)) c.error('target.pr', 'must be a positive integer', t.pr);
  if (kind === 'local_branch' && !isNonBlank(t.branch)) {
    c.error('target.branch', 'required for local_branch target kind', t.branch);
  }
  if (kind === 'local_phase' && !isPositiveInt(t.issue) && !isNonBlank(t.phase)) {
    c.error('target.phase', 'required for local_phase target kind without a valid issue', t.phase);
  }
}

function badIndices(list: readonly unknown[], ok: (v: unknown) => boolean): number[] {
  return list.flatMap((v, i) => (ok(v) ? [] : [i]));
}

function checkAcceptance(c: Collector, a: unknown): void {
  if (!isRecord(a)) {
    c.error('acceptance', 'must be a non-array object with a criteria array', a);
    return;
  }
  const criteria = a.criteria;
  if (!Array.isArray(criteria)) {
    c.error('acceptance.criteria', 'must be an array', criteria);
  } else if (criteria.length === 0) {
    c.error('acceptance.criteria', 'must not be empty', criteria);
  } else {
    const bad = badIndices(
      criteria,
      (x) =>
        isRecord(x) &&
        isNonBlank(x.id) &&
        isNonBlank(x.must) &&
        (x.severity === 'required' || x.severity === 'recommended'),
    );
    if (bad.length > 0) {
      c.error(
        'acceptance.criteria',
        `entries at indices [${bad.join(',')}] must have a non-empty id and must, and severity required|recommended`,
        criteria,
      );
    }
  }
}

function checkRetrospective(c: Collector, rf: unknown): void {
  if (rf === undefined || rf === null) return;
  if (!isRecord(rf)) {
    c.error(
      'retrospectiveFindings',
      'if present, must be an object { internalToolingOnly, rawCallViolations, allowedWriteOps }',
      rf,
    );
    return;
  }
  if (typeof rf.internalToolingOnly !== 'boolean') {
    c.error('retrospectiveFindings.internalToolingOnly', 'must be a boolean', rf.internalToolingOnly);
  }
  for (const key of ['rawCallViolations', 'allowedWriteOps'] as const) {
    const v = rf[key];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
      c.error(`retrospectiveFindings.${key}`, 'must be an array of strings', v);
    }
  }
}

function isReconcileEnvelope(e: Rec): boolean {
  return (
    e.routeKind !== undefined ||
    Object.hasOwn(e, 'selectedStrategy') ||
    e.currentGate === RECONCILE_TUPLE.selectedGate
  );
}

function checkReconcile(c: Collector, e: Rec): void {
  if (e.routeKind !== RECONCILE_TUPLE.routeKind) {
    c.error(
      'routeKind',
      `must be "${RECONCILE_TUPLE.routeKind}" on a terminal reconciliation envelope`,
      e.routeKind,
    );
  }
  if (e.selectedStrategy !== null) {
    c.error(
      'selectedStrategy',
      'must be present and null (only the terminal reconciliation tuple carries it)',
      e.selectedStrategy,
    );
  }
  if (e.currentGate !== RECONCILE_TUPLE.selectedGate) {
    c.error(
      'currentGate',
      `must be "${RECONCILE_TUPLE.selectedGate}" on a terminal reconciliation envelope`,
      e.currentGate,
    );
  }
  if (e.worktreeRequired !== false) {
    c.error('worktreeRequired', 'must be false: reconciliation needs no worktree', e.worktreeRequired);
  }
  const rules = e.stopRules;
  const canonical =
    Array.isArray(rules) &&
    rules[0] === RECONCILE_STOP_RULE &&
    (rules.length === 1 || (rules.length === 2 && rules[1] === MERGE_STOP_RULE));
  if (Array.isArray(rules) && !canonical) {
    c.error(
      'stopRules',
      `must be exactly ["${RECONCILE_STOP_RULE}"] or ["${RECONCILE_STOP_RULE}", "${MERGE_STOP_RULE}"]`,
      rules,
    );
  }
  const criteria = isRecord(e.acceptance) ? e.acceptance.criteria : undefined;
  if (
    Array.isArray(criteria) &&
    criteria.length > 0 &&
    !criteria.some((x) => isRecord(x) && x.id === RECONCILE_CRITERION_ID && x.severity === 'required')
  ) {
    c.error('acceptance.criteria', `must include a required "${RECONCILE_CRITERION_ID}" criterion`, criteria);
  }
  if (isNonBlank(e.nextAction) && !hasFailClosedDirective(e.nextAction)) {
    c.error(
      'nextAction',
      `must start with a fail-closed directive (${FAIL_CLOSED_DIRECTIVE_PREFIXES.join(' | ')})`,
      e.nextAction,
    );
  }
}

/**
 * Validates an envelope on the consumer side, before reading `requiredReads` or running
 * `nextAction`. Never throws.
 *
 * @example
 * ```ts
 * const r = validateHandoffEnvelope(JSON.parse(text));
 * if (!r.ok) for (const e of r.errors) report(e.field, e.reason, e.got);
 * ```
 */
export function validateHandoffEnvelope(envelope: unknown): EnvelopeValidationResult {
  const c = new Collector();
  try {
    if (!isRecord(envelope)) {
      return {
        ok: false,
        errors: [{ field: '_root', reason: 'envelope must be a non-null, non-array object', got: envelope }],
      };
    }
    const e = envelope;
    const v = e.handoffVersion;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
      c.error('handoffVersion', `must be a positive integer (current: ${HANDOFF_ENVELOPE_VERSION})`, v);
    } else if (v !== HANDOFF_ENVELOPE_VERSION) {
      c.warn('handoffVersion', `expected version ${HANDOFF_ENVELOPE_VERSION}, got ${v}`);
    }
    checkTarget(c, e.target);
    if (!isNonBlank(e.nextAction)) c.error('nextAction', 'must be a non-empty string', e.nextAction);

    const reads = e.requiredReads;
    if (!Array.isArray(reads)) c.error('requiredReads', 'must be an array', reads);
    else if (reads.length === 0) c.warn('requiredReads', 'array is empty: no files to load');
    else {
      const bad = badIndices(reads, isNonBlank);
      if (bad.length > 0)
        c.error('requiredReads', `entries at indices [${bad.join(',')}] must be non-empty strings`, reads);
    }

    checkAcceptance(c, e.acceptance);

    const rules = e.stopRules;
    if (!Array.isArray(rules)) c.error('stopRules', 'must be an array', rules);
    else {
      const bad = badIndices(rules, (x) => typeof x === 'string');
      if (bad.length > 0)
        c.error('stopRules', `entries at indices [${bad.join(',')}] must be strings`, rules);
    }

    checkEnum(c, e, 'executionMode', EXECUTION_MODES);
    checkEnum(c, e, 'asyncStartMode', ASYNC_START_MODES);
    checkEnum(c, e, 'asyncStartEffective', ASYNC_START_MODES);
    checkRetrospective(c, e.retrospectiveFindings);

    const spec = e.specSource;
    if (
      spec !== undefined &&
      spec !== null &&
      (typeof spec !== 'string' || !(SPEC_SOURCES as readonly string[]).includes(spec))
    ) {
      c.error('specSource', `if present, must be one of ${SPEC_SOURCES.join(', ')}`, spec);
    }

    if (isReconcileEnvelope(e)) checkReconcile(c, e);

    const gs = e.gateState;
    if (!isRecord(gs) || !isNonBlank(gs.derivedAt)) {
      c.warn('gateState.derivedAt', 'should be an ISO 8601 build timestamp');
    }
  } catch (err) {
    c.error('_root', `envelope could not be inspected: ${String(err)}`, null);
  }
  return {
    ok: c.errors.length === 0,
    errors: c.errors,
    ...(c.warnings.length > 0 ? { warnings: c.warnings } : {}),
  };
}
