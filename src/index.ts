/**
 * handoff-runtime — verifiable agent handoffs. The public library surface.
 */

export * from './baseline/index.js';
export * from './canonical/index.js';
export * from './contract/index.js';
export * from './errors/index.js';
export { generateJsonSchemas, PUBLISHED_SCHEMAS } from './json-schemas.js';
export * from './validation/index.js';
