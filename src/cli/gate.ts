/**
 * `handoff gate <verb>` — the gate protocol from the command line: bind, collect, evaluate, route,
 * register, directive, reserve, start, consume, release, reconcile, status and run. JSON on stdout;
 * exit codes below (and in docs/gate.md).
 */
import { realpath } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { HandoffError } from '../errors/index.js';
import {
  type Assessment,
  AssessmentSchema,
  type Authority,
  AuthoritySchema,
  BlockedReportSchema,
  buildEvaluatorRequest,
  checkContractRevision,
  collectEvidence,
  createFsLedger,
  currentCandidate,
  DEFAULT_THRESHOLDS,
  DirectiveSchema,
  decideRoute,
  type EvaluatorPort,
  EvidencePacketSchema,
  ExecutionInputSchema,
  exactChecks,
  fsAssessmentStore,
  httpEvaluator,
  isHttpEvaluator,
  type Ledger,
  ownerAuthority,
  type ReserveRequest,
  ReserveRequestSchema,
  type Route,
  repoRoot,
  runEvaluator,
  runGate,
  subprocessEvaluator,
  type TaskContract,
  TaskContractSchema,
  type Thresholds,
} from '../gate/index.js';
import { probeSandbox } from '../sandbox/index.js';
import { safeValidate } from '../validation/index.js';
import { optionalString, type ParsedArgs, parseVerbArgs, requireString } from './args.js';
import type { CliCommand } from './command.js';
import { didYouMean } from './did-you-mean.js';
import { type CliIo, printJson, readJsonInput } from './io.js';
import { LEDGER_PG_URL_ENV, loadPg } from './optional-peer.js';
import { chooseSandbox, SANDBOX_OPTIONS, sandboxFlags } from './sandbox-flags.js';
import { escapeLine } from './terminal-text.js';

/** Exit: an input record is invalid. */
export const EXIT_INVALID = 3;
/** Exit: a refusal by the enforcer (refused reservation, wrong grant state, no history, attempt not authorized). */
export const EXIT_REFUSED = 5;
/** Exit: the evaluator gave no assessment (NOT_EVALUATED or INVALID recorded). */
export const EXIT_NOT_EVALUATED = 6;
/** Exit codes of the routes (`route`) and of `run`'s stopped outcome. */
export const ROUTE_EXIT: Readonly<Record<Route, number>> = {
  REVIEW_READY: 0,
  CONTINUATION_ELIGIBLE: 10,
  LEAD_REVIEW: 11,
  STOP: 12,
};

const HELP = `usage: handoff gate <verb> [options]

verbs:
  bind      --repo DIR                                  current candidate binding {commit, tree_digest}
  collect   --repo DIR --contract FILE [--artifact REF]… [--executions FILE] [--claims FILE]
            [--operation OP]… [--now ISO]                evidence packet (gate-evidence/v1)
  evaluate  --contract FILE --packet FILE --evaluator CMD|URL [--evaluator-token-env NAME]
            [--deadline MS] [--blocked FILE] [--store DIR]
                                                         assessment (gate-assessment/v1), one request per packet
  route     --contract FILE --packet FILE [--assessment FILE] [--authority FILE] [--blocked FILE]
            [--ledger DIR] [--satisfied P] [--violated P] [--after-continuation] [--now ISO]
                                                         route decision (gate-route/v1); recomputable
  register  --ledger DIR --contract FILE [--history FILE]…  start a problem's ledger history
  directive --ledger DIR FILE                            append a lead directive (gate-directive/v1)
  reserve   --ledger DIR --request FILE [--repo DIR]     atomically reserve a slot (idempotent by key); a
            continuation carries route_decision + route_digest, its candidate must be the live tree of
            --repo (default: the working directory's repository)
  start|consume|release|reconcile --ledger DIR --problem ID --grant ID [--reason TEXT]
  status    --ledger DIR --problem ID                    slots used/remaining, grants
  run       --repo DIR --contract FILE [--evaluator CMD|URL] [--evaluator-token-env NAME] [--deadline MS]
            [--check CMD] [--check-op OP]…
            [--authority FILE] [--register] [--directive ID] [--ledger DIR] [--satisfied P] [--violated P]
            [--sandbox auto|on|off] [--sandbox-network deny|allow]
            -- WORKER ARGV…                              the whole lifecycle; prints the lead packet

run --sandbox (default auto): the worker and the check command run in the sandbox — the repository
  read-only under a private writable layer; only the worker's writes that allowed_writes matches reach
  the tree, everything else (.git, .handoff, other files, $HOME) is discarded and named (a
  scope_violation); a check command's writes are discarded and named. The evaluator runs with its
  directory read-only too (network kept). auto says in one stderr line when the sandbox cannot run;
  on refuses (exit 2); off: contained only. --sandbox-network allow gives worker and check the network.

CMD is one executable path, or a JSON array of strings (e.g. '["node","eval.mjs"]'); never a shell string.
URL (http:// or https://): the HTTP evaluator — one POST of the gate-evaluator-request/v1 JSON, one
  deadline, no retries, no redirects; --evaluator-token-env NAME sends the value of the variable NAME as
  a bearer token (unset or empty: no-key, no request); the token is never printed or recorded.
--ledger defaults to <repo>/.handoff/gate/ledger where --repo is given.
--ledger-pg URL (or $HANDOFF_LEDGER_PG_URL when neither --ledger nor --repo is given) keeps the ledger in
  PostgreSQL instead (schema handoff_gate), for processes on many machines; wherever --ledger DIR is accepted.

exit codes: 0 ok (route REVIEW_READY; run ended in lead review; reservation granted or replayed),
  2 usage, 3 invalid input record, 4 git/ledger I/O failure or damaged ledger,
  5 refused by the enforcer (refused reservation, wrong grant state, missing history, attempt not authorized
    or directive already used, base_mismatch: an initial run on a tree that is not the contract base),
  6 evaluate: NOT_EVALUATED or INVALID assessment (recorded and printed),
  10 route CONTINUATION_ELIGIBLE, 11 route LEAD_REVIEW, 12 route STOP / run stopped.`;

const ClaimsSchema = z.array(
  z.strictObject({ criterion_id: z.string().nullable().default(null), text: z.string() }),
);

const OPTIONS = {
  repo: { type: 'string' },
  contract: { type: 'string' },
  packet: { type: 'string' },
  assessment: { type: 'string' },
  authority: { type: 'string' },
  blocked: { type: 'string' },
  artifact: { type: 'string', multiple: true },
  executions: { type: 'string' },
  claims: { type: 'string' },
  operation: { type: 'string', multiple: true },
  evaluator: { type: 'string' },
  'evaluator-token-env': { type: 'string' },
  deadline: { type: 'string' },
  store: { type: 'string' },
  ledger: { type: 'string' },
  'ledger-pg': { type: 'string' },
  satisfied: { type: 'string' },
  violated: { type: 'string' },
  'after-continuation': { type: 'boolean' },
  history: { type: 'string', multiple: true },
  request: { type: 'string' },
  problem: { type: 'string' },
  grant: { type: 'string' },
  reason: { type: 'string' },
  check: { type: 'string' },
  'check-op': { type: 'string', multiple: true },
  register: { type: 'boolean' },
  directive: { type: 'string' },
  now: { type: 'string' },
  ...SANDBOX_OPTIONS,
} as const;

function abs(io: CliIo, p: string): string {
  return isAbsolute(p) ? p : join(io.cwd, p);
}

function clock(values: ParsedArgs['values']): () => string {
  const fixed = optionalString(values, 'now');
  if (fixed !== undefined && Number.isNaN(Date.parse(fixed)))
    throw new HandoffError('usage', '--now must be an ISO time');
  return () => fixed ?? new Date().toISOString();
}

async function readRecord<S extends z.ZodType>(
  io: CliIo,
  file: string,
  schema: S,
  kind: string,
): Promise<z.output<S>> {
  const parsed = await readJsonInput(io, file);
  if (!parsed.ok) {
    throw new HandoffError('invalid_input', parsed.error, { details: { kind } });
  }
  const r = safeValidate(schema, parsed.value);
  if (!r.ok) {
    throw new HandoffError('invalid_input', `${file}: not a valid ${kind}`, {
      details: { kind, issues: r.issues },
    });
  }
  return r.value;
}

function commandOf(text: string, name: string): string[] {
  if (!text.trimStart().startsWith('[')) return [text];
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new HandoffError('usage', `--${name}: not a JSON array`);
  }
  if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'string')) {
    throw new HandoffError('usage', `--${name}: expected a non-empty JSON array of strings`);
  }
  return v as string[];
}

function probability(values: ParsedArgs['values'], name: 'satisfied' | 'violated'): number {
  const s = optionalString(values, name);
  if (s === undefined) return DEFAULT_THRESHOLDS[name];
  const n = Number(s);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new HandoffError('usage', `--${name} must be in [0, 1]`);
  return n;
}

function thresholdsOf(values: ParsedArgs['values']): Thresholds {
  return { satisfied: probability(values, 'satisfied'), violated: probability(values, 'violated') };
}

/** PostgreSQL ledgers opened by this invocation (their pools are ended when the verb returns). */
const openedPg: { close(): Promise<void> }[] = [];

async function ledgerOf(io: CliIo, values: ParsedArgs['values'], now: () => string): Promise<Ledger> {
  const dir = optionalString(values, 'ledger');
  const pgUrl = optionalString(values, 'ledger-pg');
  if (dir !== undefined && pgUrl !== undefined)
    throw new HandoffError('usage', 'give --ledger DIR or --ledger-pg URL, not both');
  const envUrl = io.env[LEDGER_PG_URL_ENV];
  const url =
    pgUrl ??
    (dir === undefined &&
    optionalString(values, 'repo') === undefined &&
    envUrl !== undefined &&
    envUrl !== ''
      ? envUrl
      : undefined);
  if (url !== undefined) {
    const { createPgLedger } = await loadPg('--ledger-pg');
    const l = createPgLedger({ connectionString: url, maxConnections: 2 }, { now });
    openedPg.push(l);
    return l;
  }
  if (dir !== undefined) return createFsLedger(abs(io, dir), { now });
  const repo = optionalString(values, 'repo');
  if (repo === undefined)
    throw new HandoffError('usage', 'missing --ledger (or --repo for the default ledger)');
  return createFsLedger(join(await repoRoot(abs(io, repo)), '.handoff', 'gate', 'ledger'), { now });
}

async function authorityOf(
  io: CliIo,
  values: ParsedArgs['values'],
  contract: TaskContract,
): Promise<Authority> {
  const f = optionalString(values, 'authority');
  return f === undefined ? ownerAuthority(contract.owner) : readRecord(io, f, AuthoritySchema, 'authority');
}

function deadlineOf(values: ParsedArgs['values'], contract: TaskContract): number {
  const s = optionalString(values, 'deadline');
  if (s === undefined) return contract.evaluator_policy.deadline_ms;
  const n = Number(s);
  if (!Number.isInteger(n) || n < 1)
    throw new HandoffError('usage', '--deadline must be a positive integer (ms)');
  // A project may be stricter than its contract, never looser.
  return Math.min(n, contract.evaluator_policy.deadline_ms);
}

/**
 * The evaluator port `--evaluator` names: an http(s) URL is the HTTP evaluator (one POST under the
 * deadline, the bearer token read from the variable `--evaluator-token-env` names), anything else
 * the command of a subprocess evaluator.
 */
function evaluatorOf(
  io: CliIo,
  values: ParsedArgs['values'],
  ev: string,
  deadlineMs: number,
  sandbox: { network: 'allow' } | null,
): EvaluatorPort {
  const tokenEnv = optionalString(values, 'evaluator-token-env');
  if (isHttpEvaluator(ev)) {
    try {
      return httpEvaluator(ev, { timeoutMs: deadlineMs, tokenEnv, env: io.env });
    } catch (e) {
      throw new HandoffError('usage', `--evaluator: ${(e as Error).message}`);
    }
  }
  if (tokenEnv !== undefined)
    throw new HandoffError('usage', '--evaluator-token-env needs an http(s) --evaluator URL');
  return subprocessEvaluator(commandOf(ev, 'evaluator'), {
    cwd: io.cwd,
    env: io.env,
    ...(sandbox === null ? {} : { sandbox }),
  });
}

type Verb = (values: ParsedArgs['values'], positionals: string[], io: CliIo) => Promise<number>;

/** A ledger verb on one grant (`--problem`, `--grant`) that prints the grant's new state. */
function grantVerb(op: 'start' | 'consume' | 'reconcile'): Verb {
  return async (values, _p, io) => {
    const l = await ledgerOf(io, values, clock(values));
    printJson(io, await l[op](requireString(values, 'problem'), requireString(values, 'grant')));
    return 0;
  };
}

const VERBS: Record<string, Verb> = {
  async bind(values, _p, io) {
    printJson(io, await currentCandidate(abs(io, requireString(values, 'repo'))));
    return 0;
  },
  async collect(values, _p, io) {
    const contract = await readRecord(io, requireString(values, 'contract'), TaskContractSchema, 'contract');
    const ex = optionalString(values, 'executions');
    const cl = optionalString(values, 'claims');
    const executions =
      ex === undefined ? [] : await readRecord(io, ex, ExecutionInputSchema.array(), 'executions');
    const claims = cl === undefined ? [] : await readRecord(io, cl, ClaimsSchema, 'claims');
    const packet = await collectEvidence({
      repo: abs(io, requireString(values, 'repo')),
      contract,
      artifacts: (values.artifact as string[] | undefined) ?? [],
      executions,
      claims,
      operations: (values.operation as string[] | undefined) ?? [],
      now: clock(values),
    });
    printJson(io, packet);
    return 0;
  },
  async evaluate(values, _p, io) {
    const contract = await readRecord(io, requireString(values, 'contract'), TaskContractSchema, 'contract');
    const packet = await readRecord(io, requireString(values, 'packet'), EvidencePacketSchema, 'packet');
    const bf = optionalString(values, 'blocked');
    const blocked =
      bf === undefined ? undefined : await readRecord(io, bf, BlockedReportSchema, 'blocked report');
    const storeDir = optionalString(values, 'store');
    const deadlineMs = deadlineOf(values, contract);
    const a = await runEvaluator({
      port: evaluatorOf(io, values, requireString(values, 'evaluator'), deadlineMs, null),
      request: buildEvaluatorRequest(contract, packet, blocked),
      deadlineMs,
      now: clock(values),
      ...(storeDir === undefined ? {} : { store: fsAssessmentStore(abs(io, storeDir)) }),
    });
    printJson(io, a);
    return a.status === 'EVALUATED' ? 0 : EXIT_NOT_EVALUATED;
  },
  async route(values, _p, io) {
    const contract = await readRecord(io, requireString(values, 'contract'), TaskContractSchema, 'contract');
    const packet = await readRecord(io, requireString(values, 'packet'), EvidencePacketSchema, 'packet');
    const af = optionalString(values, 'assessment');
    const assessment: Assessment | null =
      af === undefined ? null : await readRecord(io, af, AssessmentSchema, 'assessment');
    const bf = optionalString(values, 'blocked');
    const blocked =
      bf === undefined ? undefined : await readRecord(io, bf, BlockedReportSchema, 'blocked report');
    const now = clock(values);
    const exact = exactChecks({
      contract,
      packet,
      authority: await authorityOf(io, values, contract),
      now: Date.parse(now()),
      blocked,
    });
    let slots: { ordinary_repair: number; gate_continuation: number } | null = null;
    let after = values['after-continuation'] === true;
    if (optionalString(values, 'ledger') !== undefined || optionalString(values, 'ledger-pg') !== undefined) {
      const st = await (await ledgerOf(io, values, now)).status(contract.problem_id);
      if (st !== null) {
        slots = {
          ordinary_repair: st.remaining['ordinary-repair'],
          gate_continuation: st.remaining['gate-continuation'],
        };
        after = after || st.used['gate-continuation'] > 0;
      }
    }
    const d = decideRoute({
      contract,
      packet,
      exact,
      assessment,
      thresholds: thresholdsOf(values),
      slots,
      afterContinuation: after,
      blocked,
    });
    printJson(io, d);
    return ROUTE_EXIT[d.route];
  },
  async register(values, _p, io) {
    const contract = await readRecord(io, requireString(values, 'contract'), TaskContractSchema, 'contract');
    const history: TaskContract[] = [];
    for (const h of (values.history as string[] | undefined) ?? []) {
      history.push(await readRecord(io, h, TaskContractSchema, 'contract'));
    }
    const r = checkContractRevision(history, contract);
    if (!r.ok) {
      printJson(io, { ok: false, issues: r.issues });
      return EXIT_INVALID;
    }
    const st = await (await ledgerOf(io, values, clock(values))).register({
      problem_id: contract.problem_id,
      profile: contract.profile,
      contract_revision: contract.revision,
    });
    printJson(io, st);
    return 0;
  },
  async directive(values, positionals, io) {
    const f = positionals[0];
    if (f === undefined) throw new HandoffError('usage', 'directive needs a FILE (or -)');
    const d = await readRecord(io, f, DirectiveSchema, 'directive');
    printJson(io, await (await ledgerOf(io, values, clock(values))).addDirective(d));
    return 0;
  },
  async reserve(values, _p, io) {
    const req: ReserveRequest = await readRecord(
      io,
      requireString(values, 'request'),
      ReserveRequestSchema,
      'reserve request',
    );
    // the enforcer checks the request's candidate against the live tree: the project at --repo
    // (default: the working directory's repository); none found fails closed (stale_candidate)
    const live = await repoRoot(abs(io, optionalString(values, 'repo') ?? '.'))
      .then(currentCandidate)
      .catch(() => null);
    const r = await (await ledgerOf(io, values, clock(values))).reserve(req, { live });
    printJson(io, r);
    return r.outcome === 'refused' ? EXIT_REFUSED : 0;
  },
  start: grantVerb('start'),
  consume: grantVerb('consume'),
  async release(values, _p, io) {
    const l = await ledgerOf(io, values, clock(values));
    printJson(
      io,
      await l.release(
        requireString(values, 'problem'),
        requireString(values, 'grant'),
        optionalString(values, 'reason') ?? '',
      ),
    );
    return 0;
  },
  reconcile: grantVerb('reconcile'),
  async status(values, _p, io) {
    const problem = requireString(values, 'problem');
    const st = await (await ledgerOf(io, values, clock(values))).status(problem);
    if (st === null) {
      printJson(io, {
        problem_id: problem,
        history: 'missing',
        detail: 'missing history never means zero attempts used',
      });
      return EXIT_REFUSED;
    }
    printJson(io, st);
    return 0;
  },
  async run(values, positionals, io) {
    const contract = await readRecord(io, requireString(values, 'contract'), TaskContractSchema, 'contract');
    const repo = await repoRoot(abs(io, requireString(values, 'repo')));
    const worker = positionals;
    if (worker.length === 0) throw new HandoffError('usage', 'run needs the worker command after --');
    const now = clock(values);
    const ev = optionalString(values, 'evaluator');
    const check = optionalString(values, 'check');
    const deadline = deadlineOf(values, contract);
    const flags = sandboxFlags(values);
    const said = new Set<string>();
    const note = (line: string) => {
      if (!said.has(line)) io.err(`${line}\n`);
      said.add(line);
    };
    const sandbox = await chooseSandbox(flags, await realpath(repo), note);
    // the evaluator reads evidence and answers: its directory read-only, its writes discarded; it
    // keeps the network (a model call is its job). Sandboxed when the worker is and its directory
    // allows it; otherwise contained, said in one line (never a refusal: --sandbox on is about
    // the worker and the check)
    let evSandbox: { network: 'allow' } | null = null;
    if (ev !== undefined && !isHttpEvaluator(ev) && sandbox !== null) {
      const p = await probeSandbox(await realpath(io.cwd));
      if (p.available) evSandbox = { network: 'allow' };
      else note(escapeLine(`sandbox unavailable for the evaluator: ${p.reason}; it runs contained`));
    }
    const r = await runGate({
      repo,
      contract: { ...contract, evaluator_policy: { ...contract.evaluator_policy, deadline_ms: deadline } },
      ledger: await ledgerOf(io, { ...values, repo }, now),
      evaluator: ev === undefined ? null : evaluatorOf(io, values, ev, deadline, evSandbox),
      worker,
      sandbox,
      check: check === undefined ? undefined : commandOf(check, 'check'),
      checkOperations: (values['check-op'] as string[] | undefined) ?? [],
      authority: await authorityOf(io, values, contract),
      thresholds: thresholdsOf(values),
      now,
      assessmentStore: fsAssessmentStore(join(repo, '.handoff', 'gate', 'assessments')),
      register: values.register === true,
      directive: optionalString(values, 'directive'),
    });
    printJson(io, { outcome: r.outcome, path: r.path, lead: r.lead });
    return r.outcome === 'stopped' ? ROUTE_EXIT.STOP : 0;
  },
};

/** The `gate` verb group. */
export const command: CliCommand = {
  verbs: Object.keys(VERBS),
  help: HELP,
  async run(argv, io) {
    const [verb, ...rest] = argv;
    if (verb === undefined || verb === '--help' || verb === '-h') {
      io.out(`${HELP}\n`);
      return verb === undefined ? 2 : 0;
    }
    const fn = VERBS[verb];
    if (fn === undefined || !Object.hasOwn(VERBS, verb))
      throw new HandoffError('usage', `unknown gate verb '${verb}'${didYouMean(verb, Object.keys(VERBS))}`);
    const parsed = parseVerbArgs(rest, OPTIONS);
    const positionals = verb === 'run' ? parsed.rest : [...parsed.positionals, ...parsed.rest];
    if (verb === 'run' && parsed.positionals.length > 0) {
      throw new HandoffError('usage', 'put the worker command after -- (arguments are never shell strings)');
    }
    try {
      return await fn(parsed.values, positionals, io);
    } finally {
      for (const l of openedPg.splice(0)) await l.close().catch(() => {});
    }
  },
};
