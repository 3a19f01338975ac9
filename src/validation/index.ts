export { depthIssue, MAX_RECORD_DEPTH, memberDepthIssue, nestingDepth, TOO_DEEP } from './depth.js';
export type { IntegralFloat } from './integral-floats.js';
export {
  integerFieldFloat,
  integralFloatAsIssue,
  integralFloatIssue,
  integralFloats,
  mayHoldIntegralFloat,
  mayHoldIntegralFloatCanonical,
} from './integral-floats.js';
export type { SafeValidateOptions, ValidationIssue, ValidationResult } from './result.js';
export { formatPath, safeValidate } from './result.js';
