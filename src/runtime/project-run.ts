/**
 * One `handoff run` on a project directory (layer 3): resolves the options, checks the startup
 * conditions (git for checkpoints, a usable scope, the rerun guard against a prior handoff),
 * records the owned files' baseline, assembles the ports (subprocess or in-process worker,
 * built-in or command reviewer/diagnostics, git checkpointer, human) and runs the cycle.
 */

import { mkdtemp, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { combineInspectors, type MachineInspector } from '../../machines/inspector.js';
import { recordBaseline } from '../baseline/index.js';
import type { FileBaseline } from '../baseline/schema.js';
import { type Dispatch, type Handoff, rerunGuard } from '../contract/index.js';
import type { CycleContext, HumanInput } from '../cycle/types.js';
import { tierPlan } from '../cycle/verification-ladder.js';
import { HandoffError } from '../errors/index.js';
import { type ExtractorTable, extractorForFile } from '../fence/index.js';
import { pinRepository } from '../git/index.js';
import { randomHex } from '../ids/index.js';
import { type DomainProfile, leanProfile } from '../profile/index.js';
import { probeSandbox, type SandboxMode, type SandboxNetwork, sandboxDecision } from '../sandbox/index.js';
import { builtinPlanner, builtinReviewer, scriptedHuman } from './builtin-ports.js';
import { commandPlanner } from './command-planner.js';
import { commandDiagnostics, commandReviewer } from './command-ports.js';
import { type CycleFlags, resolveCycleOptions, resolveSandboxFlags } from './cycle-options.js';
import { createDeepSnapshots } from './deep-snapshots.js';
import { createDelegatingWorker } from './delegating-worker.js';
import { createEditRestorer } from './edit-restorer.js';
import { emptyRunVerdict, emptyWhy } from './empty-run.js';
import { citeFinalHandoff, finalCites } from './final-cites.js';
import { createGitCheckpointer, isGitRepo } from './git-checkpointer.js';
import { createMarkerDiagnostics, splitTarget } from './marker-diagnostics.js';
import { ownedSizeViolation } from './owned-files.js';
import { createPatcher } from './patcher-port.js';
import type {
  CheckpointerPort,
  Clock,
  CyclePorts,
  DiagnosticsPort,
  HumanPort,
  PlannerPort,
  ReviewerPort,
} from './ports.js';
import { type PriorRunReuse, reuseStartup } from './prior-run.js';
import { resumeCustodyCheck } from './resume-run.js';
import { type CycleProgress, diagnoseOnLadder, runCycle } from './run-cycle.js';
import { nullRecorder, type RunRecorder } from './run-recorder.js';
import type { FenceResolver } from './statement-fence.js';
import { renderStopSummary } from './stop-summary.js';
import { type InProcessWorker, inProcessTransport, subprocessTransport } from './transports.js';
import { createVerifiedCustody, type VerifiedCustody } from './verified-custody.js';
import { gitDirsOf } from './workspace-watch.js';

/** Options of {@link runProject}. */
export interface ProjectRunOptions {
  readonly projectRoot: string;
  readonly flags: CycleFlags;
  /** The worker: a command (argv, no shell) or an in-process function. */
  readonly worker: { readonly argv: readonly string[] } | { readonly inProcess: InProcessWorker };
  /** Optional inline fallback after a permission denial. */
  readonly inlineWorker?: InProcessWorker;
  readonly reviewerArgv?: readonly string[];
  readonly diagnosticsArgv?: readonly string[];
  /** An in-process diagnostics port (wins over `diagnosticsArgv` and the built-in marker counter). */
  readonly diagnostics?: DiagnosticsPort;
  /** An in-process reviewer port (wins over `reviewerArgv` and the built-in reviewer). */
  readonly reviewer?: ReviewerPort;
  /**
   * `--planner CMD`: a planner command (argv, no shell; docs/worker-protocol.md § Planner command)
   * run under the 30 s planning time box, the built-in planner its fallback.
   */
  readonly plannerArgv?: readonly string[];
  /** An in-process planner port (wins over `plannerArgv` and the built-in planner). */
  readonly planner?: PlannerPort;
  /**
   * An outer synthesis loop is active around this run: a stuck review's `redraft` and `golf`
   * routes are handed to it (`CycleOptions.outerLoop`). Default false.
   */
  readonly outerLoop?: boolean;
  readonly marker?: string;
  readonly human?: HumanPort;
  readonly workerTimeoutMs?: number;
  readonly clock?: Clock;
  readonly runId?: string;
  /** A prior run's handoff: the rerun guard is applied at startup and its blocker carried. */
  readonly priorHandoff?: Handoff | null;
  /**
   * Prior-run reuse (`--persist --prior-run ID`): preview → drift report → approval (prove) or
   * refusal (autoprove) → custody → `start --prior-run` with the run-level first dispatch; needs a
   * `recorder` on the same store. Exclusive with `priorHandoff`.
   */
  readonly priorRun?: PriorRunReuse;
  /** Evidence for relaunching the prior blocker (its evidence_delta). */
  readonly evidence?: readonly string[];
  /** Builds the persistence recorder once the first dispatch is known (default: none). */
  readonly recorder?: RunRecorder;
  readonly onProgress?: (p: CycleProgress) => void;
  /** An xstate inspector attached to the cycle machine's actor (passed to {@link runCycle}). */
  readonly inspect?: MachineInspector;
  /** Each worker progress object as it arrives, with the dispatch it belongs to. */
  readonly onWorkerProgress?: (p: Readonly<Record<string, unknown>>, d: Dispatch) => void;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Header extractors of the statement fence by file extension (`.py` → a command extractor);
   * `.lean` files use the built-in Lean extractor unless overridden here.
   */
  readonly headerExtractors?: ExtractorTable;
  /**
   * Fence grants added to every dispatch's `capabilities` (`fence:new-definitions`, `fence:imports`,
   * …; docs/fence.md § What proof work may add). Default: none — proof work may add only
   * theorems, lemmas, examples and proof text.
   */
  readonly fenceGrants?: readonly string[];
  /**
   * The domain profile (docs/concepts.md): target markers, the check command, whether `.lean`
   * files get the built-in statement fence, the blocker phrases. Default: `leanProfile()` (with
   * `marker` as its marker when given). `marker` and `diagnosticsArgv` still win over it.
   */
  readonly profile?: DomainProfile;
  /**
   * The worker command's sandbox (docs/sandbox.md): `auto` (default; also `flags.sandbox`)
   * sandboxes it when {@link probeSandbox} says this machine and project allow it, else runs with
   * custody only and says why (`onSandboxNote`); `on` refuses to start without it (usage error
   * naming what is missing); `off` runs with custody only. An in-process worker is never
   * sandboxed (`on` refuses it).
   */
  readonly sandbox?: SandboxMode;
  /** `deny` (default; also `flags.sandboxNetwork`): no network in the sandbox; `allow`: the host's. */
  readonly sandboxNetwork?: SandboxNetwork;
  /**
   * Receives the one line `sandbox unavailable: <reason>; running with custody only` when `auto`
   * falls back (the CLI prints it on stderr). Default: it is added to the result's `warnings`.
   */
  readonly onSandboxNote?: (line: string) => void;
  /**
   * Accept an empty run (no target found, no worker dispatched) as `solved` (the CLI's
   * `--allow-empty`). Default false: such a run did nothing and ends `stopped`/`queue-empty`
   * with "no targets found: <why>" as its first failed avenue. `empty` in the result says it
   * either way.
   */
  readonly allowEmpty?: boolean;
}

/** What {@link runProject} returns. */
export interface ProjectRunResult {
  readonly runId: string;
  readonly handoff: Handoff;
  readonly context: CycleContext;
  readonly warnings: readonly string[];
  readonly finalCite: string | null;
  readonly humanQuestions: readonly HumanInput[];
  /** The prior run this run reused (`--prior-run`), else null. */
  readonly priorRun: string | null;
  /**
   * True when the run found no target and dispatched no worker (src/runtime/empty-run.ts): its
   * handoff is then `stopped`/`queue-empty`, or `solved` with `allowEmpty`. The CLI exits 5.
   */
  readonly empty: boolean;
  /** Why an empty run found nothing (the words of its first failed avenue), else null. */
  readonly emptyWhy: string | null;
  /**
   * The persisted run's Markdown stop summary (`<store>/runs/<run_id>/summary.md`, beside the
   * final handoff: what was solved, what is stuck and why, what to do next, with cites), or null
   * (not persisted, or a store without a run directory here).
   */
  readonly summaryPath: string | null;
}

/**
 * A fresh run id: `run-<yyyymmddThhmmss>-<hex>`.
 *
 * @example
 * ```ts
 * newRunId(Date.UTC(2026, 10, 30)); // 'run-20261130T000000-1a2b3c'
 * ```
 */
export function newRunId(nowMs: number = Date.now()): string {
  const iso = new Date(nowMs).toISOString().replace(/[-:]/g, '').slice(0, 15);
  return `run-${iso}-${randomHex(6)}`;
}

async function ownedFilesFor(
  root: string,
  diag: DiagnosticsPort,
  scopeFiles: (() => Promise<string[]>) | null,
  target: string,
  scope: string,
): Promise<string[]> {
  const ladder = tierPlan({ kind: 'discover' });
  const d = await diagnoseOnLadder(diag, {
    question: 'discover',
    tier: ladder.start,
    maxTier: ladder.max,
    files: [],
  });
  const withTargets = [...new Set(d.targets.map((t) => t.file))];
  let rel = withTargets;
  if (rel.length === 0) rel = scopeFiles ? await scopeFiles() : [];
  if (rel.length === 0 && scope !== 'project') rel = [splitTarget(target).file];
  return [...new Set(rel.map((f) => resolve(root, f)))].sort();
}

/**
 * Runs the cycle on a project directory.
 *
 * @example
 * ```ts
 * const r = await runProject({ projectRoot: '/repo', flags: { target: '.', scope: 'project', mode: 'autoprove' },
 *   worker: { argv: ['node', 'solver-worker.js'] } });
 * r.handoff.status;
 * ```
 * @throws HandoffError `usage` (bad options, not a git repo with checkpoints on, empty scope),
 * `rerun_forbidden` when the prior handoff's guard forbids this relaunch, or a prior-run reuse
 * refusal (see {@link reuseStartup}; `details.handoff` when it needs reconciliation).
 */
export async function runProject(o: ProjectRunOptions): Promise<ProjectRunResult> {
  const clock = o.clock ?? Date.now;
  const resolved = resolveCycleOptions({ ...o.flags, inlineFallback: o.inlineWorker !== undefined });
  if (!resolved.ok) throw new HandoffError('usage', resolved.error);
  const sandboxFlags = resolveSandboxFlags({
    sandbox: o.sandbox ?? o.flags.sandbox,
    sandboxNetwork: o.sandboxNetwork ?? o.flags.sandboxNetwork,
  });
  if (!sandboxFlags.ok) throw new HandoffError('usage', sandboxFlags.error);
  const profile = o.profile ?? leanProfile(o.marker === undefined ? {} : { markers: [o.marker] });
  const options = {
    ...resolved.options,
    blockerClasses: profile.blockerClasses,
    ...(o.outerLoop === undefined ? {} : { outerLoop: o.outerLoop }),
  };
  const given = resolve(o.projectRoot);
  const st = await stat(given).catch(() => null);
  if (st === null || !st.isDirectory())
    throw new HandoffError('usage', `--project ${given} is not a directory`);
  // one spelling of every path (custody, reuse reports and dispatches compare them as strings)
  const root = await realpath(given);
  if (o.priorRun !== undefined && (o.recorder === undefined || o.priorHandoff != null)) {
    throw new HandoffError(
      'usage',
      o.recorder === undefined
        ? '--prior-run requires --persist'
        : '--prior-run and --prior-handoff are exclusive',
    );
  }
  if (options.commit !== 'never' && options.checkpoint && !(await isGitRepo(root))) {
    throw new HandoffError(
      'usage',
      `${root} is not a git repository: checkpoints need git (or pass --commit=never)`,
    );
  }
  if (o.priorHandoff) {
    const p = o.priorHandoff;
    const v = rerunGuard(
      {
        target: options.target,
        scope: options.scope,
        mode: options.mode,
        prior_blocker: p.blocker_signature,
        evidence_delta: [...(o.evidence ?? [])],
      },
      p,
    );
    if (v.forbidden) {
      throw new HandoffError('rerun_forbidden', `rerun forbidden: ${v.reason}`, {
        details: {
          branch: v.branch,
          required_evidence: v.required_evidence,
          route: ['review --mode=stuck', 'formalize', 'human handoff'],
        },
      });
    }
  }
  const timeout = o.workerTimeoutMs ?? 600_000;
  // the built-in scan reads the bytes the runtime accepted (the run's custody, once it exists),
  // the disk only for files it holds none of
  const held: RunSetup['held'] = {};
  const marker = createMarkerDiagnostics({
    projectRoot: root,
    target: options.target,
    scope: options.scope,
    markers: o.marker === undefined ? profile.markers : [o.marker],
    errorComment: profile.errorComment,
    hatches: profile.escapeHatches,
    sourceExtensions: profile.sourceExtensions,
    bytesOf: (abs) => held.custody?.verified(abs),
    // the check command runs where the worker runs (sandboxed: the accepted bytes in its layer)
    sandbox: () => held.sandbox ?? null,
    ...(profile.diagnosticsCommand === null
      ? {}
      : { check: { argv: profile.diagnosticsCommand, timeoutMs: timeout } }),
  });
  const diagnostics =
    o.diagnostics ??
    (o.diagnosticsArgv
      ? commandDiagnostics(o.diagnosticsArgv, root, timeout, {
          sandbox: () => held.sandbox ?? null,
          bytesOf: (abs) => held.custody?.verified(abs),
          snapshotFiles: () => held.owned ?? [],
        })
      : marker);
  // the discovery check runs before the owned files (and so the full sandbox decision) are known:
  // it runs sandboxed whenever the worker may be, on the machine's probe alone
  if (sandboxFlags.sandbox !== 'off' && 'argv' in o.worker && (await probeSandbox(root)).available)
    held.sandbox = { network: sandboxFlags.network };
  const owned = await ownedFilesFor(
    root,
    diagnostics,
    diagnostics === marker ? marker.scopeFiles : null,
    options.target,
    options.scope,
  );
  if (owned.length === 0)
    throw new HandoffError('usage', `--target ${options.target} names no files in ${root}`);
  // an owned file over the owned-file limit is never hashed or read: refused before the run
  const oversize = await ownedSizeViolation(owned);
  if (oversize !== null) throw new HandoffError('custody_violation', oversize);
  const sandbox = await decideSandbox(o, root, owned, sandboxFlags.sandbox);
  held.sandbox = sandbox.sandbox ? { network: sandboxFlags.network } : null;
  held.owned = owned;
  const scratch = await mkdtemp(join(tmpdir(), 'handoff-scratch-'));
  try {
    return await runWithin(o, {
      profile,
      root,
      options,
      warnings: sandbox.warning === null ? resolved.warnings : [...resolved.warnings, sandbox.warning],
      owned,
      diagnostics,
      scratch,
      clock,
      held,
      sandbox: held.sandbox,
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

interface RunSetup {
  readonly profile: DomainProfile;
  readonly root: string;
  readonly options: CycleContext['options'];
  readonly warnings: readonly string[];
  readonly owned: string[];
  readonly diagnostics: DiagnosticsPort;
  readonly scratch: string;
  readonly clock: Clock;
  /**
   * What the run's checks read once it exists: the custody (the accepted bytes), the sandbox
   * decision (check commands run where the worker runs) and the owned files.
   */
  readonly held: {
    custody?: VerifiedCustody;
    sandbox?: { readonly network: SandboxNetwork } | null;
    owned?: readonly string[];
  };
  /** The worker command runs sandboxed (with this network policy), or null. */
  readonly sandbox: { readonly network: SandboxNetwork } | null;
}

/**
 * Whether this run's worker command is sandboxed: the mode against the probe of this machine,
 * project and owned files (an in-process worker never is). `warning` is the auto fallback's line when nobody
 * receives it through `onSandboxNote`.
 */
async function decideSandbox(
  o: ProjectRunOptions,
  root: string,
  owned: readonly string[],
  mode: SandboxMode,
): Promise<{ sandbox: boolean; warning: string | null }> {
  if (mode === 'off') return { sandbox: false, warning: null };
  if (!('argv' in o.worker)) {
    if (mode === 'on')
      throw new HandoffError(
        'usage',
        '--sandbox on: an in-process worker cannot be sandboxed (pass a command)',
      );
    return { sandbox: false, warning: null };
  }
  const d = sandboxDecision(mode, await probeSandbox(root, owned));
  if ('refuse' in d) throw new HandoffError('usage', d.refuse);
  if (d.note === null) return { sandbox: d.sandbox, warning: null };
  if (o.onSandboxNote === undefined) return { sandbox: false, warning: d.note };
  o.onSandboxNote(d.note);
  return { sandbox: false, warning: null };
}

async function runWithin(o: ProjectRunOptions, s: RunSetup): Promise<ProjectRunResult> {
  const { root, options, owned, diagnostics, scratch, clock, profile } = s;
  const timeout = o.workerTimeoutMs ?? 600_000;
  const recorder = o.recorder ?? nullRecorder();
  const asked: HumanInput[] = [];
  const baseHuman = o.human ?? scriptedHuman([]);
  const human: HumanPort = {
    async ask(input) {
      asked.push(input);
      return baseHuman.ask(input);
    },
  };
  let baseline: FileBaseline;
  // a resumed run (--resume) continues its journal: started already, its last blocker carried
  const resumed = recorder.resumed ?? null;
  if (resumed !== null && o.priorRun !== undefined)
    throw new HandoffError('usage', '--resume and --prior-run are exclusive');
  let priorHandoff = o.priorHandoff ?? resumed?.priorHandoff ?? null;
  let started = resumed !== null;
  // the recorder's writes, one at a time: a failed write rejects its caller and the next still runs
  let tail: Promise<unknown> = Promise.resolve();
  const inOrder = <T>(write: () => Promise<T>): Promise<T> => {
    const next = tail.then(write);
    tail = next.catch(() => undefined);
    return next;
  };
  if (o.priorRun !== undefined) {
    const reuse = await reuseStartup({
      ...o.priorRun,
      projectRoot: root,
      options,
      owned,
      evidence: o.evidence ?? [],
      human,
      scratch,
    });
    baseline = reuse.baseline;
    priorHandoff = reuse.priorHandoff;
    await recorder.start(reuse.firstDispatch, reuse.prepared);
    started = true;
  } else {
    baseline = await recordBaseline(owned);
    // a resumed run takes custody only of files its journal vouches for
    if (resumed !== null) resumeCustodyCheck(resumed, baseline.files);
  }
  const transport =
    'argv' in o.worker
      ? subprocessTransport(o.worker.argv, {
          cwd: root,
          timeoutMs: timeout,
          ...(o.env === undefined ? {} : { env: o.env }),
          sandbox: s.sandbox,
        })
      : inProcessTransport(o.worker.inProcess);
  // custody of the whole run: what the workers may not touch (project outside the owned files,
  // git control files, the run store) and the verified bytes a checkpoint commits
  const storeDir = recorder.storeDir ?? null;
  const extractors = o.headerExtractors ?? {};
  // the code profile fences only the extensions it is given extractors for
  const fence: FenceResolver = profile.leanHeaders
    ? (file) => extractorForFile(file, extractors)
    : (file) => {
        const ext = extname(file).toLowerCase();
        return ext !== '' && Object.hasOwn(extractors, ext) ? (extractors[ext] ?? null) : null;
      };
  const custody = createVerifiedCustody(
    {
      projectRoot: root,
      gitDirs: await gitDirsOf(root),
      storeRoot: storeDir === null ? null : await realpath(storeDir).catch(() => storeDir),
    },
    fence,
  );
  s.held.custody = custody;
  const planner =
    o.planner ??
    (o.plannerArgv
      ? commandPlanner(o.plannerArgv, root, { fallback: builtinPlanner(), sandbox: s.sandbox })
      : builtinPlanner());
  const reviewer =
    o.reviewer ??
    (o.reviewerArgv
      ? commandReviewer(o.reviewerArgv, root, timeout, { sandbox: s.sandbox })
      : builtinReviewer({
          blockerClasses: profile.blockerClasses,
          deep: options.deep !== 'never',
          repair: true,
        }));
  // deep mode's snapshots and repair mode's patcher work under the run's custody: a rollback hands
  // it the restored bytes, an applied patch its bytes as accepted
  const snapshots = createDeepSnapshots({ projectRoot: root, custody });
  const patcher = createPatcher({ projectRoot: root, custody, fence });
  // the repository and the identity of every checkpoint, pinned before the first dispatch
  const git = createGitCheckpointer(root, custody, await pinRepository(root));
  // files a deep rollback put back (and no later edit re-accepted) are never staged
  const checkpointer: CheckpointerPort = {
    checkpoint: (input) =>
      git.checkpoint({ ...input, files: input.files.filter((f) => !custody.rolledBack(resolve(root, f))) }),
  };
  const ports: CyclePorts = {
    diagnostics,
    planner: {
      async plan(input) {
        const p = await planner.plan(input);
        if (input.kind === 'replan') await recorder.replan(p, input.cycle);
        return p;
      },
    },
    worker: createDelegatingWorker({
      projectRoot: root,
      transport,
      ...(o.inlineWorker ? { inline: inProcessTransport(o.inlineWorker) } : {}),
      scratch,
      custody,
      fence,
      ...(o.fenceGrants?.length ? { capabilities: ['marker-diagnostics', ...o.fenceGrants] } : {}),
      // a batch's dispatches run concurrently: their journal writes go one at a time, in the
      // order they were asked for (the first one starts the run)
      onDispatch: (d: Dispatch) =>
        inOrder(async () => {
          if (started) await recorder.dispatch(d);
          else await recorder.start(d, null);
          started = true;
        }),
      onHandoff: (h: Handoff) => inOrder(() => recorder.handoff(h)),
      onProgress: (p, d) => {
        o.onWorkerProgress?.(p, d);
        return inOrder(() => recorder.progress(p));
      },
    }),
    reviewer: {
      async review(input) {
        const r = await reviewer.review(input);
        await recorder.review(r, input);
        return r;
      },
    },
    checkpointer,
    human,
    snapshots,
    patcher,
  };
  const runId = o.runId ?? newRunId(clock());
  const inspect = combineInspectors(o.inspect, recorder.inspect);
  const r = await runCycle({
    runId,
    options,
    warnings: s.warnings,
    ports,
    filesOwned: owned,
    baseline,
    priorHandoff,
    priorEvidence: o.evidence ?? [],
    clock,
    projectRoot: root,
    // an edit whose `solved` claim did not hold goes back to its pre-dispatch bytes (issue 27 §1)
    editRestorer: createEditRestorer({ projectRoot: root, custody }),
    ...(o.onProgress === undefined ? {} : { onProgress: o.onProgress }),
    ...(inspect === undefined ? {} : { inspect }),
  });
  const stopped = recorder.stopHandoff ?? null;
  // a persisted run's final record cites the journal events it rests on (<run_id>#<seq>)
  const journaled = recorder.journaledHandoffs ?? [];
  const cited = finalCites(journaled, r.context.attempts, resumed?.carried);
  const handoff = stopped ?? (journaled.length === 0 ? r.handoff : citeFinalHandoff(r.handoff, cited));
  const fin = stopped ? { cite: null } : await recorder.finish(handoff);
  // the Markdown stop summary beside the stored final handoff (a failed write is a warning)
  let summaryPath: string | null = null;
  const warnings = [...s.warnings];
  if (recorder.writeSummary !== undefined && recorder.runId !== null) {
    const markdown = renderStopSummary({
      runId: recorder.runId,
      handoff,
      finalCite: fin.cite,
      cited,
      checkpoints: r.context.checkpoints,
    });
    try {
      summaryPath = await recorder.writeSummary(markdown);
    } catch (e) {
      warnings.push(`the stop summary could not be written: ${(e as Error).message}`);
    }
  }
  const why = emptyWhy(
    options.target,
    profile.name,
    o.marker === undefined ? profile.markers : [o.marker],
    o.diagnostics !== undefined || o.diagnosticsArgv !== undefined,
  );
  const verdict = emptyRunVerdict(handoff, r.context, fin.cite, { allowEmpty: o.allowEmpty === true, why });
  return {
    runId: recorder.runId ?? r.runId,
    handoff: verdict.handoff,
    empty: verdict.empty,
    emptyWhy: verdict.empty ? why : null,
    context: r.context,
    warnings,
    finalCite: fin.cite,
    summaryPath,
    humanQuestions: asked,
    priorRun: o.priorRun?.priorRun ?? null,
  };
}
