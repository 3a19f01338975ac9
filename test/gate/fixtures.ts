/**
 * Shared fixtures of the gate tests: contracts, packets, assessments, and real temp git repos.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contentId } from '../../src/gate/ids.js';
import {
  type Assessment,
  type AssessmentFailure,
  type Claim,
  currentCandidate,
  DEFAULT_THRESHOLDS,
  type Directive,
  type EvidencePacket,
  type ExactCheckResult,
  failedAssessment,
  GATE_ASSESSMENT_SCHEMA,
  type Ledger,
  ownerAuthority,
  type ReserveCheck,
  type ReserveRequest,
  type RouteDecision,
  reservationBasis,
  runGate,
  subprocessEvaluator,
  type TaskContract,
  TaskContractSchema,
} from '../../src/gate/index.js';
import { assemblePacket } from '../../src/gate/packet.js';

export const T0 = '2026-11-30T12:00:00.000Z';
export const D0 = 'a'.repeat(64);
export const D1 = 'b'.repeat(64);

export function contract(over: Partial<Record<keyof TaskContract, unknown>> = {}): TaskContract {
  return TaskContractSchema.parse({
    schema: 'gate-task/v1',
    problem_id: 'billing-17',
    revision: 1,
    owner: 'lead@team',
    candidate: { commit: null, tree_digest: D0 },
    allowed_writes: ['src/**', 'test/**'],
    prohibited_operations: ['network', 'test:e2e'],
    stage: 'unit',
    criteria: [
      {
        id: 'reload-idempotent',
        text: 'Does a reload avoid a second paid operation?',
        text_revision: 1,
        required: true,
        interpretation: 'confirmed-is-good',
      },
    ],
    evaluator_policy: { deadline_ms: 2000 },
    ...over,
  });
}

/** The walkthrough's contract (examples/gate/contract.json), rebound to another base candidate. */
export function exampleContract(candidate: TaskContract['candidate']): TaskContract {
  const raw = JSON.parse(readFileSync(new URL('../../examples/gate/contract.json', import.meta.url), 'utf8'));
  return TaskContractSchema.parse({ ...raw, candidate });
}

export function packet(
  c: TaskContract,
  over: Partial<Parameters<typeof assemblePacket>[0]> = {},
): EvidencePacket {
  return assemblePacket({
    contract: c,
    candidate: { commit: null, tree_digest: D1 },
    changeset: [
      {
        path: 'src/pay.ts',
        change: 'modified',
        from: null,
        staged: false,
        unstaged: true,
        untracked: false,
        sha256: D1,
      },
    ],
    artifacts: [],
    omitted: [],
    executions: [],
    operations: [],
    claims: [],
    collectedAt: T0,
    ...over,
  });
}

export const OK: ExactCheckResult = { ok: true, stop: false, failures: [] };

export function evaluated(p: EvidencePacket, claims: Omit<Claim, 'question'>[]): Assessment {
  return {
    schema: GATE_ASSESSMENT_SCHEMA,
    assessment_id: `asm_${'1'.repeat(32)}`,
    packet_id: p.packet_id,
    evaluator_id: 'test',
    status: 'EVALUATED',
    failure: null,
    claims: claims.map((c) => ({ question: 'q', ...c })),
    requests_made: 1,
    started_at: T0,
    finished_at: T0,
  };
}

export function failed(p: EvidencePacket, failure: AssessmentFailure): Assessment {
  return failedAssessment(p.packet_id, failure, {
    evaluator_id: 'test',
    started_at: T0,
    finished_at: T0,
    requests_made: 1,
  });
}

export function tempDir(prefix = 'gate-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function rm(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Gate Test',
  GIT_AUTHOR_EMAIL: 'gate@test.invalid',
  GIT_COMMITTER_NAME: 'Gate Test',
  GIT_COMMITTER_EMAIL: 'gate@test.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Gate Test', '-c', 'user.email=gate@test.invalid', ...args], {
    cwd,
    env: GIT_ENV,
    encoding: 'utf8',
  });
}

export function write(root: string, rel: string, text: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
}

/** A temp repo with one commit holding `files`. */
export function gitRepo(files: Record<string, string>): string {
  const dir = tempDir('gate-repo-');
  git(dir, 'init', '-q', '-b', 'main');
  for (const [p, t] of Object.entries(files)) write(dir, p, t);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  return dir;
}

/** The continuation profile of the ledger tests: one ordinary repair, one gate continuation, three directed attempts. */
export const PROFILE = { ordinary_repairs: 1, gate_continuations: 1, lead_directed_attempts: 3 };

/** A route decision `route` (default CONTINUATION_ELIGIBLE) for `packetId`, its `route_id` recomputable. */
export function routeOf(
  route: RouteDecision['route'] = 'CONTINUATION_ELIGIBLE',
  packetId = `pkt_${'0'.repeat(32)}`,
): RouteDecision {
  const body = {
    schema: 'gate-route/v1' as const,
    packet_id: packetId,
    assessment_ref: null,
    route,
    reasons: [],
    criteria: [],
    obligations: [],
    thresholds: DEFAULT_THRESHOLDS,
    slots: { ordinary_repair: 1, gate_continuation: 1 },
  };
  return { ...body, route_id: contentId('rte', body) };
}

/**
 * A continuation reservation on problem p1 for `key` and the candidate tree `digest`, resting on a
 * CONTINUATION_ELIGIBLE route decision bound to it under contract revision 1.
 */
export const req = (
  key: string,
  digest = 'd'.repeat(64),
  over: Partial<ReserveRequest> = {},
): ReserveRequest => {
  const base = {
    problem_id: 'p1',
    idempotency_key: key,
    candidate: { commit: null, tree_digest: digest },
    kind: 'continuation' as const,
    directive_id: null,
    requested_by: 'job-a',
    ...over,
  };
  return { ...reservationBasis(routeOf(), base.candidate, 1), ...base };
};

/** `request` and the check that its own candidate is the live tree: `ledger.reserve(...live(r))`. */
export const live = (request: ReserveRequest): [ReserveRequest, ReserveCheck] => [
  request,
  { live: request.candidate },
];

/** A lead's attempt directive on problem p1. */
export const directive = (id: string): Directive => ({
  schema: 'gate-directive/v1',
  directive_id: id,
  problem_id: 'p1',
  issued_by: 'lead',
  issued_at: T0,
  kind: 'attempt',
  contract_revision: null,
  note: '',
});

/** The example gate's worker and evaluator (examples/gate). */
const GATE_EXAMPLES = fileURLToPath(new URL('../../examples/gate/', import.meta.url));

/**
 * One real gate run of the example problem (`example-greet`: the example worker and evaluator as
 * child processes) on a fresh git repository, registering the problem on `ledger`. Pushes the
 * directories it makes to `dirs` (remove them with {@link rm}); returns the run's machine path.
 */
export async function runExampleGate(
  ledger: Ledger,
  dirs: string[],
): Promise<{ readonly path: readonly string[]; readonly side: string }> {
  const repo = gitRepo({ 'README.md': 'demo\n', '.gitignore': '.handoff/\n' });
  const side = tempDir('gate-example-');
  dirs.push(repo, side);
  const contract = exampleContract(await currentCandidate(repo));
  const r = await runGate({
    repo,
    contract,
    ledger,
    evaluator: subprocessEvaluator([process.execPath, join(GATE_EXAMPLES, 'evaluator.mjs')]),
    worker: [process.execPath, join(GATE_EXAMPLES, 'worker.mjs')],
    authority: ownerAuthority(contract.owner),
    thresholds: DEFAULT_THRESHOLDS,
    now: () => T0,
    recordsDir: join(side, 'records'),
    register: true,
  });
  return { path: r.path, side };
}
