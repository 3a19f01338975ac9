/**
 * The gate shell (effects): runs the worker command, then drives `machines/gate` with real actors
 * — the git collector, exact checks against the live tree, the evaluator port, routing, the
 * ledger (the only grantor) and the continuation worker — and returns the lead packet. Every
 * record is written to a content-addressed record directory and linked from the lead packet.
 */
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createActor, fromPromise, toPromise } from 'xstate';
import {
  type GateActorInput,
  type GateMachineOutput,
  gateMachine,
  gateOutput,
  type ReserveOutput,
} from '../../machines/gate.js';
import { combineInspectors, type MachineInspector } from '../../machines/inspector.js';
import { createTraceCollector } from '../audit/index.js';
import { sha256Hex } from '../canonical/index.js';
import { HandoffError } from '../errors/index.js';
import { runContained } from '../process/index.js';
import { applyLayerFiles, discardedViolation, runSandboxed, type SandboxNetwork } from '../sandbox/index.js';
import type { Assessment } from './assessment-schema.js';
import type { Authority } from './authority-schema.js';
import { collectEvidence, currentCandidate, repoRoot } from './collector.js';
import type { TaskContract } from './contract-schema.js';
import {
  type AssessmentStore,
  type EvaluatorPort,
  memoryAssessmentStore,
  runEvaluator,
} from './evaluator.js';
import { buildEvaluatorRequest } from './evaluator-protocol.js';
import type { EvidencePacket, ExecutionInput } from './evidence-schema.js';
import { type ExactCheckResult, exactChecks } from './exact-checks.js';
import type { Grant } from './grant-schema.js';
import { continuationKey } from './ids.js';
import { buildLeadPacket } from './lead-packet.js';
import type { LeadPacket } from './lead-packet-schema.js';
import type { Ledger } from './ledger.js';
import { reservationBasis } from './reservation-basis.js';
import { decideRoute } from './route.js';
import type { RouteDecision, Thresholds } from './route-schema.js';
import { gateWorkerMay } from './sandbox-scope.js';
import {
  GATE_WORKER_REQUEST_SCHEMA,
  parseWorkerOutput,
  type WorkerRequest,
  type WorkerResult,
} from './worker-protocol.js';

/** Options of {@link runGate}. */
export interface RunGateOptions {
  readonly repo: string;
  readonly contract: TaskContract;
  readonly ledger: Ledger;
  readonly evaluator: EvaluatorPort | null;
  /** The worker command (argument vector); run in the repository root. */
  readonly worker: readonly string[];
  /** Optional verification command the gate runs itself (trusted provenance bound to the candidate). */
  readonly check?: readonly string[] | undefined;
  /** Operations the check command performs (e.g. `test:unit`). */
  readonly checkOperations?: readonly string[] | undefined;
  readonly authority: Authority;
  readonly thresholds: Thresholds;
  /** ISO clock. */
  readonly now: () => string;
  /** Where records are written by id (default `<repo>/.handoff/gate/records`). */
  readonly recordsDir?: string | undefined;
  readonly assessmentStore?: AssessmentStore | undefined;
  /** Register the problem's ledger history if none exists (the lead's act of creating the task). */
  readonly register?: boolean | undefined;
  /** A lead directive id: run as a lead-directed attempt (needed once the problem went to the lead). */
  readonly directive?: string | undefined;
  /**
   * Run the worker and the check command in the sandbox (src/sandbox; decide with `probeSandbox`
   * and `sandboxDecision` first): the repository is seen read-only under a private writable layer.
   * The worker's writes to paths `allowed_writes` matches reach the tree; everything else it wrote
   * (other files, `.git/…`, `.handoff/…`, `$HOME`) is discarded, named in the lead packet's notes
   * and a `scope_violation` of the exact checks. A check command changes nothing: its writes are
   * discarded and named in the notes. Omitted or null: contained only (today's behaviour).
   */
  readonly sandbox?: { readonly network: SandboxNetwork } | null | undefined;
  /** Per-worker-run time limit in ms (default 10 minutes). */
  readonly workerTimeoutMs?: number | undefined;
  /**
   * An xstate inspector attached to the gate machine's actor (`createActor(machine, { inspect })`):
   * it sees every event, snapshot and invoked actor of the lifecycle.
   */
  readonly inspect?: MachineInspector | undefined;
  /** Who asks the ledger (recorded on grants; informational — slots are keyed by problem, default `gate-run`). */
  readonly requestedBy?: string | undefined;
  /**
   * Record the gate machine's transitions on the ledger entries the run writes (default true, when
   * the ledger can trace: `Ledger.traced`): each entry carries the steps since the run's previous
   * entry, the first marked `start`, and `handoff audit --gate-ledger` replays them. `false`: untraced.
   */
  readonly trace?: boolean | undefined;
}

/** Result of {@link runGate}. */
export interface RunGateResult {
  readonly outcome: 'lead-review' | 'stopped';
  readonly lead: LeadPacket;
  /** The machine's state sequence. */
  readonly path: readonly string[];
  readonly records: {
    readonly packets: readonly EvidencePacket[];
    readonly assessments: readonly Assessment[];
    readonly routes: readonly RouteDecision[];
    readonly grants: readonly Grant[];
  };
}

interface ProcessResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** What the sandbox discarded (named as the layer plan names them); empty when not sandboxed. */
  readonly discarded: readonly string[];
  /** Why the sandbox's layer could not be read or applied (nothing of it reached the tree), or null. */
  readonly layerError: string | null;
}

/** How one command runs: contained, or sandboxed with what it may change. */
type ProcessSandbox = null | {
  readonly network: SandboxNetwork;
  readonly may: ((rel: string) => boolean) | null;
};

/**
 * Worker and check commands run contained (process group, session sweep, bounded time), or in the
 * sandbox: then only the paths `may` accepts come out of the layer (none when `may` is null).
 */
async function runProcess(
  argv: readonly string[],
  cwd: string,
  stdin: string,
  timeoutMs: number,
  sandbox: ProcessSandbox,
): Promise<ProcessResult> {
  if (argv[0] === undefined) throw new HandoffError('usage', 'empty command');
  if (sandbox === null) {
    const r = await runContained(argv, stdin, { cwd, timeoutMs, killGraceMs: 0 });
    return {
      code: r.timedOut ? null : r.code,
      stdout: r.stdout,
      stderr: r.spawnError === null ? r.stderr : `${r.stderr}${r.spawnError}`,
      discarded: [],
      layerError: null,
    };
  }
  const r = await runSandboxed(argv, stdin, {
    projectRoot: cwd,
    owned: [],
    ...(sandbox.may === null ? {} : { ownedMatch: sandbox.may, allowDelete: true }),
    network: sandbox.network,
    timeoutMs,
    killGraceMs: 0,
  });
  let layerError = r.layerError;
  if (layerError === null && r.files.size > 0) {
    const failed = await applyLayerFiles(r.files);
    if (failed.length > 0) layerError = `cannot apply the sandbox's files: ${failed.join(', ')}`;
  }
  return {
    code: r.timedOut ? null : r.code,
    stdout: r.stdout,
    stderr: r.spawnError === null ? r.stderr : `${r.stderr}${r.spawnError}`,
    discarded: r.plan.discarded,
    layerError,
  };
}

/**
 * Runs the whole gate lifecycle for one worker command on a real repository.
 *
 * @example
 * ```ts
 * const r = await runGate({ repo, contract, ledger, evaluator: subprocessEvaluator(['node', 'eval.mjs']),
 *   worker: ['node', 'worker.mjs'], authority: ownerAuthority(contract.owner),
 *   thresholds: DEFAULT_THRESHOLDS, now: () => new Date().toISOString(), register: true });
 * r.lead.route; // REVIEW_READY | LEAD_REVIEW | STOP
 * ```
 * @throws HandoffError `attempt_not_authorized` (exit 5) when the problem already went to the lead
 * (or used its continuations) and no directive authorizes a new attempt.
 */
export async function runGate(options: RunGateOptions): Promise<RunGateResult> {
  const { contract, now } = options;
  // the gate machine's transitions ride on the ledger entries this run writes (one trace per run)
  const collector =
    options.trace === false || options.ledger.traced === undefined
      ? null
      : createTraceCollector({ machines: [gateMachine.id] });
  const ledger = collector === null ? options.ledger : (options.ledger.traced?.(collector) ?? options.ledger);
  const inspect = combineInspectors(collector?.inspect, options.inspect);
  const root = await realpath(await repoRoot(options.repo));
  const sandbox = options.sandbox ?? null;
  // everything a sandboxed worker wrote outside allowed_writes, over the whole run
  const discarded: string[] = [];
  const recordsDir = options.recordsDir ?? join(root, '.handoff', 'gate', 'records');
  const store = options.assessmentStore ?? memoryAssessmentStore();
  const workerTimeout = options.workerTimeoutMs ?? 600_000;
  const requestedBy = options.requestedBy ?? 'gate-run';
  const problem = contract.problem_id;

  const packets: EvidencePacket[] = [];
  const assessments: Assessment[] = [];
  const routes: RouteDecision[] = [];
  const grants = new Map<string, Grant>();
  const exacts: ExactCheckResult[] = [];
  const notes: string[] = [];
  let validatedAfterContinuation = false;
  let worker: WorkerResult = { status: 'provisional', claims: [], operations: [], blocked: null };

  async function save(kind: string, id: string, value: unknown): Promise<void> {
    await mkdir(join(recordsDir, kind), { recursive: true });
    await writeFile(join(recordsDir, kind, `${id}.json`), `${JSON.stringify(value, null, 2)}\n`);
  }
  const last = <T>(xs: readonly T[]): T => {
    const x = xs[xs.length - 1];
    if (x === undefined) throw new HandoffError('internal', 'gate record missing');
    return x;
  };
  const finishLead = async (outcome: 'lead-review' | 'stopped', path: string[]): Promise<RunGateResult> => {
    const packet = packets[packets.length - 1] ?? null;
    let assessment = assessments[assessments.length - 1] ?? null;
    let route = routes[routes.length - 1] ?? null;
    let superseded: { assessment: Assessment | null; route: RouteDecision | null } | null = null;
    if (validatedAfterContinuation && packet !== null && route !== null) {
      // After a gate continuation: the new result was validated by exact checks only (no new
      // semantic round), so the earlier assessment and route do not describe it.
      notes.push(
        `the result after the gate continuation (${packet.packet_id}) was validated by exact checks only, with no new semantic round; the earlier assessment and route (${route.route}) describe ${route.packet_id}`,
      );
      superseded = { assessment, route };
      assessment = null;
      route = null;
    }
    const lead = buildLeadPacket({
      contract,
      packet,
      assessment,
      route,
      grants: [...grants.values()],
      blocked: worker.blocked,
      outcome,
      notes,
      superseded,
    });
    if ((await ledger.status(problem)) !== null) {
      await ledger.recordLeadHandoff(problem, {
        packet_id: packets[packets.length - 1]?.packet_id ?? null,
        route: lead.route,
      });
    }
    await save('lead', sha256Hex(JSON.stringify(lead)).slice(0, 32), lead);
    return { outcome, lead, path, records: { packets, assessments, routes, grants: [...grants.values()] } };
  };
  async function runWorker(
    kind: WorkerRequest['attempt']['kind'],
    grantId: string | null,
  ): Promise<WorkerResult> {
    const request: WorkerRequest = {
      schema: GATE_WORKER_REQUEST_SCHEMA,
      contract,
      attempt: { kind, grant_id: grantId, obligations: routes[routes.length - 1]?.obligations ?? [] },
    };
    const r = await runProcess(
      options.worker,
      root,
      JSON.stringify(request),
      workerTimeout,
      sandbox === null
        ? null
        : { network: sandbox.network, may: (rel) => gateWorkerMay(contract.allowed_writes, rel) },
    );
    const parsed = parseWorkerOutput(r.stdout);
    if (r.discarded.length > 0) {
      discarded.push(...r.discarded.filter((p) => !discarded.includes(p)));
      notes.push(`worker (${kind}): ${discardedViolation(r.discarded)}`);
    }
    if (r.layerError !== null) notes.push(`worker (${kind}): ${r.layerError}; nothing it wrote was applied`);
    if (parsed.note !== null) notes.push(parsed.note);
    if (r.code !== 0) notes.push(`worker (${kind}) exited with ${r.code ?? 'a signal or spawn failure'}`);
    worker = parsed.result;
    return worker;
  }

  // History: register if asked; reconcile anything left uncertain by an earlier crash.
  let status = await ledger.status(problem);
  if (status === null && options.register === true) {
    status = await ledger.register({
      problem_id: problem,
      profile: contract.profile,
      contract_revision: contract.revision,
    });
  }
  for (const g of status?.grants ?? []) {
    if (g.state !== 'reserved') continue;
    const rec = await ledger.reconcile(problem, g.grant_id);
    if (rec.action === 'lead-review') {
      grants.set(g.grant_id, rec.grant);
      notes.push(
        `grant ${g.grant_id} (${g.slot}) was started but never consumed: outcome uncertain, not replayed`,
      );
      return finishLead('lead-review', ['reconciling', 'leadReview']);
    }
    if (rec.action === 'resume') {
      // Reserved by an earlier run that stopped before any work started under it: nothing ran,
      // so the ledger releases it (the slot is not lost, and nothing is replayed blindly).
      const released = await ledger.release(
        problem,
        g.grant_id,
        'reserved but never started: released at restart',
      );
      grants.set(g.grant_id, released);
      notes.push(`grant ${g.grant_id} (${g.slot}) was reserved but never started: released at restart`);
    }
  }
  if (status !== null) status = await ledger.status(problem);
  const used = status?.used ?? { 'ordinary-repair': 0, 'gate-continuation': 0, 'lead-directed': 0 };
  const pastInitial =
    (status?.lead_handoffs ?? 0) > 0 ||
    (status?.grants ?? []).some((g) => g.state === 'consumed' || g.state === 'uncertain');
  let directed: Grant | null = null;
  if (options.directive !== undefined) {
    const candidate = await currentCandidate(root);
    // a lead-directed attempt rests on its recorded directive (the ledger checks it), from the live tree
    const r = await ledger.reserve(
      {
        problem_id: problem,
        idempotency_key: `directive:${options.directive}`,
        candidate,
        kind: 'lead-directed',
        directive_id: options.directive,
        requested_by: requestedBy,
        route_decision: null,
        route_digest: null,
      },
      { live: candidate },
    );
    if (r.outcome === 'refused') {
      throw new HandoffError('attempt_not_authorized', `lead-directed attempt refused: ${r.reason}`, {
        details: { reason: r.reason, detail: r.detail },
      });
    }
    if (r.grant.state !== 'reserved' || r.grant.started) {
      // A repeated event returns the stored result: the directive's attempt already ran.
      throw new HandoffError(
        'attempt_not_authorized',
        `lead-directed attempt refused: directive ${options.directive} already authorized its attempt (grant ${r.grant.grant_id}, ${r.grant.state})`,
        { details: { reason: 'directive_used', grant: r.grant } },
      );
    }
    directed = await ledger.start(problem, r.grant.grant_id);
    grants.set(directed.grant_id, directed);
  } else if (pastInitial) {
    throw new HandoffError(
      'attempt_not_authorized',
      `problem ${problem} already went to the lead or used its continuations: a new attempt needs a lead directive`,
      { details: { problem_id: problem } },
    );
  } else {
    // The initial attempt starts from the contract's base candidate, and nowhere else.
    const live = await currentCandidate(root);
    if (live.commit !== contract.candidate.commit || live.tree_digest !== contract.candidate.tree_digest) {
      throw new HandoffError(
        'base_mismatch',
        `the working tree is not the contract's base candidate: bind it with \`handoff gate bind\` before the task starts (or have the lead issue a directive)`,
        { details: { contract: contract.candidate, live } },
      );
    }
  }

  await runWorker(directed === null ? 'initial' : 'lead-directed', directed?.grant_id ?? null);
  if (directed !== null && directed.state === 'reserved') {
    grants.set(directed.grant_id, await ledger.consume(problem, directed.grant_id));
  }

  const collect = async (): Promise<EvidencePacket> => {
    const executions: ExecutionInput[] = [];
    if (options.check !== undefined && options.check.length > 0) {
      const before = await currentCandidate(root);
      const r = await runProcess(
        options.check,
        root,
        '',
        workerTimeout,
        sandbox === null ? null : { network: sandbox.network, may: null },
      );
      if (r.discarded.length > 0)
        notes.push(`check command (the evidence is unchanged): ${discardedViolation(r.discarded)}`);
      const after = await currentCandidate(root);
      executions.push({
        runner: 'handoff-gate',
        command: [...options.check],
        exit_code: r.code,
        operations: [...(options.checkOperations ?? [])],
        output_sha256: sha256Hex(r.stdout + r.stderr),
        provenance: {
          runner_id: 'handoff-gate',
          trusted: true,
          candidate_digest: before.tree_digest === after.tree_digest ? before.tree_digest : null,
        },
      });
    }
    const packet = await collectEvidence({
      repo: root,
      contract,
      executions,
      claims: worker.claims,
      operations: worker.operations,
      now,
    });
    packets.push(packet);
    await save('packets', packet.packet_id, packet);
    return packet;
  };
  const check = async (blocked: boolean): Promise<ExactCheckResult> => {
    const r = exactChecks({
      contract,
      packet: last(packets),
      authority: options.authority,
      now: Date.parse(now()),
      current: await currentCandidate(root),
      blocked: blocked && worker.blocked !== null ? worker.blocked : undefined,
      discarded,
    });
    exacts.push(r);
    return r;
  };
  const assess = async (blocked: boolean) => {
    const request = buildEvaluatorRequest(
      contract,
      last(packets),
      blocked && worker.blocked !== null ? worker.blocked : undefined,
    );
    const a = await runEvaluator({
      port: options.evaluator,
      request,
      deadlineMs: contract.evaluator_policy.deadline_ms,
      now,
      store,
    });
    assessments.push(a);
    await save('assessments', a.assessment_id, a);
    return { assessment_id: a.assessment_id, status: a.status };
  };

  const machine = gateMachine.provide({
    actors: {
      collect: fromPromise(async () => ({ packet_id: (await collect()).packet_id })),
      check: fromPromise(async ({ input }) => {
        const r = await check(input.context.mode === 'blocked');
        return { ok: r.ok, stop: r.stop, codes: r.failures.map((f) => f.code) };
      }),
      evaluate: fromPromise(() => assess(false)),
      assessBlocked: fromPromise(() => assess(true)),
      route: fromPromise(async ({ input }) => {
        const st = await ledger.status(problem);
        const ctx = input.context;
        const assessment = assessments.find((a) => a.assessment_id === ctx.assessment?.assessment_id) ?? null;
        const d = decideRoute({
          contract,
          packet: last(packets),
          exact: last(exacts),
          assessment: ctx.exact?.ok === false ? null : assessment,
          thresholds: options.thresholds,
          slots:
            st === null
              ? null
              : {
                  ordinary_repair: st.remaining['ordinary-repair'],
                  gate_continuation: st.remaining['gate-continuation'],
                },
          afterContinuation: (st?.used['gate-continuation'] ?? 0) > 0,
          blocked: ctx.mode === 'blocked' && worker.blocked !== null ? worker.blocked : undefined,
        });
        routes.push(d);
        await save('routes', d.route_id, d);
        return { route_id: d.route_id, route: d.route };
      }),
      reserve: fromPromise<ReserveOutput, GateActorInput>(async () => {
        const packet = last(packets);
        const live = await currentCandidate(root);
        const recheck = exactChecks({
          contract,
          packet,
          authority: options.authority,
          now: Date.parse(now()),
          current: live,
          discarded,
        });
        if (!recheck.ok) {
          notes.push(`enforcer re-check failed: ${recheck.failures.map((f) => f.code).join(', ')}`);
          return { outcome: 'refused' as const, grant_id: null, slot: null, reason: 'recheck_failed' };
        }
        // the reservation carries the route decision it rests on, bound to the packet, the
        // candidate and the contract revision; the ledger re-checks it against the live tree
        const r = await ledger.reserve(
          {
            problem_id: problem,
            idempotency_key: continuationKey(problem, packet.packet_id),
            candidate: packet.candidate,
            kind: 'continuation',
            directive_id: null,
            requested_by: requestedBy,
            ...reservationBasis(last(routes), packet.candidate, contract.revision),
          },
          { live },
        );
        if (r.outcome === 'refused') {
          notes.push(`enforcer refused: ${r.reason} (${r.detail})`);
          return { outcome: 'refused' as const, grant_id: null, slot: null, reason: r.reason };
        }
        grants.set(r.grant.grant_id, r.grant);
        await save('grants', r.grant.grant_id, r.grant);
        return { outcome: r.outcome, grant_id: r.grant.grant_id, slot: r.grant.slot, reason: null };
      }),
      continueWork: fromPromise(async ({ input }) => {
        const g = input.context.grant;
        if (g === null) throw new HandoffError('internal', 'no grant to continue under');
        grants.set(g.grant_id, await ledger.start(problem, g.grant_id));
        const r = await runWorker(g.slot, g.grant_id);
        return { worker_status: r.status };
      }),
      validate: fromPromise(async ({ input }) => {
        const g = input.context.grant;
        if (g === null) throw new HandoffError('internal', 'no grant to validate');
        const consumed = await ledger.consume(problem, g.grant_id);
        grants.set(g.grant_id, consumed);
        await save('grants', consumed.grant_id, consumed);
        if (g.slot === 'gate-continuation') {
          // Validation evidence for the lead; no new semantic round can grant another fix.
          await collect();
          validatedAfterContinuation = true;
          const r = await check(false);
          if (!r.ok) notes.push(`after the continuation: ${r.failures.map((f) => f.detail).join('; ')}`);
        }
        return { consumed: true };
      }),
    },
  });

  const actor = createActor(machine, {
    input: {
      problem_id: problem,
      profile: {
        ordinary_repairs: contract.profile.ordinary_repairs,
        gate_continuations: contract.profile.gate_continuations,
      },
      used: { ordinary_repairs: used['ordinary-repair'], gate_continuations: used['gate-continuation'] },
    },
    ...(inspect === undefined ? {} : { inspect }),
  });
  const path: string[] = [];
  actor.subscribe((s) => {
    const v = String(s.value);
    if (path[path.length - 1] !== v) path.push(v);
  });
  actor.start();
  if (options.authority.hard_stop !== null)
    actor.send({ type: 'HARD_STOP', reason: options.authority.hard_stop });
  else actor.send({ type: worker.status === 'blocked' ? 'WORKER.BLOCKED' : 'WORKER.PROVISIONAL' });
  // the machine's output; if the actor itself failed, the same reading of its last context
  const out: GateMachineOutput = await toPromise(actor).catch(() => gateOutput(actor.getSnapshot().context));
  notes.push(...out.notes.filter((n) => !notes.includes(n)));
  return finishLead(out.outcome, path);
}
