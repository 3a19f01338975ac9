/**
 * The entry node of a chain graph (layer 3, effects): admits the baton the graph was invoked with
 * — a fresh baton or a checkpoint to resume from — as the journal's starting point.
 */
import { deepFreeze } from '../../canonical/index.js';
import { acceptanceFor, checkpointProblem } from '../../chain/seam.js';
import type { ChainWiring } from './chain-graph-options.js';
import type { ChainGraphCommit, ChainNodeCode, ChainNodeUpdate } from './chain-state.js';
import { journalRelation, readStateBaton } from './committed-baton.js';
import { commitToJournal, loadFromJournal } from './journal-commit.js';

/**
 * The name of a chain graph's entry node.
 *
 * @example
 * ```ts
 * chainGraph(chain).compile().getGraph().nodes[ADMIT_NODE]; // the entry
 * ```
 */
export const ADMIT_NODE = 'admit';

function refuse(code: ChainNodeCode, detail: string, checkpoint: string | null): ChainNodeUpdate {
  return deepFreeze({
    failure: { code, stage: ADMIT_NODE, detail, stage_run_id: null, checkpoint },
    attempt: 0,
  });
}

/**
 * The entry node: reads the invoking baton (`readStateBaton`), checks it is a checkpoint of the
 * chain, and makes it the journal's starting point — committed when the journal holds nothing for
 * its id, accepted as it is when it is the journal's last commit (a resume). A baton the journal
 * has moved past, or one that differs from its last commit, is refused (`baton_not_committed`):
 * resume from `journal.loadLast(batonId)`. A complete baton gets its acceptance receipt.
 *
 * @example
 * ```ts
 * graph.addNode(ADMIT_NODE, admitNode({ chain, journal })).addEdge(START, ADMIT_NODE);
 * ```
 */
export function admitNode(
  wiring: ChainWiring,
): (state: { readonly baton?: unknown }) => Promise<ChainNodeUpdate> {
  const { chain, journal } = wiring;
  return async (state) => {
    const read = readStateBaton(state.baton);
    if (!read.ok) return refuse('invalid_checkpoint', read.detail, null);
    const baton = read.baton;
    const problem = checkpointProblem(chain, baton);
    if (problem !== null) return refuse('invalid_checkpoint', problem, null);
    const loaded = await loadFromJournal(journal, baton.baton_id);
    if (!loaded.ok) return refuse('commit_failed', loaded.detail, baton.snapshot_id);
    const relation = journalRelation(loaded.last, baton);
    const commits: ChainGraphCommit[] = [];
    if (relation === 'none') {
      const c = await commitToJournal(journal, baton);
      if (!c.ok) return refuse('commit_failed', c.detail, baton.snapshot_id);
      commits.push(c.commit);
    } else if (relation !== 'same') {
      const last = loaded.last?.snapshot_id ?? '?';
      return refuse(
        'baton_not_committed',
        `the journal's last commit of '${baton.baton_id}' is ${last}, not ${baton.snapshot_id}: resume from the journal`,
        last,
      );
    }
    const complete = baton.revision === chain.specs.length;
    return deepFreeze({
      baton,
      failure: null,
      attempt: 0,
      acceptance: complete ? acceptanceFor(chain, baton) : null,
      commits,
    });
  };
}
