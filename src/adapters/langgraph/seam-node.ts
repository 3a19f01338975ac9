/**
 * A stage of a chain as a LangGraph node (layer 3, effects): the seam and the commit boundary
 * between two nodes. The node checks the state's baton against the journal, runs its stage through
 * the seam machine (`HandoffChain.advance`: a fresh read-only view in, a StageDelta out, every seam
 * check), and makes the new baton durable before the graph moves on. Work that fails its seam is
 * never committed; the state keeps the checkpoint, so a retry runs under the same `stage_run_id`.
 */

import { deepFreeze } from '../../canonical/index.js';
import type { Baton } from '../../chain/baton.js';
import { acceptanceFor, nextStage, stageRunId } from '../../chain/seam.js';
import { isSeamError } from '../../chain/seam-error.js';
import { describeThrown } from '../../delegate/describe-thrown.js';
import { HandoffError, isHandoffError } from '../../errors/index.js';
import type { ChainWiring } from './chain-graph-options.js';
import type { ChainNodeCode, ChainNodeUpdate } from './chain-state.js';
import { journalRelation, readStateBaton } from './committed-baton.js';
import { commitToJournal, describeCommit, loadFromJournal } from './journal-commit.js';

function attemptsOf(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;
}

/**
 * The node of the stage `stage`. In order:
 * 1. the state's baton must be the journal's last commit of its id (`baton_not_committed`
 *    otherwise: a node or a state update forged, edited or replaced it). When the journal is one
 *    commit ahead and that commit is this stage's, made from exactly this baton, the node adopts
 *    it without running the stage again (the graph lost a result the journal kept);
 * 2. the baton must be at this stage (`wrong_stage`);
 * 3. the stage runs through the seam (`HandoffChain.advance`); a refusal is recorded with its
 *    seam code, and nothing is committed;
 * 4. the new baton is committed to the journal (`commit_failed` if it refuses) and becomes the
 *    state's baton, with its acceptance receipt after the last stage.
 * A failure leaves the state's baton as it was (the checkpoint) and counts an attempt; the node
 * never rejects.
 *
 * @example
 * ```ts
 * graph.addNode('settle', seamNode({ chain, journal }, 'settle'));
 * ```
 * @throws HandoffError `usage` when the chain has no stage `stage`.
 */
export function seamNode(
  wiring: ChainWiring,
  stage: string,
): (state: { readonly baton?: unknown; readonly attempt?: unknown }) => Promise<ChainNodeUpdate> {
  const { chain, journal } = wiring;
  if (!chain.specs.some((s) => s.name === stage))
    throw new HandoffError('usage', `chain '${chain.chain_id}' has no stage '${stage}'`);
  return async (state) => {
    const attempt = attemptsOf(state.attempt) + 1;
    const refuse = (code: ChainNodeCode, detail: string, b: Baton | null): ChainNodeUpdate =>
      deepFreeze({
        failure: {
          code,
          stage,
          detail,
          stage_run_id: b === null ? null : stageRunId(b, stage),
          checkpoint: b?.snapshot_id ?? null,
        },
        attempt,
      });
    const read = readStateBaton(state.baton);
    if (!read.ok) return refuse('baton_not_committed', read.detail, null);
    const baton = read.baton;
    const loaded = await loadFromJournal(journal, baton.baton_id);
    if (!loaded.ok) return refuse('commit_failed', loaded.detail, baton);
    const relation = journalRelation(loaded.last, baton);
    const last = loaded.last;
    if (relation === 'behind' && last !== undefined && last.trace[last.trace.length - 1] === stage) {
      return deepFreeze({
        baton: last,
        failure: null,
        attempt: 0,
        acceptance: last.revision === chain.specs.length ? acceptanceFor(chain, last) : null,
        commits: [describeCommit(journal, last)],
      });
    }
    if (relation !== 'same') {
      const held = last === undefined ? 'nothing' : last.snapshot_id;
      return refuse(
        'baton_not_committed',
        `the state's baton ${baton.snapshot_id} is not the journal's last commit of '${baton.baton_id}' (${held})`,
        null,
      );
    }
    const next = nextStage(chain, baton);
    if (next?.name !== stage)
      return refuse(
        'wrong_stage',
        `the baton ${baton.snapshot_id} is at ${next === undefined ? 'the end of the chain' : `stage '${next.name}'`}, not '${stage}'`,
        null,
      );
    let committed: Baton;
    try {
      const seam = await chain.advance(baton, {
        ...(wiring.stageTimeoutMs === undefined ? {} : { stageTimeoutMs: wiring.stageTimeoutMs }),
      });
      committed = seam.baton;
    } catch (e) {
      if (isSeamError(e)) return refuse(e.code, e.detail, baton);
      if (isHandoffError(e) && e.code === 'invalid_checkpoint')
        return refuse('invalid_checkpoint', e.message, baton);
      return refuse('stage_failed', describeThrown(e), baton);
    }
    const c = await commitToJournal(journal, committed);
    if (!c.ok) return refuse('commit_failed', c.detail, baton);
    return deepFreeze({
      baton: committed,
      failure: null,
      attempt: 0,
      acceptance: committed.revision === chain.specs.length ? acceptanceFor(chain, committed) : null,
      commits: [c.commit],
    });
  };
}
