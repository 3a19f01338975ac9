/**
 * The zod records publish as JSON Schema (the integrator adds them to PUBLISHED_SCHEMAS) and the
 * strict envelope schema accepts exactly what the builder emits.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  buildHandoffEnvelope,
  DevLoopsSettingsSchema,
  EXTENSION_DEFAULT_SETTINGS,
  HandoffEnvelopeSchema,
  SanctionedCommandsSchema,
} from '../../src/envelope/index.js';
import { BASE_OPTS, bareBundle } from './helpers.js';

describe('envelope JSON Schemas', () => {
  it.each([
    ['dev-loop-handoff-envelope.v1', HandoffEnvelopeSchema],
    ['devloops-settings.v1', DevLoopsSettingsSchema],
    ['sanctioned-commands.v1', SanctionedCommandsSchema],
  ])('%s converts to draft-2020-12 JSON Schema', (_name, schema) => {
    const doc = z.toJSONSchema(schema as z.ZodType, {
      target: 'draft-2020-12',
      unrepresentable: 'any',
      io: 'input',
    }) as {
      type?: string;
      properties?: Record<string, unknown>;
    };
    expect(doc.type).toBe('object');
    expect(Object.keys(doc.properties ?? {}).length).toBeGreaterThan(3);
  });

  it('the envelope schema requires gateState and rejects unknown keys', () => {
    const env = JSON.parse(JSON.stringify(buildHandoffEnvelope(bareBundle('wait_watch'), {}, {}, BASE_OPTS)));
    expect(HandoffEnvelopeSchema.safeParse(env).success).toBe(true);
    expect(HandoffEnvelopeSchema.safeParse({ ...env, extra: 1 }).success).toBe(false);
    const { gateState: _g, ...noTail } = env;
    expect(HandoffEnvelopeSchema.safeParse(noTail).success).toBe(false);
  });

  it('the extension defaults satisfy the settings schema', () => {
    expect(DevLoopsSettingsSchema.safeParse(EXTENSION_DEFAULT_SETTINGS).success).toBe(true);
  });
});
