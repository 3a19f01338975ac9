/**
 * The named causes with which the envelope builder and the settings loader fail closed. Each is a
 * {@link HandoffError} code; messages start with `handoff-envelope:` (builder) or
 * `devloops-settings:` (loader), and `details` name the field and the observed value.
 */
import { type ENVELOPE_CODES, HandoffError } from '../errors/index.js';

/**
 * Codes thrown by the envelope layer: the catalogue's envelope list ({@link ENVELOPE_CODES}).
 *
 * - `envelope_invalid_input`: the resolver output is not an object.
 * - `envelope_missing_field`: `selectedStrategy`, `executionMode` or `nextAction` is not a non-empty string.
 * - `envelope_invalid_repo`: no valid `owner/name` slug.
 * - `envelope_invalid_target`: no valid target kind, or the kind's required number/name is missing.
 * - `envelope_unknown_template`: no acceptance template for the strategy + gate (details list the known combos).
 * - `envelope_reconcile_tuple`: a result marked for reconciliation that is not the exact terminal tuple.
 * - `envelope_invalid_option`: a caller option of the wrong type (`overrides`, `sanctionedCommands`, `now`…).
 * - `envelope_invalid_settings`: settings whose known keys have the wrong types.
 * - `envelope_prefix_drift`: envelopes of the same target + gate + settings whose stable prefixes differ.
 * - `settings_unreadable`: a settings file exists but cannot be read.
 * - `settings_invalid`: a settings file that parses as neither YAML nor JSON, or is not a mapping.
 */
export type EnvelopeErrorCode = (typeof ENVELOPE_CODES)[number];

/**
 * Builds the builder's {@link HandoffError}: message prefixed `handoff-envelope:`.
 *
 * @example
 * ```ts
 * throw envelopeError('envelope_invalid_repo', 'repo slug is required (owner/name)', { got: 'x' });
 * ```
 */
export function envelopeError(
  code: EnvelopeErrorCode,
  message: string,
  details: Record<string, unknown> = {},
): HandoffError {
  return new HandoffError(code, `handoff-envelope: ${message}`, { details });
}
