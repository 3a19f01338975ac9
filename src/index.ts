/**
 * handoff-runtime — verifiable agent handoffs. The public library surface.
 */

export * from './baseline/index.js';
export * from './canonical/index.js';
export * from './chain/index.js';
export * from './contract/index.js';
export * from './envelope/index.js';
export * from './errors/index.js';
/** The statement fence (declaration headers, extractors, comparison), namespaced. */
export * as fence from './fence/index.js';
/** The gate protocol, namespaced (its record names overlap the chain's): `gate.createFsLedger`, … */
export * as gate from './gate/index.js';
export * as git from './git/index.js';
export { generateJsonSchemas, PUBLISHED_SCHEMAS } from './json-schemas.js';
export * from './persist/index.js';
export { RESULT_SCHEMA as PERSIST_RESULT_SCHEMA } from './persist/index.js';
export * from './process/index.js';
export * from './runtime/index.js';
export * from './store/index.js';
// Names two barrels share, made explicit: the store's result schema id keeps the plain name.
export { RESULT_SCHEMA } from './store/index.js';
export * from './tracker/index.js';
export * from './validation/index.js';
/** Protocol visualisation (graph model, Mermaid/DOT/JSON/HTML exporters, path overlay), namespaced. */
export * as viz from './viz/index.js';
