/**
 * `handoff demo` (what `npm start` runs): a short, real demonstration on the embedded default.
 * Part 1 exercises the run-contract/v1 records (validate the seed's canonical dispatch, evaluate
 * the rerun guard on a relaunch, emit a protocol-error handoff for a broken dispatch). Part 2 runs
 * the six-phase cycle demo when this build includes it.
 */
import { readFile } from 'node:fs/promises';
import { protocolErrorHandoff, rerunGuard, validateDispatch, validateHandoff } from '../contract/index.js';
import { HandoffError } from '../errors/index.js';
import { parseVerbArgs } from './args.js';
import type { CliCommand } from './command.js';
import type { CliIo } from './io.js';

const examples = new URL('../../../examples/records/', import.meta.url);

async function readExample(name: string): Promise<unknown> {
  return JSON.parse(await readFile(new URL(name, examples), 'utf8')) as unknown;
}

/**
 * Part 1 of the demo: the records and the rerun guard. Resolves to 0 when every step behaved as
 * the contract says.
 *
 * @example
 * ```ts
 * await recordsDemo(processIo());
 * ```
 */
export async function recordsDemo(io: CliIo): Promise<number> {
  const say = (line = '') => io.out(`${line}\n`);
  let failures = 0;
  const check = (ok: boolean, what: string) => {
    say(`  ${ok ? '✓' : '✗'} ${what}`);
    if (!ok) failures++;
  };

  say('── run-contract/v1 records ──────────────────────────────────────────');
  const dispatch = validateDispatch(await readExample('canonical-dispatch.json'));
  check(dispatch.ok, "the seed's canonical dispatch (examples/records/canonical-dispatch.json) validates");
  const stuck = validateHandoff(await readExample('stuck-handoff.json'));
  check(stuck.ok, 'a stuck handoff with blocker fields (examples/records/stuck-handoff.json) validates');
  if (!dispatch.ok || !stuck.ok) return 1;
  say(`    blocker_signature: ${stuck.value.blocker_signature}`);

  say();
  say('── rerun guard ───────────────────────────────────────────────────────');
  const relaunch = { ...dispatch.value, prior_blocker: stuck.value.blocker_signature };
  const refused = rerunGuard(relaunch, stuck.value);
  check(
    refused.forbidden,
    `relaunch on the same blocker with no new evidence is refused (${refused.branch} branch)`,
  );
  say(`    required evidence: ${refused.required_evidence}`);
  const withEvidence = rerunGuard(
    { ...relaunch, evidence_delta: ['newly verified helper lemma Foo.comp_cont'] },
    stuck.value,
  );
  check(!withEvidence.forbidden, 'the same relaunch with a non-empty evidence_delta is allowed');
  const queueEmpty = {
    ...stuck.value,
    status: 'stopped' as const,
    stop_reason: 'queue-empty' as const,
    blocker_signature: null,
  };
  const fresh = rerunGuard({ ...relaunch, prior_blocker: null }, queueEmpty);
  check(!fresh.forbidden, 'a rerun after a non-blocker stop is never refused (null == null never forbids)');

  say();
  say('── malformed dispatch → protocol-error handoff ──────────────────────');
  const broken =
    '{"schema": "run-contract/v1", "record": "dispatch", "target": "Mathlib/Foo.lean:42", "scope": "sorry", "mode": "prove"';
  const h = protocolErrorHandoff(broken, 'malformed dispatch: unterminated JSON object');
  check(validateHandoff(h).ok, 'a truncated dispatch still yields a handoff that validates');
  say(`    status=${h.status} stop_reason=${h.stop_reason} target=${h.target} next_action=${h.next_action}`);
  say(`    stop_detail: ${h.stop_detail}`);
  return failures === 0 ? 0 : 1;
}

/** The `demo` verb. */
export const command: CliCommand = {
  verbs: [],
  help: [
    'usage: handoff demo [--records-only]',
    '',
    'Runs the demonstration: run-contract/v1 records and the rerun guard, then (when built in)',
    'the six-phase cycle on a temp git repository with the example worker.',
    'Exit: 0 when every step behaved as specified, 1 otherwise.',
  ].join('\n'),
  async run(argv, io) {
    const { values } = parseVerbArgs(argv, { 'records-only': { type: 'boolean' } }, false);
    const first = await recordsDemo(io);
    if (values['records-only'] === true) return first;
    let cycle: { runCycleDemo?: (io: CliIo) => Promise<number> } | undefined;
    try {
      cycle = (await import(new URL('./demo-cycle.js', import.meta.url).href)) as typeof cycle;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw e;
    }
    if (cycle?.runCycleDemo === undefined) {
      if (first !== 0) throw new HandoffError('internal', 'records demo failed');
      return first;
    }
    io.out('\n');
    const second = await cycle.runCycleDemo(io);
    return first === 0 ? second : first;
  },
};
