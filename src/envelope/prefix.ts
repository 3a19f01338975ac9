/**
 * The byte-stable prefix: the canonical serialization of the envelope minus its volatile
 * `gateState` tail, its sha256 (a prompt-cache key), the prompt serialization that keeps
 * `gateState` last, and a drift guard that compares prefixes across rounds.
 */
import { canonicalJson, sha256Hex } from '../canonical/index.js';
import { envelopeError } from './errors.js';

/** The stable prefix of an envelope. */
export interface EnvelopePrefix {
  /** Canonical JSON of the envelope without `gateState` (a complete JSON object). */
  readonly text: string;
  /** Lower-case hex sha256 of {@link EnvelopePrefix.text}. */
  readonly digest: string;
  /** UTF-8 byte length of {@link EnvelopePrefix.text}. */
  readonly bytes: number;
}

const VOLATILE_KEY = 'gateState';

function asRecord(envelope: unknown): Readonly<Record<string, unknown>> {
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) {
    throw envelopeError('envelope_invalid_input', 'envelope must be an object', { got: envelope ?? null });
  }
  return envelope as Readonly<Record<string, unknown>>;
}

/**
 * The envelope without its `gateState` tail (a shallow copy).
 *
 * @example
 * ```ts
 * 'gateState' in stableBody(envelope); // false
 * ```
 */
export function stableBody(envelope: unknown): Record<string, unknown> {
  const { [VOLATILE_KEY]: _tail, ...body } = asRecord(envelope);
  return body;
}

/**
 * The byte-stable prefix and its digest.
 *
 * @example
 * ```ts
 * const { digest } = envelopePrefix(envelope); // same digest every round for the same target + gate + settings
 * ```
 * @throws HandoffError `envelope_invalid_input` for a non-object, `canonical_unsupported` for values JSON cannot hold.
 */
export function envelopePrefix(envelope: unknown): EnvelopePrefix {
  const text = canonicalJson(stableBody(envelope));
  return { text, digest: sha256Hex(text), bytes: Buffer.byteLength(text, 'utf8') };
}

/**
 * Serializes an envelope for a prompt: the canonical stable body, then `gateState` as the very
 * last member. Every serialization of the same target + gate + settings starts with the same
 * bytes (`prefix.text` minus its closing brace); only the tail differs per round.
 *
 * @example
 * ```ts
 * serializeEnvelope(env).startsWith(envelopePrefix(env).text.slice(0, -1)); // true
 * ```
 */
export function serializeEnvelope(envelope: unknown): string {
  const record = asRecord(envelope);
  const body = envelopePrefix(record).text;
  if (!Object.hasOwn(record, VOLATILE_KEY)) return body;
  const tail = `${JSON.stringify(VOLATILE_KEY)}:${canonicalJson(record[VOLATILE_KEY])}`;
  return body === '{}' ? `{${tail}}` : `${body.slice(0, -1)},${tail}}`;
}

/** Fields whose value differs from round 0 in one later round. */
export interface PrefixDrift {
  readonly round: number;
  readonly fields: readonly string[];
}

/** Result of {@link findPrefixDrift}. */
export interface PrefixDriftReport {
  readonly stable: boolean;
  /** Digest of round 0's prefix (`null` for no rounds). */
  readonly digest: string | null;
  readonly drift: readonly PrefixDrift[];
}

function fieldBytes(body: Record<string, unknown>): Map<string, string> {
  return new Map(Object.keys(body).map((k) => [k, canonicalJson(body[k])]));
}

/**
 * Compares the prefixes of envelopes built in successive rounds (same target + gate + settings)
 * and names every top-level field above `gateState` whose bytes changed against round 0.
 *
 * @example
 * ```ts
 * findPrefixDrift([round0, round1]).drift; // [] when only gateState changed
 * ```
 */
export function findPrefixDrift(envelopes: readonly unknown[]): PrefixDriftReport {
  const [first, ...rest] = envelopes;
  if (first === undefined) return { stable: true, digest: null, drift: [] };
  const base = envelopePrefix(first);
  const baseFields = fieldBytes(stableBody(first));
  const drift: PrefixDrift[] = [];
  rest.forEach((env, i) => {
    if (envelopePrefix(env).digest === base.digest) return;
    const fields = fieldBytes(stableBody(env));
    const keys = new Set([...baseFields.keys(), ...fields.keys()]);
    const changed = [...keys].filter((k) => baseFields.get(k) !== fields.get(k)).sort();
    drift.push({ round: i + 1, fields: changed });
  });
  return { stable: drift.length === 0, digest: base.digest, drift };
}

/**
 * Throws when any round's prefix differs from round 0's.
 *
 * @example
 * ```ts
 * assertStablePrefix(rounds); // returns round 0's digest
 * ```
 * @throws HandoffError `envelope_prefix_drift` naming the rounds and fields that varied.
 */
export function assertStablePrefix(envelopes: readonly unknown[]): string | null {
  const report = findPrefixDrift(envelopes);
  if (!report.stable) {
    const fields = [...new Set(report.drift.flatMap((d) => d.fields))];
    throw envelopeError(
      'envelope_prefix_drift',
      `per-round-varying field(s) above gateState: ${fields.join(', ')}`,
      { fields, drift: report.drift },
    );
  }
  return report.digest;
}
