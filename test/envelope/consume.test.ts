/**
 * The agent consumption pattern: the ordered plan, stop points, self-validation against
 * acceptance, and the sanctioned-command classification.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  buildHandoffEnvelope,
  checkCompletion,
  classifyCommand,
  mustStopAt,
  planConsumption,
  type SanctionedCommands,
  sanctionedWrapperPaths,
} from '../../src/envelope/index.js';
import { isHandoffError } from '../../src/errors/index.js';
import { BASE_OPTS, bareBundle } from './helpers.js';

const MAP = JSON.parse(
  readFileSync(new URL('../../examples/envelope/sanctioned-commands.json', import.meta.url), 'utf8'),
) as SanctionedCommands;

const env = (settings: Record<string, unknown> = {}, options: Record<string, unknown> = {}) =>
  buildHandoffEnvelope(
    bareBundle('copilot_pr_followup', { requiredReads: ['a.md', 'b.md', 'c.md'] }),
    settings,
    { currentHeadSha: 'abc' },
    { ...BASE_OPTS, sanctionedCommands: MAP, repoRoot: '/repo', ...options },
  );

describe('planConsumption', () => {
  it('returns the seven steps in contract order, gateState last and volatile', () => {
    const e = env();
    const plan = planConsumption(e);
    expect(plan.map((s) => s.kind)).toEqual([
      'read-envelope',
      'read-required',
      'execute-next-action',
      'respect-stop-rules',
      'self-validate',
      'sanctioned-commands-only',
      'read-gate-state-last',
    ]);
    expect(plan.map((s) => s.step)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(plan[1]).toMatchObject({ paths: ['a.md', 'b.md', 'c.md'] });
    expect(plan[2]).toMatchObject({
      nextAction: e.nextAction,
      cwd: '/repo/tmp/worktrees/dev-loops/issue-42',
      worktreeRequired: true,
    });
    expect(plan[5]).toMatchObject({ map: MAP });
    expect(plan[6]).toMatchObject({ volatile: true, gateState: { currentHeadSha: 'abc' } });
  });

  it('refuses an invalid envelope instead of planning on it', () => {
    const broken = { ...JSON.parse(JSON.stringify(env())), nextAction: '' };
    try {
      planConsumption(broken);
      throw new Error('no error');
    } catch (e) {
      expect(isHandoffError(e) && e.code).toBe('invalid_record');
    }
  });

  it('passes validator warnings through and a null map when none was supplied', () => {
    const e = buildHandoffEnvelope(bareBundle('wait_watch', { requiredReads: [] }), {}, {}, BASE_OPTS);
    const plan = planConsumption(e);
    expect(plan[0]).toMatchObject({ warnings: [{ field: 'requiredReads' }] });
    expect(plan[5]).toMatchObject({ map: null });
  });
});

describe('mustStopAt', () => {
  it('stops at listed points unless authorized', () => {
    const e = env();
    expect(e.stopRules).toEqual(['draft-pr', 'merge']);
    expect(mustStopAt(e, 'merge')).toBe(true);
    expect(mustStopAt(e, 'draft-pr')).toBe(true);
    expect(mustStopAt(e, 'ready-for-review')).toBe(false);
    expect(mustStopAt(e, 'merge', new Set(['merge']))).toBe(false);
  });

  it('mergeAuthorized authorizes merge, except under humanMergeOnly where the builder forced it false', () => {
    expect(mustStopAt(env({}, { overrides: { mergeAuthorized: true } }), 'merge')).toBe(false);
    const human = env({ autonomy: { humanMergeOnly: true } }, { overrides: { mergeAuthorized: true } });
    expect(human.overrides?.mergeAuthorized).toBe(false);
    expect(mustStopAt(human, 'merge')).toBe(true);
  });
});

describe('checkCompletion', () => {
  const acceptance = env().acceptance;
  const all = Object.fromEntries(acceptance.criteria.map((c) => [c.id, true]));

  it('ok when every required criterion is met, all evidence supplied, within the turn budget', () => {
    expect(
      checkCompletion(acceptance, { criteria: all, evidence: [...acceptance.evidence], turns: 4 }).ok,
    ).toBe(true);
  });

  it('names unmet criteria, missing evidence and exceeded turns', () => {
    const r = checkCompletion(acceptance, {
      criteria: { ...all, scope: false, coverage: false },
      evidence: ['commands-run'],
      turns: 5,
    });
    expect(r).toEqual({
      ok: false,
      unmetRequired: ['scope', 'coverage'],
      unmetRecommended: [],
      missingEvidence: ['validation-output', 'review-findings'],
      turnsExceeded: true,
    });
  });

  it('unmet recommended criteria do not fail the check', () => {
    const a = {
      ...acceptance,
      criteria: [...acceptance.criteria, { id: 'nice', must: 'x', severity: 'recommended' as const }],
    };
    const r = checkCompletion(a, { criteria: all, evidence: [...a.evidence], turns: 1 });
    expect(r.ok).toBe(true);
    expect(r.unmetRecommended).toEqual(['nice']);
  });
});

describe('classifyCommand', () => {
  const e = env();
  it.each([
    ['gh pr merge 12 --squash', 'orchestrator-owned'],
    ['  GH   PR merge 12', 'orchestrator-owned'],
    ['node scripts/github/merge-pr.mjs', 'unlisted'],
    ['scripts/github/merge-pr.mjs --pr 12', 'unlisted'],
    ['gh issue view 7 --json body', 'forbidden'],
    ['gh pr view 12 --json body', 'forbidden'],
    ['node -e "console.log(1)"', 'forbidden'],
    ['python3 -c "print(1)"', 'forbidden'],
    ['ci-status', 'sanctioned'],
    ['scripts/github/probe-ci-status.mjs --pr 12', 'sanctioned'],
    ['scripts/github/ci-status.mjs --pr 12', 'unlisted'],
    ['make build', 'unlisted'],
  ])('%j → %s', (cmd, kind) => {
    expect(classifyCommand(e, cmd).kind).toBe(kind);
  });

  it('names the group, operation and wrapper of a sanctioned command', () => {
    expect(classifyCommand(e, 'scripts/github/create-pr.mjs --draft')).toEqual({
      kind: 'sanctioned',
      group: 'lifecycle',
      operation: 'pr-create',
      wrapper: 'scripts/github/create-pr.mjs',
    });
  });

  it('without a map everything is unlisted', () => {
    expect(classifyCommand({}, 'gh pr merge 1')).toEqual({ kind: 'unlisted' });
  });

  it('sanctionedWrapperPaths lists every operation wrapper, unfiltered', () => {
    const paths = sanctionedWrapperPaths(MAP);
    expect(paths).toHaveLength(
      Object.keys(MAP.reads).length + Object.keys(MAP.edits).length + Object.keys(MAP.lifecycle).length,
    );
    expect(paths).toContain('scripts/loop/detect-pr-gate-coordination-state.mjs');
    expect(paths).toHaveLength(19);
    expect(MAP.forbidden.length).toBeGreaterThan(0);
    expect(MAP.orchestratorOwned.length).toBeGreaterThan(0);
  });
});
