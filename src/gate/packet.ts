/**
 * Evidence-packet assembly (pure): binding executions to the candidate, keeping worker claims as
 * claims, and freezing the packet under a content-derived id (collection time excluded, so the
 * same evidence is the same packet — and is evaluated once).
 */
import { deepFreeze } from '../canonical/index.js';
import type { CandidateBinding, TaskContract } from './contract-schema.js';
import {
  type Artifact,
  type ChangeEntry,
  type EvidencePacket,
  type Execution,
  type ExecutionInput,
  ExecutionInputSchema,
  GATE_EVIDENCE_SCHEMA,
  type Omitted,
  type WorkerClaim,
} from './evidence-schema.js';
import { contentId } from './ids.js';

/**
 * Marks which executions count: only a trusted runner's result bound to THIS candidate's tree
 * digest. A digest of output bytes proves which bytes, not that a test ran.
 *
 * @example
 * ```ts
 * bindExecutions([exec], candidate)[0].counted; // false when bound to another tree
 * ```
 */
export function bindExecutions(
  executions: readonly ExecutionInput[],
  candidate: CandidateBinding,
): Execution[] {
  return executions.map((raw) => {
    const e = ExecutionInputSchema.parse(raw);
    let reason: string | null = null;
    if (!e.provenance.trusted) reason = 'runner not trusted';
    else if (e.provenance.candidate_digest === null) reason = 'no candidate binding in provenance';
    else if (e.provenance.candidate_digest !== candidate.tree_digest) reason = 'bound to another candidate';
    return { ...e, counted: reason === null, reason };
  });
}

/**
 * Turns the worker's statements into claims (never facts).
 *
 * @example
 * ```ts
 * asClaims([{ criterion_id: 'c1', text: 'tests pass' }])[0].verified; // false
 * ```
 */
export function asClaims(claims: readonly { criterion_id?: string | null; text: string }[]): WorkerClaim[] {
  return claims.map((c) => ({ criterion_id: c.criterion_id ?? null, text: c.text, verified: false }));
}

/** Parts of a packet. */
export interface PacketParts {
  readonly contract: TaskContract;
  readonly candidate: CandidateBinding;
  readonly changeset: readonly ChangeEntry[];
  readonly artifacts: readonly Artifact[];
  readonly omitted: readonly Omitted[];
  readonly executions: readonly Execution[];
  readonly operations: readonly string[];
  readonly claims: readonly WorkerClaim[];
  readonly collectedAt: string;
}

/**
 * Assembles and freezes the packet.
 *
 * @example
 * ```ts
 * const packet = assemblePacket({ contract, candidate, changeset, artifacts, omitted, executions,
 *   operations: [], claims: [], collectedAt: '2026-11-30T12:00:00.000Z' });
 * ```
 */
export function assemblePacket(parts: PacketParts): EvidencePacket {
  const observed = new Set(parts.operations);
  for (const e of parts.executions) for (const op of e.operations) observed.add(op);
  const body = {
    schema: GATE_EVIDENCE_SCHEMA as typeof GATE_EVIDENCE_SCHEMA,
    contract: { problem_id: parts.contract.problem_id, revision: parts.contract.revision },
    stage: parts.contract.stage,
    base: parts.contract.candidate,
    candidate: parts.candidate,
    changeset: [...parts.changeset],
    artifacts: [...parts.artifacts],
    omitted: [...parts.omitted],
    executions: [...parts.executions],
    operations_observed: [...observed].sort(),
    worker_claims: [...parts.claims],
  };
  const packet: EvidencePacket = {
    ...body,
    packet_id: contentId('pkt', body),
    collected_at: parts.collectedAt,
  };
  return deepFreeze(packet);
}
