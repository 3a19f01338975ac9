/**
 * conformance-report/v1 (layer 0, pure): the record the worker conformance harness returns. One
 * finding per check per case; deterministic for a given worker command and seed.
 */
import { z } from 'zod';

/**
 * Schema id of the report.
 *
 * @example
 * ```ts
 * report.schema === CONFORMANCE_REPORT_SCHEMA; // 'conformance-report/v1'
 * ```
 */
export const CONFORMANCE_REPORT_SCHEMA = 'conformance-report/v1';

/**
 * The malformed-dispatch catalogue: each defect turns a valid dispatch (or its text) into input a
 * conforming worker must answer with a protocol-error handoff.
 *
 * @example
 * ```ts
 * await runConformance({ command, defects: DEFECTS.filter((d) => d !== 'empty-stdin') });
 * ```
 */
export const DEFECTS = [
  'not-json',
  'truncated-json',
  'wrong-schema-id',
  'missing-context-member',
  'inline-with-parameters',
  'baseline-not-covering',
  'boolean-for-int',
  'unknown-key',
  'empty-stdin',
] as const;

/**
 * The checks, in the order the harness applies them. `spawn` and `timeout` apply to every case;
 * then the containment checks `no-lingering-process`, `git-unchanged`, `store-untouched`,
 * `no-symlink-swap` and `headers-unchanged` (the last only when `no-symlink-swap` passed) to every
 * case whose worker ran to its end, whatever it printed; `framing`, `progress-valid`,
 * `handoff-valid` and `terminal-safe` to every case; `protocol-error` and `no-file-changed` to
 * malformed cases; the rest to valid cases (`patch-only-baseline` only when files_changed is
 * empty, `baseline-advances-reported` only when it is not, `search-budget` only when the dispatch
 * grants a `search-budget:N`). A worker kind applies only its own checks: `spawn`,
 * `no-lingering-process`, `framing` and `progress-valid` are a command's; `returned`,
 * `plain-answer` and `answer-stable` (the last only when `plain-answer` passed) an in-process
 * worker's — the report lists the others as not applicable ({@link NOT_APPLICABLE}).
 *
 * @example
 * ```ts
 * const failing = CHECKS.filter((c) => report.findings.some((f) => f.check === c && !f.passed));
 * ```
 */
export const CHECKS = [
  'spawn',
  'timeout',
  'no-lingering-process',
  'git-unchanged',
  'store-untouched',
  'no-symlink-swap',
  'headers-unchanged',
  'framing',
  'returned',
  'progress-valid',
  'plain-answer',
  'answer-stable',
  'handoff-valid',
  'terminal-safe',
  'protocol-error',
  'no-file-changed',
  'valid-accepted',
  'identity-echoed',
  'files-owned',
  'files-changed-owned',
  'unowned-unchanged',
  'baseline-covers-owned',
  'baseline-matches-disk',
  'patch-only-baseline',
  'baseline-advances-reported',
  'search-budget',
  'repair-patch-only',
  'repair-one-diff',
  'repair-diff-owned',
  'falsify-no-negation',
] as const;

/**
 * The worker roles a conformance run can send (`--role`): `fill` (the ordinary sorry-filling
 * dispatch, the default), `repair` (a `proof-repair` dispatch: the worker must answer with one
 * unified diff and edit nothing) and `falsify` (a falsification pass that may not prove the
 * negation of the target while its sorry stays).
 *
 * @example
 * ```ts
 * CONFORMANCE_ROLES.includes('repair'); // true
 * ```
 */
export const CONFORMANCE_ROLES = ['fill', 'repair', 'falsify'] as const;

/**
 * A role of {@link CONFORMANCE_ROLES}.
 *
 * @example
 * ```ts
 * const role: ConformanceRole = 'falsify';
 * ```
 */
export type ConformanceRole = (typeof CONFORMANCE_ROLES)[number];

/**
 * The checks each role adds (applied to valid cases only): a run in another role has no finding
 * for them.
 *
 * @example
 * ```ts
 * ROLE_CHECKS.repair; // ['repair-patch-only', 'repair-one-diff', 'repair-diff-owned']
 * ```
 */
export const ROLE_CHECKS: Readonly<Record<ConformanceRole, readonly (typeof CHECKS)[number][]>> = {
  fill: [],
  repair: ['repair-patch-only', 'repair-one-diff', 'repair-diff-owned'],
  falsify: ['falsify-no-negation'],
};

/**
 * The kinds of worker the harness runs: a `command` (a child process speaking the worker
 * protocol) or an `in-process` worker (a function or an object with a `run` method, as
 * `delegate` takes).
 *
 * @example
 * ```ts
 * report.worker_kind === 'in-process';
 * ```
 */
export const WORKER_KINDS = ['command', 'in-process'] as const;

/**
 * The checks that do not apply to a kind of worker, each with the reason (the report's
 * `not_applicable`).
 *
 * @example
 * ```ts
 * NOT_APPLICABLE['in-process'].map((n) => n.check); // ['spawn', 'no-lingering-process', 'framing', 'progress-valid']
 * ```
 */
export const NOT_APPLICABLE: Readonly<
  Record<
    (typeof WORKER_KINDS)[number],
    readonly { readonly check: (typeof CHECKS)[number]; readonly reason: string }[]
  >
> = {
  command: [
    { check: 'returned', reason: 'an in-process worker check: a command answers on stdout (framing)' },
    {
      check: 'plain-answer',
      reason: 'an in-process worker check: a command answers with JSON text, always plain data',
    },
    {
      check: 'answer-stable',
      reason: 'an in-process worker check: a command cannot change its answer once printed',
    },
  ],
  'in-process': [
    { check: 'spawn', reason: 'no process is started: the worker is a function in this process' },
    {
      check: 'no-lingering-process',
      reason: 'no process of its own to outlive it; promises and timers it leaves running are not observed',
    },
    { check: 'framing', reason: 'no stdout: the worker returns its answer as a value' },
    { check: 'progress-valid', reason: 'no stdout: an in-process worker prints no progress lines' },
  ],
};

/**
 * A defect of the malformed catalogue.
 *
 * @example
 * ```ts
 * DefectSchema.parse('not-json');
 * ```
 */
export const DefectSchema = z.enum(DEFECTS);
/**
 * A check id.
 *
 * @example
 * ```ts
 * CheckSchema.parse('framing');
 * ```
 */
export const CheckSchema = z.enum(CHECKS);

/**
 * One check of one case.
 *
 * @example
 * ```ts
 * FindingSchema.parse({ case_id: 'case-01', kind: 'valid', check: 'spawn', passed: true, detail: 'started' });
 * ```
 */
export const FindingSchema = z.strictObject({
  case_id: z.string().min(1),
  kind: z.enum(['valid', 'malformed']),
  defect: DefectSchema.optional(),
  check: CheckSchema,
  passed: z.boolean(),
  detail: z.string(),
});

/**
 * The summary of one case: what was sent and whether every check passed.
 *
 * @example
 * ```ts
 * report.cases.filter((c) => !CaseSummarySchema.parse(c).passed);
 * ```
 */
export const CaseSummarySchema = z.strictObject({
  case_id: z.string().min(1),
  kind: z.enum(['valid', 'malformed']),
  defect: DefectSchema.optional(),
  /** Target of the dispatch sent (project-relative form `<project>/…`); null for non-JSON input. */
  target: z.string().nullable(),
  /** The worker's exit code; null when killed, timed out or not started. */
  exit_code: z.number().int().nullable(),
  /** The handoff's status and stop_reason when a valid handoff came back. */
  status: z.string().nullable(),
  stop_reason: z.string().nullable(),
  passed: z.boolean(),
});

/**
 * The conformance-report/v1 record.
 *
 * @example
 * ```ts
 * ConformanceReportSchema.safeParse(JSON.parse(stdout)).success;
 * ```
 */
export const ConformanceReportSchema = z.strictObject({
  schema: z.literal(CONFORMANCE_REPORT_SCHEMA),
  /** The worker command (argument array); for an in-process worker `['<in-process>', name]`. */
  worker: z.array(z.string()).min(1),
  /** The kind of worker (absent in reports of earlier versions: `command`). */
  worker_kind: z.enum(WORKER_KINDS).optional(),
  /** The checks this kind of worker is not rated on, with the reason: never counted as passed. */
  not_applicable: z.array(z.strictObject({ check: CheckSchema, reason: z.string() })).optional(),
  seed: z.number().int(),
  /** The role every case's dispatch was sent in (absent: `fill`, as in reports of earlier versions). */
  role: z.enum(CONFORMANCE_ROLES).optional(),
  /** Number of cases run. */
  runs: z.number().int().min(0),
  cases: z.array(CaseSummarySchema),
  /** Number of findings (checks) that passed. */
  passed: z.number().int().min(0),
  /** Number of findings (checks) that failed. */
  failed: z.number().int().min(0),
  findings: z.array(FindingSchema),
});

/** A malformed-dispatch defect. */
export type Defect = z.infer<typeof DefectSchema>;
/** A check id. */
export type CheckId = z.infer<typeof CheckSchema>;
/** One finding. */
export type Finding = z.infer<typeof FindingSchema>;
/** One case summary. */
export type CaseSummary = z.infer<typeof CaseSummarySchema>;
/** A kind of worker: `command` or `in-process`. */
export type WorkerKind = (typeof WORKER_KINDS)[number];
/** A conformance-report/v1 record. */
export type ConformanceReport = z.infer<typeof ConformanceReportSchema>;
