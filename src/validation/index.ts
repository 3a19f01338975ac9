export { formatPath, safeValidate } from './result.js';
export type { ValidationIssue, ValidationResult } from './result.js';
