/**
 * Protocol visualisation: the machine → graph model, path overlays, the Mermaid, DOT, JSON and
 * HTML/SVG exporters, the journal → cycle-phase and chain journal → chain-state mappings used by
 * `handoff inspect`, and the generated machine docs.
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
  checkMachineDocs,
  type DocDrift,
  type GeneratedDoc,
  generatedDocs,
  writeMachineDocs,
} from './docs-files.js';
export { type DotOptions, toDot } from './dot.js';
export { dotString, htmlText, markdownCell, mermaidId, mermaidText } from './escape.js';
export {
  actionText,
  displayPath,
  edgeLabel,
  eventLabel,
  guardText,
  isWithin,
  type MachineGraph,
  machineGraph,
  nodeIndex,
  type VizEdge,
  type VizEdgeKind,
  type VizNode,
  type VizNodeType,
} from './graph.js';
export { type HtmlOptions, toHtml, toSvg } from './html.js';
export {
  eventSummary,
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
export {
  compactLabel,
  type EdgeRoute,
  type GraphLayout,
  type InitialMarker,
  type LayoutBox,
  layoutGraph,
} from './layout.js';
export { GENERATED_MARKER, type MachineDocInfo, machineDoc } from './machine-doc.js';
export { MACHINE_NAMES, type MachineName, type NamedMachine, namedMachine } from './machines.js';
export { type MermaidOptions, mermaidIds, toMermaid } from './mermaid.js';
export {
  type OverlayOptions,
  overlayPath,
  type PathGap,
  type PathOverlay,
  type PathStep,
  type ResolvedStep,
  type StateValueLike,
} from './overlay.js';
