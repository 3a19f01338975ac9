/**
 * The sandbox (one home): namespaces, the writable layer over the project, and what changed.
 * A worker runs with the project read-only under a private overlay layer, a private `/tmp` and
 * `$HOME`, no network by default and its own PID namespace; after it exits the layer is read and
 * only the owned files' bytes may reach the host (docs/sandbox.md).
 */
export { applyLayerFiles } from './apply-layer.js';
export { discardedViolation, type LayerPlan, type PlanLayerOptions, planLayer } from './apply-rule.js';
export {
  MOUNT_SCRIPT,
  namespaceShell,
  overlayPathDefect,
  privateDirsFor,
  SANDBOX_HOME,
  type SandboxArgvOptions,
  type SandboxLayout,
  sandboxArgv,
} from './argv.js';
export { findExecutable } from './executables.js';
export { entryKind, type LayerChanges, NO_LAYER_CHANGES, nameText, type SpecialKind } from './layer-entry.js';
export {
  type LayerFile,
  type LayerRead,
  type OpaqueCandidate,
  type ReadLayerOptions,
  readLayer,
} from './layer-reader.js';
export {
  SANDBOX_MODES,
  SANDBOX_NETWORKS,
  type SandboxDecision,
  type SandboxMode,
  type SandboxNetwork,
  sandboxDecision,
} from './mode.js';
export { opaqueDirectories } from './opaque-check.js';
export { ownershipDefect, probeFailureReason, probeSandbox, type SandboxProbe } from './probe.js';
export {
  type LayerOwnedFile,
  runSandboxed,
  type SandboxRunOptions,
  type SandboxRunResult,
  sandboxesDir,
} from './run-sandboxed.js';
