/**
 * The recorded path of a chain run (pure): the chain machine's transitions that each
 * `baton-commit` of a chain run on the run store carried in its batch record (the transitions
 * since the previous commit), drawn as observed steps over the chain machine
 * ({@link recordedTrail}) instead of the path derived from the commits ({@link chainJournalPath}).
 * Unlike the derived path it shows what the commits cannot: a stage that failed and was retried
 * before its commit, a seam refusal followed by a retry. The derived path still gives what no
 * journal write carries — whether the chain was accepted (no write follows the acceptance) — and
 * each commit's stage.
 */

import { CHAIN_PATH_LIMIT, type ChainJournalPath, type ChainPhaseStep } from './chain-path.js';
import type { MachineGraph } from './graph.js';
import type { PathOverlay, ResolvedStep } from './overlay.js';
import { type RecordedStep, recordedTrail } from './recorded-path.js';

/** The limit of a chain path drawn from its recorded trace (first of its limits). */
export const CHAIN_TRACE_LIMIT_PREFIX = "the path is the run's recorded transition trace";

/** The limit added when the acceptance (not in any journal write) is drawn from the journal. */
export const CHAIN_ACCEPTANCE_LIMIT =
  'the acceptance after the last commit is not in the trace (no journal write follows it): it is drawn because the last baton covers every stage';

/**
 * Builds a chain run's path from its recorded steps; `derived` is the run's commit-derived path
 * (its stages by cite, whether it was accepted, its unfinished limit). An accepted run's trace
 * ends at its last commit: the acceptance is appended from the journal, through the machine's
 * edge from the trace's last state to `accepted` (a gap when there is none — a trace that does not
 * end where the commits say it must). Commits that carried no trace are named in a limit.
 *
 * @example
 * ```ts
 * const derived = chainJournalPath(load);
 * const { path, overlay } = chainRecordedPath(graph, recorded, derived, load.run_id);
 * path.steps.map((s) => s.state); // ['ready', 'running', 'failed', 'running', 'validating', 'committed', …, 'accepted']
 * path.steps.at(-1)?.source; // 'acceptance' (derived); the others 'manifest' or 'trace'
 * ```
 */
export function chainRecordedPath(
  g: MachineGraph,
  recorded: readonly RecordedStep[],
  derived: ChainJournalPath,
  runId: string,
): { path: ChainJournalPath; overlay: PathOverlay } {
  const trail = recordedTrail(g, recorded, runId, { restarts: true });
  const commits = new Map<string, ChainPhaseStep>();
  for (const s of derived.steps) if (s.source === 'baton-commit') commits.set(s.cite, s);
  const steps: ChainPhaseStep[] = trail.steps.map((s) => {
    const commit = s.source === 'trace' ? commits.get(s.cite) : undefined;
    const stage = commit?.stage ?? null;
    return {
      state: s.state,
      cite: s.cite,
      seq: commit?.seq ?? null,
      stage,
      source: s.source,
      label: stage === null ? s.cite : `${s.cite} ${stage}`,
    };
  });
  const resolved: ResolvedStep[] = [...trail.overlay.steps];
  const nodeVisits = { ...trail.overlay.nodeVisits };
  const edgeVisits = { ...trail.overlay.edgeVisits };
  const gaps = [...trail.overlay.gaps];
  let current = trail.overlay.current;
  const limits = [
    `${CHAIN_TRACE_LIMIT_PREFIX} (${trail.transitions} transitions stored with its baton commits); nothing is inferred — handoff audit checks it against the machine`,
  ];
  const accepted = `${g.root}.accepted`;
  if (derived.finished && current !== accepted) {
    const last = derived.steps.filter((s) => s.source === 'baton-commit').at(-1);
    const cite = last?.cite ?? `${runId}#manifest`;
    const edge =
      current === null
        ? undefined
        : g.edges.find((e) => e.source === current && e.targets.length === 1 && e.targets[0] === accepted);
    const index = steps.length;
    steps.push({
      state: 'accepted',
      cite,
      seq: last?.seq ?? null,
      stage: null,
      source: 'acceptance',
      label: `${cite} every stage committed`,
    });
    resolved.push({
      index,
      nodes: [accepted],
      event: null,
      label: cite,
      edge: edge?.id ?? null,
      inferred: [],
    });
    nodeVisits[accepted] = (nodeVisits[accepted] ?? 0) + 1;
    if (edge !== undefined) edgeVisits[edge.id] = (edgeVisits[edge.id] ?? 0) + 1;
    else
      gaps.push({
        step: index,
        reason: `the commits complete the chain, but the recorded trace ends in ${current ?? 'no state'}, which has no transition to ${accepted} (see handoff audit)`,
      });
    current = accepted;
    limits.push(CHAIN_ACCEPTANCE_LIMIT);
  }
  const traced = new Set(recorded.map((r) => r.cite));
  const untraced = [...commits.keys()].filter((c) => !traced.has(c));
  if (untraced.length > 0)
    limits.push(
      `commits written without a trace (their steps are missing from the path): ${untraced.join(', ')}`,
    );
  if (!derived.finished)
    limits.push(
      "the steps after the run's last commit (a failure at the next seam, a retry, a give-up) are never written: the path ends at the last commit's trace",
    );
  limits.push(...derived.limits.filter((l) => l !== CHAIN_PATH_LIMIT));
  return {
    path: { ...derived, steps, limits },
    overlay: { steps: resolved, nodeVisits, edgeVisits, inferredNodes: {}, inferredEdges: {}, gaps, current },
  };
}
