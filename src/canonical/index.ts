export { canonicalJson, tryCanonicalJson } from './canonical-json.js';
export { digestOf, fingerprintOf, sha256Hex } from './digest.js';
