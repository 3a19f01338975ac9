/**
 * The `handoff inspect` report (pure): a loaded run (run-store-load/v1) summarised — manifest,
 * events with seqs and cites, the effective handoff, damage and warnings — plus its derived cycle
 * path and that path's overlay on the cycle machine. Text and JSON renderings.
 */

import { formatCite } from '../store/cite.js';
import type { RunLoad } from '../store/index.js';
import { edgeLabel, type MachineGraph } from './graph.js';
import { type JournalPath, journalPath } from './journal-path.js';
import { graphDocument } from './json.js';
import { overlayPath, type PathOverlay } from './overlay.js';
import { type RecordedStep, recordedPath } from './recorded-path.js';

/** Schema id of the JSON report. */
export const INSPECT_SCHEMA = 'handoff-inspect/v1';

/** One event line of the report. */
export interface InspectEvent {
  readonly seq: number;
  readonly cite: string;
  readonly ts: string;
  readonly kind: string;
  readonly summary: string;
}

/** The inspect report. */
export interface InspectReport {
  readonly schema: typeof INSPECT_SCHEMA;
  readonly run_id: string;
  readonly manifest: {
    readonly schema: string;
    readonly created: string;
    readonly plugin_version: string;
    readonly storage_root: string;
    readonly tracker_session_id: string | null;
    readonly prior_run: string | null;
    readonly event_schema: string;
    readonly first_dispatch: string;
  };
  readonly events: readonly InspectEvent[];
  readonly effective_handoff: {
    readonly seq: number;
    readonly cite: string;
    readonly status: string | null;
    readonly stop_reason: string | null;
    readonly next_action: string | null;
    readonly target: string | null;
  } | null;
  readonly handoff_cache: string;
  readonly damaged: { readonly code: string; readonly line: number; readonly detail: string } | null;
  readonly warnings: readonly string[];
  readonly path: JournalPath;
  readonly overlay: PathOverlay;
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/** Whitespace runs (newlines included) as one space: a stored string never starts a line of its own. */
function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

function clip(s: string, n = 72): string {
  const one = oneLine(s);
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

/**
 * A one-line summary of an event payload.
 *
 * @example
 * ```ts
 * eventSummary('note', { kind: 'candidate', text: 'simp', lean: null }); // 'candidate: simp'
 * ```
 */
export function eventSummary(kind: string, payload: unknown): string {
  const p = (payload ?? {}) as Record<string, unknown>;
  switch (kind) {
    case 'dispatch':
      return clip(
        `${str(p.target) ?? '?'} scope ${str(p.scope) ?? '?'} mode ${str(p.mode) ?? '?'} worker ${str(p.worker) ?? 'inline'}`,
      );
    case 'handoff':
      return clip(
        `${str(p.status) ?? '?'}${p.stop_reason ? ` (${String(p.stop_reason)})` : ''} ${str(p.target) ?? ''} next ${str(p.next_action) ?? '?'}`,
      );
    case 'note':
      return clip(`${str(p.kind) ?? '?'}: ${str(p.text) ?? ''}`);
    case 'review':
      return clip(
        `${str(p.mode) ?? '?'} review ${str(p.status) ?? '?'} cycle ${String(p.cycle ?? '?')} ${str(p.target) ?? ''}`,
      );
    case 'replan':
      return clip(`cycle ${String(p.cycle ?? '?')}: ${str(p.plan) ?? ''}`);
    default:
      return kind;
  }
}

/**
 * Builds the report of a loaded run over the cycle machine's graph.
 *
 * @example
 * ```ts
 * const r = inspectReport(load, machineGraph(cycleMachine)); // the path inferred from the journal
 * r.path.steps.at(-1)?.state; // 'solved'
 * inspectReport(load, graph, recordedSteps); // the recorded transition trace, nothing inferred
 * ```
 */
export function inspectReport(
  load: RunLoad,
  cycle: MachineGraph,
  recorded: readonly RecordedStep[] = [],
): InspectReport {
  const run = load.run_id;
  const journal = journalPath(load);
  const { path, overlay } =
    recorded.length > 0
      ? recordedPath(cycle, recorded, journal, run)
      : { path: journal, overlay: overlayPath(cycle, journal.steps, { avoid: journal.avoid }) };
  const eff = load.effective_handoff;
  const ep = (eff?.payload ?? {}) as Record<string, unknown>;
  const m = load.manifest as unknown as Record<string, unknown>;
  return {
    schema: INSPECT_SCHEMA,
    run_id: run,
    manifest: {
      schema: String(m.schema),
      created: String(m.created),
      plugin_version: String(m.plugin_version),
      storage_root: String(m.storage_root),
      tracker_session_id: str(m.tracker_session_id),
      prior_run: str(m.prior_run),
      event_schema: load.event_schema,
      first_dispatch: eventSummary('dispatch', m.dispatch),
    },
    events: load.events.map((e) => ({
      seq: e.seq,
      cite: formatCite(run, e.seq),
      ts: e.ts,
      kind: e.kind,
      summary: eventSummary(e.kind, e.payload),
    })),
    effective_handoff:
      eff === null
        ? null
        : {
            seq: eff.seq,
            cite: formatCite(run, eff.seq),
            status: str(ep.status),
            stop_reason: str(ep.stop_reason),
            next_action: str(ep.next_action),
            target: str(ep.target),
          },
    handoff_cache: load.handoff_cache,
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
 * The report as JSON data (fixed key order; the overlay in the viz graph document's form).
 *
 * @example
 * ```ts
 * JSON.stringify(inspectJson(report, graph));
 * ```
 */
export function inspectJson(r: InspectReport, cycle: MachineGraph): Record<string, unknown> {
  const doc = graphDocument(cycle, r.overlay);
  return {
    schema: r.schema,
    run_id: r.run_id,
    manifest: r.manifest,
    events: r.events,
    effective_handoff: r.effective_handoff,
    handoff_cache: r.handoff_cache,
    damaged: r.damaged,
    warnings: r.warnings,
    path: {
      finished: r.path.finished,
      steps: r.path.steps.map((s) => ({ state: s.state, cite: s.cite, seq: s.seq, source: s.source })),
      notes: r.path.notes,
      limits: r.path.limits,
    },
    overlay: doc.overlay,
  };
}

/**
 * The report as plain text for a terminal.
 *
 * @example
 * ```ts
 * io.out(inspectText(report, graph));
 * ```
 */
export function inspectText(r: InspectReport, cycle: MachineGraph): string {
  const lines: string[] = [];
  lines.push(`run ${r.run_id}`);
  lines.push(`  created ${r.manifest.created} · ${r.manifest.schema} · events ${r.manifest.event_schema}`);
  lines.push(`  store ${r.manifest.storage_root}`);
  lines.push(
    `  tracker session ${r.manifest.tracker_session_id ?? '-'} · prior run ${r.manifest.prior_run ?? '-'}`,
  );
  lines.push(`  first dispatch (${r.run_id}#manifest): ${r.manifest.first_dispatch}`);
  lines.push('');
  lines.push(`events (${r.events.length}):`);
  for (const e of r.events) lines.push(`  #${e.seq} ${e.ts} ${e.kind.padEnd(8)} ${e.summary}  [${e.cite}]`);
  lines.push('');
  const h = r.effective_handoff;
  lines.push(
    h === null
      ? 'effective handoff: none'
      : `effective handoff: ${h.cite} ${h.status ?? '?'}${h.stop_reason ? ` (${h.stop_reason})` : ''} next ${h.next_action ?? '?'} (cache ${r.handoff_cache})`,
  );
  if (r.damaged !== null)
    lines.push(`journal damage: ${r.damaged.code} at line ${r.damaged.line}: ${oneLine(r.damaged.detail)}`);
  if (r.warnings.length > 0) lines.push(`warnings: ${r.warnings.map(oneLine).join(', ')}`);
  lines.push('');
  lines.push(`path over the ${cycle.id} machine (${r.path.finished ? 'finished' : 'unfinished'}):`);
  r.overlay.steps.forEach((s, i) => {
    const step = r.path.steps[i];
    const via =
      s.edge !== null
        ? ` via ${edgeLabel(cycle.edges.find((e) => e.id === s.edge) as (typeof cycle.edges)[number])}`
        : s.inferred.length > 0
          ? ` via ${s.inferred.length} inferred transition(s)`
          : '';
    lines.push(`  ${String(i + 1).padStart(2)}. ${step?.state ?? '?'}${via}  [${step?.cite ?? ''}]`);
  });
  for (const n of r.path.notes) lines.push(`  note ${n.cite} during step ${n.step + 1}`);
  for (const gap of r.overlay.gaps) lines.push(`  gap at step ${gap.step + 1}: ${gap.reason}`);
  lines.push('limits:');
  for (const l of r.path.limits) lines.push(`  - ${l}`);
  return `${lines.join('\n')}\n`;
}
