/** Shared record fixtures for the run-contract tests (the seed's canonical examples). */
import { readFileSync } from 'node:fs';
import type { Dispatch, Handoff } from '../../src/contract/index.js';

const read = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../examples/records/${name}`, import.meta.url), 'utf8'));

/** A fresh deep copy of the seed's canonical first dispatch. */
export function canonicalDispatch(): Dispatch {
  return read('canonical-dispatch.json') as Dispatch;
}

/** A fresh deep copy of a valid stuck handoff for the same task. */
export function stuckHandoff(): Handoff {
  return read('stuck-handoff.json') as Handoff;
}

/** A valid solved handoff for the canonical task. */
export function solvedHandoff(): Handoff {
  return {
    ...stuckHandoff(),
    status: 'solved',
    blocker_kind: null,
    blocker_class: null,
    blocker_signature: null,
    new_evidence_required_for_rerun: null,
    next_action: 'continue',
  };
}

/** A stopped handoff with the given reason and matching conditional fields. */
export function stoppedHandoff(reason: NonNullable<Handoff['stop_reason']>): Handoff {
  const driven = reason === 'max-stuck';
  const operational = reason === 'protocol-error' || reason === 'operational-error';
  const base = driven ? stuckHandoff() : solvedHandoff();
  return {
    ...base,
    status: 'stopped',
    stop_reason: reason,
    stop_detail: operational ? `${reason} happened` : null,
    next_action: 'stop',
  };
}
