export { canonicalJson, compareCodePoints, quoteAscii, tryCanonicalJson } from './canonical-json.js';
export {
  canonicalJsonUtf8,
  isCanonicalJsonUtf8Text,
  isWellFormedText,
  pythonFloatRepr,
  pythonNumber,
} from './canonical-json-utf8.js';
export { deepFreeze } from './deep-freeze.js';
export { digestOf, fingerprintOf, sha256Hex } from './digest.js';
