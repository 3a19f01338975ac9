/**
 * Controller rule 1 (pure): exact checks, no model involved — scope against `allowed_writes`,
 * prohibited operations, contract and candidate binding, owner, lease and hard stop. A hard stop
 * or invalid authority is a STOP whatever the evaluator would say.
 */
import type { Authority } from './authority-schema.js';
import type { BlockedReport } from './blocked-schema.js';
import type { CandidateBinding, TaskContract } from './contract-schema.js';
import type { EvidencePacket } from './evidence-schema.js';
import { matchesAny } from './globs.js';

/** Codes of exact-check failures. The first four are STOP codes (invalid authority or hard stop). */
export type ExactFailureCode =
  | 'hard_stop'
  | 'owner_conflict'
  | 'lease_expired'
  | 'permission_denied'
  | 'contract_mismatch'
  | 'base_mismatch'
  | 'candidate_changed'
  | 'scope_violation'
  | 'prohibited_operation';

/** Exact-check failure codes that force the STOP route. */
export const STOP_CODES: ReadonlySet<ExactFailureCode> = new Set([
  'hard_stop',
  'owner_conflict',
  'lease_expired',
  'permission_denied',
]);

/** One exact-check failure. */
export interface ExactFailure {
  readonly code: ExactFailureCode;
  readonly detail: string;
  readonly path: string | null;
}

/** Outcome of {@link exactChecks}. */
export interface ExactCheckResult {
  /** No failure at all. */
  readonly ok: boolean;
  /** A STOP code is present. */
  readonly stop: boolean;
  readonly failures: readonly ExactFailure[];
}

/** Inputs of {@link exactChecks}. */
export interface ExactCheckInput {
  readonly contract: TaskContract;
  readonly packet: EvidencePacket;
  readonly authority: Authority;
  /** Current time in epoch milliseconds (injected). */
  readonly now: number;
  /** The candidate re-read right now (the enforcer re-checks before granting); omitted = not re-read. */
  readonly current?: CandidateBinding | undefined;
  /** A blocked report whose proposed step is also checked against prohibitions. */
  readonly blocked?: BlockedReport | undefined;
  /**
   * What a sandboxed worker wrote outside `allowed_writes` and the sandbox discarded (as the layer
   * plan names them: `B.txt`, `.git/config`, `~/.bashrc`, `x (symlink)`): each is a
   * `scope_violation`, though it never reached the tree.
   */
  readonly discarded?: readonly string[] | undefined;
}

function sameBinding(a: CandidateBinding, b: CandidateBinding): boolean {
  return a.commit === b.commit && a.tree_digest === b.tree_digest;
}

/**
 * Runs every exact check and reports all failures (not just the first).
 *
 * @example
 * ```ts
 * const r = exactChecks({ contract, packet, authority, now: Date.parse('2026-11-30T12:00:00Z') });
 * if (r.stop) route = 'STOP';
 * ```
 */
export function exactChecks(input: ExactCheckInput): ExactCheckResult {
  const { contract, packet, authority, now } = input;
  const failures: ExactFailure[] = [];
  const add = (code: ExactFailureCode, detail: string, path: string | null = null) =>
    failures.push({ code, detail, path });

  if (authority.hard_stop !== null) add('hard_stop', `hard stop in force: ${authority.hard_stop}`);
  if (authority.actor !== contract.owner) {
    add('owner_conflict', `authority held by ${authority.actor}, task owned by ${contract.owner}`);
  }
  if (authority.lease_expires_at !== null && Date.parse(authority.lease_expires_at) <= now) {
    add('lease_expired', `lease expired at ${authority.lease_expires_at}`);
  }
  const observed = [...packet.operations_observed, ...(input.blocked?.operations ?? [])];
  for (const op of new Set(observed)) {
    if (authority.denied_operations.includes(op)) add('permission_denied', `operation ${op} is denied`);
    if (contract.prohibited_operations.includes(op)) {
      add('prohibited_operation', `operation ${op} is prohibited by the contract`);
    }
  }
  if (packet.contract.problem_id !== contract.problem_id || packet.contract.revision !== contract.revision) {
    add(
      'contract_mismatch',
      `packet built for ${packet.contract.problem_id}@${packet.contract.revision}, contract is ${contract.problem_id}@${contract.revision}`,
    );
  }
  if (!sameBinding(packet.base, contract.candidate)) {
    add('base_mismatch', 'packet was collected against another base candidate than the contract names');
  }
  if (input.current !== undefined && !sameBinding(input.current, packet.candidate)) {
    add('candidate_changed', 'the working tree no longer matches the frozen candidate of the packet');
  }
  for (const c of packet.changeset) {
    for (const p of c.from === null ? [c.path] : [c.path, c.from]) {
      if (!matchesAny(contract.allowed_writes, p)) {
        add('scope_violation', `${p} (${c.change}) is outside allowed_writes`, p);
      }
    }
  }
  for (const p of input.discarded ?? []) {
    add('scope_violation', `${p} was written outside allowed_writes (discarded by the sandbox)`, p);
  }
  const stop = failures.some((f) => STOP_CODES.has(f.code));
  return { ok: failures.length === 0, stop, failures };
}
