export { canonicalJson, tryCanonicalJson } from './canonical-json.js';
export { deepFreeze } from './deep-freeze.js';
export { digestOf, fingerprintOf, sha256Hex } from './digest.js';
