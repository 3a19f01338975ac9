export type { ValidationIssue, ValidationResult } from './result.js';
export { formatPath, safeValidate } from './result.js';
