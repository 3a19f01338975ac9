/**
 * The dev-loop envelope with real dev-loops settings (issue 17 item 6): a `.devloops` carrying
 * non-gate keys under `gates` and legacy severity spellings builds (the reference builds it);
 * severities come out as the reference's canonical vocabulary; an unknown severity fails closed
 * as in the reference; mandatory angles come first; the sanctioned-command map is delivered
 * verbatim; spikeIntakeState is read by truthiness.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildHandoffEnvelope,
  loadDevLoopsSettings,
  normalizeSeverity,
  parseSettingsText,
} from '../../src/envelope/index.js';
import { isHandoffError } from '../../src/errors/index.js';
import { bareBundle } from '../envelope/helpers.js';
import { fixtureText } from './reference-readers.js';

const NOW = { repoSlug: 'acme/app', now: '2026-11-30T00:00:00Z', env: {} };
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'interop-envelope-'));
  await writeFile(join(dir, '.devloops'), fixtureText('devloops-real.yaml'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('real dev-loops settings', () => {
  it('non-gate keys under gates load (were settings_invalid) and are ignored by the envelope', async () => {
    const { settings } = await loadDevLoopsSettings({ repoRoot: dir });
    expect((settings.gates as Record<string, unknown>).requireFanoutEvidence).toBe(true);
    const draft = buildHandoffEnvelope(
      bareBundle('copilot_pr_followup'),
      settings,
      { currentSubGate: 'draft' },
      NOW,
    );
    // reference: resolved severities canonical; mandatory first; disabled entry excluded
    expect(draft.gateConfig).toEqual({
      angles: ['pr-description', 'scope', 'coverage'],
      excludeAngles: ['link-check'],
      blockCleanOnFindingSeverities: ['high', 'medium'],
      requireCi: true,
    });
    const pre = buildHandoffEnvelope(
      bareBundle('copilot_pr_followup'),
      settings,
      { currentSubGate: 'pre-approval' },
      NOW,
    );
    expect(pre.gateConfig?.angles).toEqual(['pr-checklist-matrix', 'dry', 'kiss']);
    expect(pre.gateConfig?.blockCleanOnFindingSeverities).toEqual(['high']);
    expect(pre.stopRules).toContain('merge');
  });

  it('the severity vocabulary and its legacy names, as the reference normalises them', () => {
    expect(
      ['must-fix', 'worth-fixing-now', 'nice-to-have', 'defer', 'high', 'low'].map(normalizeSeverity),
    ).toEqual(['high', 'medium', 'low', 'low', 'high', 'low']);
  });

  it('an unknown severity fails closed (reference: "Config validation failed … outside the severity vocabulary")', () => {
    const text = fixtureText('devloops-real.yaml').replace('      - worth-fixing-now', '      - critical');
    const settings = parseSettingsText(text, 'yaml', '.devloops');
    let code = '';
    try {
      buildHandoffEnvelope(bareBundle('copilot_pr_followup'), settings, {}, NOW);
    } catch (e) {
      if (isHandoffError(e)) code = e.code;
    }
    expect(code).toBe('envelope_invalid_settings');
  });

  it('spikeIntakeState by truthiness: a spike run resolves the spike gate block', async () => {
    const settings = { gates: { spike: { angles: ['scope'] } } };
    const spike = buildHandoffEnvelope(
      { ...bareBundle('local_implementation'), spikeIntakeState: { intake: 'x' } },
      settings,
      {},
      NOW,
    );
    expect(spike.currentGate).toBe('spike');
    expect(spike.gateConfig?.angles).toEqual(['scope']);
    const not = buildHandoffEnvelope(
      { ...bareBundle('local_implementation'), spikeIntakeState: '' },
      settings,
      {},
      NOW,
    );
    expect(not.currentGate).toBe('default');
  });

  it('sanctionedCommands verbatim: the consumer map’s key order survives build and serialization', () => {
    const map = {
      reads: { 'review-threads': 'r.mjs', 'ci-status': 'c.mjs' },
      edits: {},
      lifecycle: {},
      orchestratorOwned: ['gh pr merge'],
      forbidden: ['node -e'],
    };
    const env = buildHandoffEnvelope(bareBundle('wait_watch'), {}, {}, { ...NOW, sanctionedCommands: map });
    expect(JSON.stringify(env.sanctionedCommands)).toBe(JSON.stringify(map));
  });
});
