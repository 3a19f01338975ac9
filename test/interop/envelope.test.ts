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
  sanctionedWrapperPaths,
} from '../../src/envelope/index.js';
import { DEFAULT_SANCTIONED_COMMANDS } from '../../src/envelope/sanctioned-default.js';
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

/**
 * Issue 34 items 7 and 8, against the reference's builder (`packages/core/src/loop/handoff-envelope.mjs`
 * in mfittko/dev-loops @09fa4f4: `requireString` trims, `deriveStopRules` falls back to the
 * strategy default unless `stopAt` is an array, `overrides` carried as given) and its map
 * (`scripts/loop/sanctioned-commands.mjs` @10e4503, transcribed in
 * `fixtures/devloops-sanctioned-commands.json`).
 */
describe('issue 34: the builder as the reference builds', () => {
  it('nextAction is trimmed (reference: requireString trims), like selectedStrategy and executionMode', () => {
    const env = buildHandoffEnvelope(
      bareBundle('wait_watch', { nextAction: '  Run wait_watch.\n' }),
      {},
      {},
      NOW,
    );
    expect(env.nextAction).toBe('Run wait_watch.');
  });

  it('autonomy.stopAt: null is "not configured": the strategy default (reference: the same), never a throw', () => {
    const env = buildHandoffEnvelope(
      bareBundle('copilot_pr_followup'),
      { autonomy: { stopAt: null } },
      {},
      NOW,
    );
    expect(env.stopRules).toEqual(['draft-pr', 'merge']);
    const forced = buildHandoffEnvelope(
      bareBundle('local_implementation'),
      { autonomy: { stopAt: null, humanMergeOnly: true } },
      {},
      NOW,
    );
    expect(forced.stopRules).toEqual(['merge']);
  });

  it('overrides.customStopAt may be a list of stop points (reference: carried as given); a number is still refused', () => {
    const env = buildHandoffEnvelope(
      bareBundle('wait_watch'),
      {},
      {},
      {
        ...NOW,
        overrides: { customStopAt: ['draft-pr', 'merge'] },
      },
    );
    expect(env.overrides).toEqual({ customStopAt: ['draft-pr', 'merge'] });
    let code = '';
    try {
      buildHandoffEnvelope(
        bareBundle('wait_watch'),
        {},
        {},
        { ...NOW, overrides: { customStopAt: 3 } as Record<string, unknown> },
      );
    } catch (e) {
      if (isHandoffError(e)) code = e.code;
    }
    expect(code).toBe('envelope_invalid_option');
  });

  it('the CLI default sanctioned map is the reference repository’s map: its 19 wrapper paths, in order', () => {
    const reference = JSON.parse(fixtureText('devloops-sanctioned-commands.json'));
    expect(JSON.stringify(DEFAULT_SANCTIONED_COMMANDS)).toBe(JSON.stringify(reference));
    const paths = sanctionedWrapperPaths(DEFAULT_SANCTIONED_COMMANDS);
    expect(paths).toHaveLength(19);
    expect(DEFAULT_SANCTIONED_COMMANDS.reads['pr-facts']).toBe('scripts/github/view-pr.mjs');
    expect(DEFAULT_SANCTIONED_COMMANDS.reads['issue-facts']).toBe('scripts/github/view-issue.mjs');
    expect(DEFAULT_SANCTIONED_COMMANDS.edits['issue-create']).toBe('scripts/github/create-issue.mjs');
    expect(DEFAULT_SANCTIONED_COMMANDS.forbidden).toContain('gh issue view');
  });
});
