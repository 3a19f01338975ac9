/**
 * The worker conformance harness (layer 3: temp projects, git, child processes): throws generated
 * valid and malformed dispatches at a worker — a command, or an in-process worker as `delegate`
 * takes it — each in a fresh case project (owned and bystander files committed to a git
 * repository, a small run store), and checks every handoff it returns and everything the worker
 * did around it.
 */
import { readFile, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { checkBaseline, recordBaseline } from '../baseline/index.js';
import { deepFreeze } from '../canonical/index.js';
import { type Dispatch, type Handoff, validateDispatch, validateHandoff } from '../contract/index.js';
import { type Detached, detachAnswer } from '../delegate/detach.js';
import { type DelegateFn, type DelegateWorker, runWorker } from '../delegate/run-worker.js';
import { HandoffError } from '../errors/index.js';
import { type ContainedResult, runContained } from '../process/index.js';
import { WORKER_PROTOCOL_VERSION } from '../runtime/worker-framing.js';
import { applyLayerFiles, runSandboxed, type SandboxNetwork } from '../sandbox/index.js';
import { answerChange, notPlainData } from './answer-shape.js';
import { type CasePlan, planCases } from './case-plan.js';
import { commitCaseRepository } from './case-repository.js';
import { plantRunStore } from './case-store.js';
import { type CaseWatchResult, endWatch, startWatch } from './case-watch.js';
import {
  evaluateCase,
  handoffOf,
  type InProcessAnswer,
  needsBaselineCheck,
  type ReturnedBaselineCheck,
} from './checks.js';
import { DEFAULT_RUNS, DEFAULT_SEED, DEFAULT_TIMEOUT_MS } from './defaults.js';
import { malformedInput } from './defects.js';
import { BYSTANDER_FILES, type CaseDirectory, layOutProject, tempCaseDirectory } from './project.js';
import {
  type CaseSummary,
  CONFORMANCE_REPORT_SCHEMA,
  type ConformanceReport,
  type ConformanceRole,
  type Defect,
  type Finding,
  NOT_APPLICABLE,
} from './report-schema.js';
import type { RoleObservation } from './role-checks.js';
import { CONFORMANCE_FALSIFY_POLICY, withRole } from './role-dispatch.js';
import { classifyDiscards, type SandboxDiscards } from './sandbox-discards.js';

/**
 * Options of {@link runConformance}: the worker is a `command` or an in-process `worker`
 * (exactly one of them).
 *
 * @example
 * ```ts
 * const o: ConformanceOptions = { worker: async (d) => myAgent(d), name: 'my-agent', runs: 12 };
 * ```
 */
export interface ConformanceOptions {
  /** The worker command as an argument array (`['python3', '/abs/worker.py']`); never a shell string. */
  readonly command?: readonly string[];
  /**
   * An in-process worker, as `delegate` takes it: an async function `(dispatch, { signal }) =>
   * handoff` or an object with such a `run` method. It receives the dispatch deep-frozen (a
   * malformed case: the value the damaged text parses to, or the text itself when it is not
   * JSON), with the owned paths absolute; the working directory and environment are not changed.
   */
  readonly worker?: DelegateWorker;
  /** The in-process worker's name in the report (`['<in-process>', name]`; default `worker`). */
  readonly name?: string;
  /** Number of cases (default {@link DEFAULT_RUNS}). */
  readonly runs?: number;
  /** fast-check seed: the same seed plans the same cases (default {@link DEFAULT_SEED}). */
  readonly seed?: number;
  /** Per-case budget; a worker still running then is killed (default {@link DEFAULT_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
  /** Defects for the malformed cases (default: the whole catalogue; empty: only valid cases). */
  readonly defects?: readonly Defect[];
  /**
   * The role every case is sent in (default `fill`): `repair` sends a `proof-repair` dispatch and
   * adds the repair checks, `falsify` a falsification pass and the `falsify-no-negation` check.
   */
  readonly role?: ConformanceRole;
  /** Makes the (empty) project directory of a case (default: mkdtemp under the OS temp dir, removed after). */
  readonly cwdFactory?: (caseId: string) => Promise<CaseDirectory>;
  /**
   * Run a worker command in the sandbox (src/sandbox; decide with `probeSandbox` first): the case
   * project read-only under a private writable layer; its owned files' changes are applied to the
   * case project (so the checks judge them as before), everything else it wrote is discarded and
   * reported by the check it belongs to (`writes outside the owned files (discarded by the
   * sandbox): …`). Omitted or null: contained only. Not used for an in-process worker.
   */
  readonly sandbox?: { readonly network: SandboxNetwork } | null;
  /** Extra environment for a worker command (not used for an in-process worker). */
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
  const dispatch: Dispatch = withRole(
    {
      ...plan.template,
      target: `${owned[0]}:${plan.targetLine}`,
      owned_files: owned,
      file_baseline: baseline,
    },
    plan.role,
    root,
  );
  const v = validateDispatch(dispatch);
  if (!v.ok) {
    throw new HandoffError('internal', `conformance harness built an invalid dispatch for ${plan.case_id}`, {
      details: { issues: v.issues },
    });
  }
  const storeRoot = await plantRunStore(root, dispatch);
  return { dispatch, foreign: join(root, Object.keys(BYSTANDER_FILES)[0] as string), gitDirs, storeRoot };
}

/** The worker to run, resolved from the options. */
type Runner =
  | { readonly kind: 'command'; readonly command: readonly string[] }
  | { readonly kind: 'in-process'; readonly worker: DelegateWorker };

/**
 * What an in-process worker receives on a malformed case: the value the damaged text parses to,
 * or the text itself when it is not JSON ('' for empty stdin).
 */
function inProcessInput(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Runs an in-process worker through src/delegate's `runWorker` (the time budget, anything thrown
 * described safely, a thenable whose `then` throws) and reads its answer once, the moment it
 * arrives, with `detachAnswer` — then again after the case, to see whether it changed.
 */
async function runInProcess(
  worker: DelegateWorker,
  input: unknown,
  timeoutMs: number,
  afterRun: () => Promise<void>,
): Promise<InProcessAnswer> {
  let settled: 'returned' | 'threw' | null = null;
  let raw: unknown;
  let arrival: Detached = { ok: false, detail: 'no answer' };
  let notPlain: string | null = null;
  const fn: DelegateFn = async (d, context) => {
    try {
      const answer: unknown = await (typeof worker === 'function'
        ? worker(d, context)
        : (worker as { run(d: unknown, c: unknown): unknown }).run(d, context));
      // read at once: nothing the worker scheduled has run yet
      raw = answer;
      notPlain = notPlainData(answer);
      arrival = detachAnswer(answer);
      settled = 'returned';
    } catch (e) {
      settled = 'threw';
      throw e;
    }
    // nothing for runWorker to read: the harness judges its own copy
    return undefined;
  };
  const attempt = await runWorker(fn, input as Dispatch, { timeoutMs });
  await afterRun();
  if (attempt.kind === 'failed') {
    return {
      outcome: settled === null ? 'timed-out' : 'threw',
      detail: attempt.failure.detail,
      value: undefined,
      unreadable: null,
      notPlain: null,
      changedLater: null,
    };
  }
  // read again, after the case's own I/O let every timer and callback the worker left run
  await new Promise<void>((resolve) => setImmediate(resolve));
  const got = arrival as Detached;
  const shape = notPlain as string | null;
  return {
    outcome: 'returned',
    detail: '',
    value: got.ok ? got.value : undefined,
    unreadable: got.ok ? null : got.detail,
    notPlain: shape,
    changedLater: shape === null ? answerChange(got, detachAnswer(raw)) : null,
  };
}

/**
 * What the role checks of a valid repair or falsify case judge: the first owned file's text
 * before (as planned) and after the worker (read only when no owned path was swapped: never
 * through a planted link); undefined for `fill` and for malformed cases.
 */
async function roleObservation(
  plan: CasePlan,
  root: string,
  dispatch: Dispatch,
  ownedSwap: string | null,
): Promise<RoleObservation | undefined> {
  if (plan.role === 'fill' || plan.kind !== 'valid') return undefined;
  const first = dispatch.owned_files[0] as string;
  const targetAfter = ownedSwap === null ? await readFile(first, 'utf8').catch(() => null) : null;
  return {
    role: plan.role,
    projectRoot: root,
    targetLine: plan.targetLine,
    policy: CONFORMANCE_FALSIFY_POLICY,
    targetBefore: plan.files[0]?.content ?? '',
    targetAfter,
  };
}

async function runCase(
  plan: CasePlan,
  o: {
    readonly runner: Runner;
    readonly timeoutMs: number;
    readonly cwdFactory: (caseId: string) => Promise<CaseDirectory>;
  } & Pick<ConformanceOptions, 'env' | 'sandbox'>,
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
    let ran: { process: ContainedResult } | { answer: InProcessAnswer };
    let watched: CaseWatchResult | undefined;
    let handoff: Handoff | null;
    let discarded: SandboxDiscards | undefined;
    if (o.runner.kind === 'command') {
      const contained = {
        timeoutMs: o.timeoutMs,
        env: {
          ...(o.env ?? {}),
          HANDOFF_WORKER_PROTOCOL: WORKER_PROTOCOL_VERSION,
          HANDOFF_PROJECT_ROOT: root,
        },
      };
      const sandbox = o.sandbox ?? null;
      let process: ContainedResult;
      if (sandbox === null) {
        process = await runContained(o.runner.command, stdin, { ...contained, cwd: root });
      } else {
        const r = await runSandboxed(o.runner.command, stdin, {
          ...contained,
          projectRoot: root,
          owned: dispatch.owned_files,
          network: sandbox.network,
          // the checks judge a deleted owned file as they do without the sandbox
          allowDelete: true,
          ...(isAbsolute(dispatch.context.scratch_location)
            ? { privateDirs: [dispatch.context.scratch_location] }
            : {}),
        });
        const failed = r.layerError === null ? await applyLayerFiles(r.files) : [];
        const unapplied = [
          ...(r.layerError === null ? [] : [`(${r.layerError})`]),
          ...failed.map((f) => `${f} (cannot apply the owned file from the layer)`),
        ];
        const rel = (p: string) => relative(root, p).split(sep).join('/');
        const found = classifyDiscards(r.plan.discarded, {
          owned: new Set(dispatch.owned_files.map(rel)),
          storeDir: rel(storeRoot),
        });
        discarded = { ...found, other: [...found.other, ...unapplied] };
        process = r;
      }
      watched = await endWatch(watch);
      handoff = process.timedOut || process.spawnError !== null ? null : handoffOf(process.stdout);
      ran = { process };
    } else {
      const input = deepFreeze(plan.defect === undefined ? dispatch : inProcessInput(stdin));
      const answer = await runInProcess(o.runner.worker, input, o.timeoutMs, async () => {
        watched = await endWatch(watch);
      });
      const v =
        answer.unreadable === null && answer.outcome === 'returned' ? validateHandoff(answer.value) : null;
      handoff = v?.ok ? v.value : null;
      ran = { answer };
    }
    const { changed, containment: observed } = watched as CaseWatchResult;
    const containment = discarded === undefined ? observed : { ...observed, discarded };
    const role = await roleObservation(plan, root, dispatch, containment.ownedSwap);
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
      ...ran,
      timeoutMs: o.timeoutMs,
      changed,
      containment,
      ...(baselineCheck === undefined ? {} : { baselineCheck }),
      ...(role === undefined ? {} : { role }),
    });
    const findings = evaluation.findings.map((f) => ({ ...f, detail: clean(f.detail) }));
    const h = evaluation.handoff;
    const summary: CaseSummary = {
      case_id: plan.case_id,
      kind: plan.kind,
      ...(plan.defect === undefined ? {} : { defect: plan.defect }),
      target: plan.defect === 'not-json' || plan.defect === 'empty-stdin' ? null : clean(dispatch.target),
      exit_code: 'process' in ran ? (ran.process.timedOut ? null : ran.process.code) : null,
      status: h?.status ?? null,
      stop_reason: h?.stop_reason ?? null,
      passed: findings.every((f) => f.passed),
    };
    return { summary, findings };
  } finally {
    await place.cleanup();
  }
}

function runnerOf(options: ConformanceOptions): Runner {
  const { command, worker } = options;
  if (command !== undefined && worker !== undefined) {
    throw new HandoffError('usage', 'conformance takes a worker command or an in-process worker, not both');
  }
  if (worker !== undefined) {
    const ok =
      typeof worker === 'function' || (typeof worker === 'object' && worker !== null && 'run' in worker);
    if (!ok)
      throw new HandoffError(
        'usage',
        'the in-process worker must be a function or an object with a run method',
      );
    return { kind: 'in-process', worker };
  }
  if (command === undefined || command.length === 0 || command[0] === '') {
    throw new HandoffError('usage', 'conformance needs a worker command');
  }
  return { kind: 'command', command };
}

/**
 * Runs the conformance cases against a worker — a command, or an in-process worker (a function
 * or an object with a `run` method, as `delegate` takes it) — one after another, each in a fresh
 * project, and returns the conformance-report/v1 record (deterministic for a given worker and
 * seed: temp paths appear as `<project>`, and nothing depends on time except the timeout). The
 * checks a kind of worker cannot be rated on are listed in the report's `not_applicable`, never
 * counted as passed.
 *
 * @example
 * ```ts
 * const report = await runConformance({ command: ['python3', '/abs/worker.py'], runs: 12, seed: 42 });
 * if (report.failed > 0) for (const f of report.findings.filter((x) => !x.passed)) show(f);
 * const mine = await runConformance({ worker: async (d) => myAgent(d), name: 'my-agent' });
 * ```
 * @throws HandoffError `usage` for no worker (or both kinds), an empty command, a bad
 * runs/seed/timeout value.
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const runner = runnerOf(options);
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
    ...(options.role === undefined ? {} : { role: options.role }),
  });
  const cases: CaseSummary[] = [];
  const findings: Finding[] = [];
  for (const plan of plans) {
    const r = await runCase(plan, {
      runner,
      timeoutMs,
      cwdFactory: options.cwdFactory ?? tempCaseDirectory,
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.sandbox == null ? {} : { sandbox: options.sandbox }),
    });
    cases.push(r.summary);
    findings.push(...r.findings);
    options.onCase?.(r.summary, r.findings);
  }
  const passed = findings.filter((f) => f.passed).length;
  return {
    schema: CONFORMANCE_REPORT_SCHEMA,
    worker: runner.kind === 'command' ? [...runner.command] : ['<in-process>', options.name ?? 'worker'],
    worker_kind: runner.kind,
    not_applicable: NOT_APPLICABLE[runner.kind].map((n) => ({ ...n })),
    seed,
    ...(options.role === undefined || options.role === 'fill' ? {} : { role: options.role }),
    runs: plans.length,
    cases,
    passed,
    failed: findings.length - passed,
    findings,
  };
}
