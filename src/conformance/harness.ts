/**
 * The worker conformance harness (layer 3: temp projects, git, child processes): throws generated
 * valid and malformed dispatches at a worker command, each in a fresh case project (owned and
 * bystander files committed to a git repository, a small run store), and checks every handoff it
 * returns and everything the worker did around it.
 */
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { checkBaseline, recordBaseline } from '../baseline/index.js';
import { type Dispatch, validateDispatch } from '../contract/index.js';
import { HandoffError } from '../errors/index.js';
import { runContained } from '../process/index.js';
import { WORKER_PROTOCOL_VERSION } from '../runtime/worker-framing.js';
import { type CasePlan, planCases } from './case-plan.js';
import { commitCaseRepository } from './case-repository.js';
import { plantRunStore } from './case-store.js';
import { endWatch, startWatch } from './case-watch.js';
import { evaluateCase, handoffOf, needsBaselineCheck, type ReturnedBaselineCheck } from './checks.js';
import { DEFAULT_RUNS, DEFAULT_SEED, DEFAULT_TIMEOUT_MS } from './defaults.js';
import { malformedInput } from './defects.js';
import { BYSTANDER_FILES, type CaseDirectory, layOutProject, tempCaseDirectory } from './project.js';
import {
  type CaseSummary,
  CONFORMANCE_REPORT_SCHEMA,
  type ConformanceReport,
  type Defect,
  type Finding,
} from './report-schema.js';

/** Options of {@link runConformance}. */
export interface ConformanceOptions {
  /** The worker command as an argument array (`['python3', '/abs/worker.py']`); never a shell string. */
  readonly command: readonly string[];
  /** Number of cases (default {@link DEFAULT_RUNS}). */
  readonly runs?: number;
  /** fast-check seed: the same seed plans the same cases (default {@link DEFAULT_SEED}). */
  readonly seed?: number;
  /** Per-case budget; a worker still running then is killed (default {@link DEFAULT_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
  /** Defects for the malformed cases (default: the whole catalogue; empty: only valid cases). */
  readonly defects?: readonly Defect[];
  /** Makes the (empty) project directory of a case (default: mkdtemp under the OS temp dir, removed after). */
  readonly cwdFactory?: (caseId: string) => Promise<CaseDirectory>;
  /** Extra environment for the worker. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Called after each case (progress display). */
  readonly onCase?: (summary: CaseSummary, findings: readonly Finding[]) => void;
}

function sanitizer(roots: readonly string[]): (s: string) => string {
  const rs = [...new Set(roots)].filter((r) => r !== '').sort((a, b) => b.length - a.length);
  return (s) => rs.reduce((acc, r) => acc.split(r).join('<project>'), s);
}

/** A laid-out case project: the dispatch to send and where its git directory and run store are. */
interface PreparedCase {
  readonly dispatch: Dispatch;
  readonly foreign: string;
  readonly gitDirs: readonly string[];
  readonly storeRoot: string;
}

async function prepareCase(plan: CasePlan, root: string): Promise<PreparedCase> {
  const owned = await layOutProject(root, plan.files);
  const gitDirs = await commitCaseRepository(root);
  const baseline = await recordBaseline(owned);
  const dispatch: Dispatch = {
    ...plan.template,
    target: `${owned[0]}:${plan.targetLine}`,
    owned_files: owned,
    file_baseline: baseline,
  };
  const v = validateDispatch(dispatch);
  if (!v.ok) {
    throw new HandoffError('internal', `conformance harness built an invalid dispatch for ${plan.case_id}`, {
      details: { issues: v.issues },
    });
  }
  const storeRoot = await plantRunStore(root, dispatch);
  return { dispatch, foreign: join(root, Object.keys(BYSTANDER_FILES)[0] as string), gitDirs, storeRoot };
}

async function runCase(
  plan: CasePlan,
  o: Required<Pick<ConformanceOptions, 'command' | 'timeoutMs' | 'cwdFactory'>> &
    Pick<ConformanceOptions, 'env'>,
): Promise<{ summary: CaseSummary; findings: Finding[] }> {
  const place = await o.cwdFactory(plan.case_id);
  try {
    // the real path: owned paths are checked for links on their way (no-symlink-swap)
    const root = await realpath(place.dir).catch(() => place.dir);
    const clean = sanitizer([place.dir, root]);
    const { dispatch, foreign, gitDirs, storeRoot } = await prepareCase(plan, root);
    const stdin = malformedInput(plan.defect ?? null, dispatch, {
      foreignBaseline: await recordBaseline([foreign]),
    });
    const watch = await startWatch({ projectRoot: root, gitDirs, storeRoot }, dispatch.owned_files);
    const process = await runContained(o.command, stdin, {
      cwd: root,
      timeoutMs: o.timeoutMs,
      env: { ...(o.env ?? {}), HANDOFF_WORKER_PROTOCOL: WORKER_PROTOCOL_VERSION, HANDOFF_PROJECT_ROOT: root },
    });
    const { changed, containment } = await endWatch(watch);
    const handoff = process.timedOut || process.spawnError !== null ? null : handoffOf(process.stdout);
    let baselineCheck: ReturnedBaselineCheck | undefined;
    if (needsBaselineCheck(plan.kind, handoff) && handoff?.file_baseline) {
      try {
        const c = await checkBaseline(handoff.file_baseline);
        baselineCheck = {
          result: c.result,
          detail: c.entries
            .filter((e) => e.status !== 'unchanged')
            .map((e) => `${e.path}: ${e.status}`)
            .join(', '),
        };
      } catch (e) {
        baselineCheck = { result: 'error', detail: (e as Error).message };
      }
    }
    const evaluation = evaluateCase({
      case_id: plan.case_id,
      kind: plan.kind,
      ...(plan.defect === undefined ? {} : { defect: plan.defect }),
      dispatch,
      process,
      timeoutMs: o.timeoutMs,
      changed,
      containment,
      ...(baselineCheck === undefined ? {} : { baselineCheck }),
    });
    const findings = evaluation.findings.map((f) => ({ ...f, detail: clean(f.detail) }));
    const h = evaluation.handoff;
    const summary: CaseSummary = {
      case_id: plan.case_id,
      kind: plan.kind,
      ...(plan.defect === undefined ? {} : { defect: plan.defect }),
      target: plan.defect === 'not-json' || plan.defect === 'empty-stdin' ? null : clean(dispatch.target),
      exit_code: process.timedOut ? null : process.code,
      status: h?.status ?? null,
      stop_reason: h?.stop_reason ?? null,
      passed: findings.every((f) => f.passed),
    };
    return { summary, findings };
  } finally {
    await place.cleanup();
  }
}

/**
 * Runs the conformance cases against a worker command, one after another, each in a fresh
 * project, and returns the conformance-report/v1 record (deterministic for a given command and
 * seed: temp paths appear as `<project>`, and nothing depends on time except the timeout).
 *
 * @example
 * ```ts
 * const report = await runConformance({ command: ['python3', '/abs/worker.py'], runs: 12, seed: 42 });
 * if (report.failed > 0) for (const f of report.findings.filter((x) => !x.passed)) show(f);
 * ```
 * @throws HandoffError `usage` for an empty command, a bad runs/seed/timeout value.
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  if (options.command.length === 0 || options.command[0] === '') {
    throw new HandoffError('usage', 'conformance needs a worker command');
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
    throw new HandoffError(
      'usage',
      `timeout must be a positive integer of milliseconds, got ${String(timeoutMs)}`,
    );
  }
  const seed = options.seed ?? DEFAULT_SEED;
  const runs = options.runs ?? DEFAULT_RUNS;
  const plans = planCases({
    runs,
    seed,
    ...(options.defects === undefined ? {} : { defects: options.defects }),
  });
  const cases: CaseSummary[] = [];
  const findings: Finding[] = [];
  for (const plan of plans) {
    const r = await runCase(plan, {
      command: options.command,
      timeoutMs,
      cwdFactory: options.cwdFactory ?? tempCaseDirectory,
      ...(options.env === undefined ? {} : { env: options.env }),
    });
    cases.push(r.summary);
    findings.push(...r.findings);
    options.onCase?.(r.summary, r.findings);
  }
  const passed = findings.filter((f) => f.passed).length;
  return {
    schema: CONFORMANCE_REPORT_SCHEMA,
    worker: [...options.command],
    seed,
    runs: plans.length,
    cases,
    passed,
    failed: findings.length - passed,
    findings,
  };
}
