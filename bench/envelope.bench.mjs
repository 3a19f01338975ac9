// Dev-loop handoff envelope: build, prefix and validate throughput. Ratios against raw baselines
// measured in the same run: the prefix against a bare canonicalJson+sha256 of the same envelope
// (target ≥ 0.8: stripping gateState must cost little), the validator against a bare zod safeParse
// of HandoffEnvelopeSchema (target ≥ 1), the full build against that same bare zod parse (a build
// derives, validates and freezes a record; target ≥ 0.2).
import { readFileSync } from 'node:fs';
import { canonicalJson, sha256Hex } from '../dist/src/canonical/index.js';
import {
  buildHandoffEnvelope,
  EXTENSION_DEFAULT_SETTINGS,
  envelopePrefix,
  HandoffEnvelopeSchema,
  validateHandoffEnvelope,
} from '../dist/src/envelope/index.js';
import { opsPerSecondSync } from './lib.mjs';

export default async function bench() {
  const ex = (f) => JSON.parse(readFileSync(new URL(`../examples/envelope/${f}`, import.meta.url), 'utf8'));
  const resolver = ex('resolver-copilot-bare.json');
  const sanctioned = ex('sanctioned-commands.json');
  const gateState = { ...ex('gate-state.json'), currentSubGate: 'draft' };
  const opts = { repoRoot: '/work/repo', sanctionedCommands: sanctioned, env: {}, now: 0 };
  const env = buildHandoffEnvelope(resolver, EXTENSION_DEFAULT_SETTINGS, gateState, opts);
  const plain = JSON.parse(JSON.stringify(env));

  const rawDigest = opsPerSecondSync(() => sha256Hex(canonicalJson(plain)), 1000);
  const prefix = opsPerSecondSync(() => envelopePrefix(plain), 1000);
  const bareZod = opsPerSecondSync(() => HandoffEnvelopeSchema.safeParse(plain), 1000);
  const validate = opsPerSecondSync(() => validateHandoffEnvelope(plain), 1000);
  const build = opsPerSecondSync(
    () => buildHandoffEnvelope(resolver, EXTENSION_DEFAULT_SETTINGS, gateState, opts),
    1500,
  );
  return [
    { name: 'raw canonicalJson+sha256 (envelope)', value: rawDigest, unit: 'envelopes/s' },
    { name: 'envelopePrefix', value: prefix, unit: 'envelopes/s', ratio: prefix / rawDigest, target: 0.8 },
    { name: 'bare zod safeParse (HandoffEnvelopeSchema)', value: bareZod, unit: 'envelopes/s' },
    {
      name: 'validateHandoffEnvelope',
      value: validate,
      unit: 'envelopes/s',
      ratio: validate / bareZod,
      target: 1,
    },
    { name: 'buildHandoffEnvelope', value: build, unit: 'envelopes/s', ratio: build / bareZod, target: 0.2 },
  ];
}
