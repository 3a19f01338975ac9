// run-contract/v1: validateDispatch throughput as a ratio of a bare zod parse of the same record
// (the same DispatchSchema, `safeParse`, no wrapper), measured in the same run. Target ≥ 0.5.
import { readFileSync } from 'node:fs';
import { DispatchSchema, rerunGuard, validateDispatch, validateHandoff } from '../dist/src/contract/index.js';
import { opsPerSecondSync } from './lib.mjs';

export default async function bench() {
  const dispatch = JSON.parse(
    readFileSync(new URL('../examples/records/canonical-dispatch.json', import.meta.url), 'utf8'),
  );
  const handoff = JSON.parse(
    readFileSync(new URL('../examples/records/stuck-handoff.json', import.meta.url), 'utf8'),
  );
  const bare = opsPerSecondSync(() => DispatchSchema.safeParse(dispatch), 1500);
  const ours = opsPerSecondSync(() => validateDispatch(dispatch), 1500);
  const handoffs = opsPerSecondSync(() => validateHandoff(handoff), 1000);
  const relaunch = { ...dispatch, prior_blocker: handoff.blocker_signature };
  const guard = opsPerSecondSync(() => rerunGuard(relaunch, handoff), 500);
  return [
    { name: 'bare zod safeParse (dispatch)', value: bare, unit: 'records/s' },
    { name: 'validateDispatch', value: ours, unit: 'records/s', ratio: ours / bare, target: 0.5 },
    { name: 'validateHandoff', value: handoffs, unit: 'records/s' },
    { name: 'rerunGuard', value: guard, unit: 'verdicts/s' },
  ];
}
