export { HEX_ALPHABET, hexIdSource, type IdSource, randomHex } from './random-id.js';
