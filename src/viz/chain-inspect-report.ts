/**
 * The `handoff inspect` report of a handoff-chain run (pure): a loaded chain run
 * (`run-store-manifest/chain-v1`) summarised — manifest, baton commits with seqs and cites, the
 * last committed baton, damage and warnings — plus its derived path over the chain machine and
 * that path's overlay: the chain machine's recorded transition trace when the run's commits
 * carried one ({@link chainRecordedPath}), else the path derived from the commits. Text and JSON
 * renderings.
 */

import { formatCite } from '../store/cite.js';
import type { ChainRunLoad } from '../store/index.js';
import { type ChainJournalPath, chainJournalPath } from './chain-path.js';
import { chainRecordedPath } from './chain-recorded-path.js';
import { edgeLabel, type MachineGraph } from './graph.js';
import { graphDocument } from './json.js';
import { overlayPath, type PathOverlay } from './overlay.js';
import type { RecordedStep } from './recorded-path.js';

/** Schema id of the JSON report of a chain run. */
export const CHAIN_INSPECT_SCHEMA = 'handoff-inspect/chain-v1';

/** One baton-commit line of the report. */
export interface ChainInspectEvent {
  readonly seq: number;
  readonly cite: string;
  readonly ts: string;
  readonly kind: string;
  readonly stage: string;
  readonly revision: number;
  readonly summary: string;
}

/** The chain inspect report. */
export interface ChainInspectReport {
  readonly schema: typeof CHAIN_INSPECT_SCHEMA;
  readonly run_id: string;
  readonly machine: 'chain';
  readonly manifest: {
    readonly schema: string;
    readonly created: string;
    readonly plugin_version: string;
    readonly storage_root: string;
    readonly prior_run: string | null;
    readonly chain_id: string;
    readonly baton_id: string;
    readonly contract_id: string;
    readonly contract_digest: string;
    readonly stages: readonly string[];
    readonly event_schema: string;
    readonly start_baton: string;
  };
  readonly events: readonly ChainInspectEvent[];
  readonly last_baton: {
    readonly revision: number;
    readonly snapshot_id: string;
    readonly trace: readonly string[];
  };
  readonly damaged: { readonly code: string; readonly line: number; readonly detail: string } | null;
  readonly warnings: readonly string[];
  readonly path: ChainJournalPath;
  readonly overlay: PathOverlay;
}

/**
 * Builds the report of a loaded chain run over the chain machine's graph: with `recorded` (the
 * chain machine's steps its commits carried) the recorded path, else the path derived from the
 * commits. The path's first limit says which.
 *
 * @example
 * ```ts
 * const r = chainInspectReport(load, machineGraph(chainMachine)); // derived from the commits
 * r.path.steps.at(-1)?.state; // 'accepted'
 * chainInspectReport(load, graph, recordedSteps); // the recorded transition trace, nothing inferred
 * ```
 */
export function chainInspectReport(
  load: ChainRunLoad,
  chain: MachineGraph,
  recorded: readonly RecordedStep[] = [],
): ChainInspectReport {
  const run = load.run_id;
  const m = load.manifest;
  const derived = chainJournalPath(load);
  const { path, overlay } =
    recorded.length > 0
      ? chainRecordedPath(chain, recorded, derived, run)
      : { path: derived, overlay: overlayPath(chain, derived.steps) };
  return {
    schema: CHAIN_INSPECT_SCHEMA,
    run_id: run,
    machine: 'chain',
    manifest: {
      schema: m.schema,
      created: m.created,
      plugin_version: m.plugin_version,
      storage_root: m.storage_root,
      prior_run: m.prior_run,
      chain_id: m.chain_id,
      baton_id: m.baton_id,
      contract_id: m.contract.contract_id,
      contract_digest: m.contract_digest,
      stages: [...m.stages],
      event_schema: m.event_schema,
      start_baton: m.start_baton.snapshot_id,
    },
    events: load.events.map((e) => {
      const r = e.payload.receipt;
      return {
        seq: e.seq,
        cite: formatCite(run, e.seq),
        ts: e.ts,
        kind: e.kind,
        stage: r.stage_name,
        revision: e.payload.baton.revision,
        summary: `${r.stage_name} r${r.input_revision}->r${r.output_revision} produced [${r.produced_keys.join(', ')}] ${r.input_fingerprint} -> ${r.output_fingerprint}`,
      };
    }),
    last_baton: {
      revision: load.last_baton.revision,
      snapshot_id: load.last_baton.snapshot_id,
      trace: [...load.last_baton.trace],
    },
    // handoff-inspect/v1 keeps its own shape: the damage object (or null) and warning codes
    damaged:
      load.damage === null
        ? null
        : { code: load.damage.code, line: load.damage.line, detail: load.damage.detail },
    warnings: load.warnings.map((w) => w.code),
    path,
    overlay,
  };
}

/**
 * The chain report as JSON data (fixed key order; the overlay in the viz graph document's form).
 *
 * @example
 * ```ts
 * JSON.stringify(chainInspectJson(report, graph));
 * ```
 */
export function chainInspectJson(r: ChainInspectReport, chain: MachineGraph): Record<string, unknown> {
  const doc = graphDocument(chain, r.overlay);
  return {
    schema: r.schema,
    run_id: r.run_id,
    machine: r.machine,
    manifest: r.manifest,
    events: r.events,
    last_baton: r.last_baton,
    damaged: r.damaged,
    warnings: r.warnings,
    path: {
      finished: r.path.finished,
      revision: r.path.revision,
      stage_count: r.path.stage_count,
      steps: r.path.steps.map((s) => ({
        state: s.state,
        cite: s.cite,
        seq: s.seq,
        stage: s.stage,
        source: s.source,
      })),
      limits: r.path.limits,
    },
    overlay: doc.overlay,
  };
}

/**
 * The chain report as plain text for a terminal.
 *
 * @example
 * ```ts
 * io.out(chainInspectText(report, graph));
 * ```
 */
export function chainInspectText(r: ChainInspectReport, chain: MachineGraph): string {
  const m = r.manifest;
  const lines: string[] = [];
  lines.push(`chain run ${r.run_id}`);
  lines.push(`  created ${m.created} · ${m.schema} · events ${m.event_schema}`);
  lines.push(`  store ${m.storage_root} · prior run ${m.prior_run ?? '-'}`);
  lines.push(
    `  chain ${m.chain_id} · baton ${m.baton_id} · contract ${m.contract_id} (${m.contract_digest})`,
  );
  lines.push(`  stages ${m.stages.join(' -> ')}`);
  lines.push(`  start baton (${r.run_id}#manifest): ${m.start_baton}`);
  lines.push('');
  lines.push(`commits (${r.events.length}):`);
  for (const e of r.events) lines.push(`  #${e.seq} ${e.ts} ${e.kind} ${e.summary}  [${e.cite}]`);
  lines.push('');
  lines.push(
    `last committed baton: ${r.last_baton.snapshot_id} (trace ${r.last_baton.trace.join(' -> ') || '(none)'})`,
  );
  if (r.damaged !== null)
    lines.push(`journal damage: ${r.damaged.code} at line ${r.damaged.line}: ${r.damaged.detail}`);
  if (r.warnings.length > 0) lines.push(`warnings: ${r.warnings.join(', ')}`);
  lines.push('');
  lines.push(
    `path over the ${chain.id} machine (${r.path.finished ? 'accepted' : 'unfinished'}, revision ${r.path.revision} of ${r.path.stage_count}):`,
  );
  const recorded = r.path.steps.some((s) => s.source === 'trace');
  r.overlay.steps.forEach((s, i) => {
    const step = r.path.steps[i];
    const via =
      s.edge !== null
        ? ` via ${edgeLabel(chain.edges.find((e) => e.id === s.edge) as (typeof chain.edges)[number])}`
        : s.inferred.length > 0
          ? ` via ${s.inferred.length} inferred transition(s)`
          : '';
    const stage = step?.stage ? ` ${step.stage}` : '';
    const from = recorded && step?.source === 'acceptance' ? ' (from the journal: not in the trace)' : '';
    lines.push(
      `  ${String(i + 1).padStart(2)}. ${step?.state ?? '?'}${stage}${via}${from}  [${step?.cite ?? ''}]`,
    );
  });
  for (const gap of r.overlay.gaps) lines.push(`  gap at step ${gap.step + 1}: ${gap.reason}`);
  lines.push('limits:');
  for (const l of r.path.limits) lines.push(`  - ${l}`);
  return `${lines.join('\n')}\n`;
}
