/**
 * Protocol visualisation: the machine → graph model, path overlays, the Mermaid, DOT, JSON and
 * HTML/SVG exporters, the journal → cycle-phase and chain journal → chain-state mappings and the
 * recorded transition trace → path core used by `handoff inspect`. Public names only: label and escape helpers, the layout engine and the
 * generator of docs/machines/ stay internal (imported from their files).
 */

export {
  CHAIN_INSPECT_SCHEMA,
  type ChainInspectEvent,
  type ChainInspectReport,
  chainInspectJson,
  chainInspectReport,
  chainInspectText,
} from './chain-inspect-report.js';
export {
  CHAIN_PATH_LIMIT,
  type ChainJournalLike,
  type ChainJournalPath,
  type ChainPhaseStep,
  chainJournalPath,
} from './chain-path.js';
export {
  CHAIN_ACCEPTANCE_LIMIT,
  CHAIN_TRACE_LIMIT_PREFIX,
  chainRecordedPath,
} from './chain-recorded-path.js';
export { type DotOptions, toDot } from './dot.js';
export {
  type MachineGraph,
  machineGraph,
  type VizEdge,
  type VizEdgeKind,
  type VizNode,
  type VizNodeType,
} from './graph.js';
export { type HtmlOptions, toHtml, toSvg } from './html.js';
export {
  INSPECT_SCHEMA,
  type InspectEvent,
  type InspectReport,
  inspectJson,
  inspectReport,
  inspectText,
} from './inspect-report.js';
export {
  JOURNAL_PATH_LIMIT,
  type JournalLike,
  type JournalPath,
  journalPath,
  type PhaseStep,
} from './journal-path.js';
export { graphDocument, toJson, VIZ_GRAPH_SCHEMA } from './json.js';
export { MACHINE_NAMES, type MachineName, type NamedMachine, namedMachine } from './machines.js';
export { type MermaidOptions, toMermaid } from './mermaid.js';
export {
  type OverlayOptions,
  overlayPath,
  type PathGap,
  type PathOverlay,
  type PathStep,
  type ResolvedStep,
  type StateValueLike,
} from './overlay.js';
export {
  type RecordedStep,
  type RecordedTrail,
  type RecordedTrailOptions,
  type RecordedTrailStep,
  recordedTrail,
} from './recorded-path.js';
