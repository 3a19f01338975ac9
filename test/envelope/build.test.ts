/**
 * buildHandoffEnvelope: every template row, every stop-rule default, every fail-closed input, cwd
 * precedence, gateConfig derivation, gate state normalization, frozen output and key order.
 */
import { describe, expect, it } from 'vitest';
import {
  ACCEPTANCE_TEMPLATES,
  buildHandoffEnvelope,
  EXTENSION_DEFAULT_SETTINGS,
  HandoffEnvelopeSchema,
  knownAcceptanceCombos,
  lookupAcceptanceTemplate,
  STRATEGIES,
  STRATEGY_DEFAULT_STOP_RULES,
  validateHandoffEnvelope,
} from '../../src/envelope/index.js';
import { isHandoffError } from '../../src/errors/index.js';
import { BASE_OPTS, bareBundle, NOW, wrapped } from './helpers.js';

function thrown(fn: () => unknown): { code: string; message: string; details: Record<string, unknown> } {
  try {
    fn();
  } catch (e) {
    if (isHandoffError(e)) return { code: e.code, message: e.message, details: e.details };
    throw e;
  }
  throw new Error('expected a HandoffError, nothing was thrown');
}

const build = (
  input: unknown,
  settings: Record<string, unknown> = {},
  gateState: Record<string, unknown> = {},
  options: Record<string, unknown> = {},
) => buildHandoffEnvelope(input, settings, gateState, { ...BASE_OPTS, ...options });

describe('acceptance/control template table', () => {
  const rows: Array<{
    strategy: string;
    gateState?: Record<string, unknown>;
    extra?: Record<string, unknown>;
    gate: string;
    ids: string[];
    evidence: string[];
    turns: number;
    attention: number;
  }> = [
    {
      strategy: 'copilot_pr_followup',
      gateState: { currentSubGate: 'draft' },
      gate: 'draft',
      ids: ['ac-check', 'scope', 'coverage', 'dod-alignment'],
      evidence: ['commands-run', 'validation-output', 'review-findings'],
      turns: 4,
      attention: 300_000,
    },
    {
      strategy: 'copilot_pr_followup',
      gateState: { currentSubGate: 'watch' },
      gate: 'watch',
      ids: ['copilot-activity', 'no-stuck-watch'],
      evidence: ['commands-run'],
      turns: 2,
      attention: 1_800_000,
    },
    {
      strategy: 'copilot_pr_followup',
      gateState: { currentSubGate: 'pre-approval' },
      gate: 'pre-approval',
      ids: ['full-gate-chain', 'clean-verdict', 'unresolved-threads', 'ci-green'],
      evidence: ['commands-run', 'validation-output', 'review-findings', 'residual-risks'],
      turns: 6,
      attention: 300_000,
    },
    {
      strategy: 'final_approval',
      gate: 'default',
      ids: ['gate-evidence', 'human-confirmation', 'ci-green'],
      evidence: ['validation-output', 'manual-notes'],
      turns: 2,
      attention: 300_000,
    },
    {
      strategy: 'local_implementation',
      gate: 'default',
      ids: ['phase-ac', 'verify-green'],
      evidence: ['commands-run', 'validation-output', 'changed-files'],
      turns: 6,
      attention: 300_000,
    },
    {
      strategy: 'local_implementation',
      extra: { spikeIntakeState: { ok: true } },
      gate: 'spike',
      ids: ['spike-recorded', 'verify-green'],
      evidence: ['commands-run', 'validation-output', 'changed-files'],
      turns: 6,
      attention: 300_000,
    },
    ...(['issue_intake', 'external_pr_followup', 'reviewer_fixer'] as const).map((strategy) => ({
      strategy,
      gate: 'default',
      ids: ['contract-compliance'],
      evidence: ['commands-run', 'validation-output'],
      turns: 4,
      attention: 300_000,
    })),
    {
      strategy: 'wait_watch',
      gate: 'default',
      ids: ['contract-compliance'],
      evidence: ['commands-run', 'validation-output'],
      turns: 4,
      attention: 1_800_000,
    },
    {
      strategy: 'ui_review',
      gate: 'default',
      ids: [
        'no-product-code-writes',
        'worktree-only',
        'outward-review-pending',
        'ack-destructive-migrations',
      ],
      evidence: ['commands-run', 'validation-output'],
      turns: 4,
      attention: 300_000,
    },
  ];

  for (const r of rows) {
    it(`${r.strategy}::${r.gate} → ${r.ids.join(', ')}; ${r.turns} turns; ${r.attention} ms`, () => {
      const input = { ...bareBundle(r.strategy), ...(r.extra ?? {}) };
      const env = build(input, {}, r.gateState ?? {});
      expect(env.currentGate).toBe(r.gate);
      expect(env.acceptance.criteria.map((c) => c.id)).toEqual(r.ids);
      expect(env.acceptance.criteria.every((c) => c.severity === 'required' && c.must.length > 10)).toBe(
        true,
      );
      expect(env.acceptance.evidence).toEqual(r.evidence);
      expect(env.acceptance.maxFinalizationTurns).toBe(r.turns);
      expect(env.control).toEqual({ needsAttentionAfterMs: r.attention, activeNoticeAfterMs: r.attention });
      expect(HandoffEnvelopeSchema.safeParse(env).success).toBe(true);
      expect(validateHandoffEnvelope(env).ok).toBe(true);
    });
  }

  it('the table holds exactly the documented 12 combinations, including the reconcile row', () => {
    expect(knownAcceptanceCombos()).toEqual([
      'copilot_pr_followup::draft',
      'copilot_pr_followup::watch',
      'copilot_pr_followup::pre-approval',
      'final_approval::default',
      'local_implementation::default',
      'local_implementation::spike',
      'issue_intake::default',
      'external_pr_followup::default',
      'reviewer_fixer::default',
      'wait_watch::default',
      'ui_review::default',
      'null::fail_closed_reconcile',
    ]);
    const rec = lookupAcceptanceTemplate(null, 'fail_closed_reconcile');
    expect(rec.criteria.map((c) => c.id)).toEqual(['reconcile']);
    expect(rec.evidence).toEqual(['commands-run', 'validation-output']);
    expect(rec.maxFinalizationTurns).toBe(1);
    expect(rec.needsAttentionAfterMs).toBe(300_000);
  });

  it('every routed strategy has at least one template', () => {
    for (const s of STRATEGIES)
      expect(knownAcceptanceCombos().some((k) => k.startsWith(`${s}::`))).toBe(true);
  });

  it('templates are deep-frozen', () => {
    const t = ACCEPTANCE_TEMPLATES.get('wait_watch::default');
    expect(Object.isFrozen(t)).toBe(true);
    expect(Object.isFrozen(t?.criteria)).toBe(true);
    expect(Object.isFrozen(t?.criteria[0])).toBe(true);
  });

  it('an unknown combination throws envelope_unknown_template listing every known combo', () => {
    const direct = thrown(() => lookupAcceptanceTemplate('wait_watch', 'draft'));
    expect(direct.code).toBe('envelope_unknown_template');
    expect(direct.details.known).toEqual(knownAcceptanceCombos());
    for (const k of knownAcceptanceCombos()) expect(direct.message).toContain(k);
    const viaBuild = thrown(() => build(bareBundle('mystery_strategy')));
    expect(viaBuild.code).toBe('envelope_unknown_template');
    expect(viaBuild.message).toMatch(
      /^handoff-envelope: no acceptance template for strategy "mystery_strategy" \+ gate "default"/,
    );
  });

  it('an unknown copilot sub-gate falls back to draft', () => {
    expect(build(bareBundle('copilot_pr_followup'), {}, { currentSubGate: 'bogus' }).currentGate).toBe(
      'draft',
    );
    expect(build(bareBundle('copilot_pr_followup')).currentGate).toBe('draft');
  });

  it('the detector sub-gate is trimmed before matching, as the reference normalizes gate state', () => {
    expect(build(bareBundle('copilot_pr_followup'), {}, { currentSubGate: ' watch\n' }).currentGate).toBe(
      'watch',
    );
  });

  it('specSource pr_body retargets the phase-doc criterion; tracker_issue is dropped', () => {
    const pr = build(bareBundle('local_implementation', { canonicalSpecSource: 'pr_body' }));
    expect(pr.specSource).toBe('pr_body');
    expect(pr.acceptance.criteria[0]?.must).toContain('from the PR description');
    expect(pr.acceptance.criteria[0]?.must).not.toContain('from the active phase doc');
    const doc = build(bareBundle('local_implementation', { canonicalSpecSource: 'phase_doc' }));
    expect(doc.acceptance.criteria[0]?.must).toContain('from the active phase doc');
    const tracker = build(bareBundle('local_implementation', { canonicalSpecSource: 'tracker_issue' }));
    expect('specSource' in tracker).toBe(false);
  });
});

describe('stop rules', () => {
  for (const [strategy, rules] of Object.entries(STRATEGY_DEFAULT_STOP_RULES)) {
    it(`${strategy} defaults to ${JSON.stringify(rules)} without autonomy.stopAt`, () => {
      expect(build(bareBundle(strategy)).stopRules).toEqual([...rules]);
    });
  }

  it('the documented defaults are exact', () => {
    expect(STRATEGY_DEFAULT_STOP_RULES.copilot_pr_followup).toEqual(['draft-pr', 'merge']);
    expect(STRATEGY_DEFAULT_STOP_RULES.local_implementation).toEqual([]);
    for (const s of [
      'issue_intake',
      'external_pr_followup',
      'reviewer_fixer',
      'wait_watch',
      'final_approval',
    ] as const) {
      expect(STRATEGY_DEFAULT_STOP_RULES[s]).toEqual(['merge']);
    }
  });

  it('autonomy.stopAt wins over the strategy default when it is an array', () => {
    expect(
      build(bareBundle('copilot_pr_followup'), { autonomy: { stopAt: ['draft-pr'] } }).stopRules,
    ).toEqual(['draft-pr']);
    expect(build(bareBundle('wait_watch'), { autonomy: { stopAt: [] } }).stopRules).toEqual([]);
  });

  it('humanMergeOnly forces merge, without duplicating it', () => {
    const s = (stopAt?: string[]) => ({ autonomy: { humanMergeOnly: true, ...(stopAt ? { stopAt } : {}) } });
    expect(build(bareBundle('local_implementation'), s()).stopRules).toEqual(['merge']);
    expect(build(bareBundle('wait_watch'), s([])).stopRules).toEqual(['merge']);
    expect(build(bareBundle('copilot_pr_followup'), s(['draft-pr'])).stopRules).toEqual([
      'draft-pr',
      'merge',
    ]);
    expect(build(bareBundle('copilot_pr_followup'), s()).stopRules).toEqual(['draft-pr', 'merge']);
    expect(
      build(bareBundle('local_implementation'), { autonomy: { humanMergeOnly: false } }).stopRules,
    ).toEqual([]);
  });

  it('a non-boolean humanMergeOnly fails closed instead of being ignored', () => {
    const e = thrown(() => build(bareBundle('wait_watch'), { autonomy: { humanMergeOnly: 'true' } }));
    expect(e.code).toBe('envelope_invalid_settings');
  });
});

describe('fail-closed inputs', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a string', 'resolver'],
    ['an array', [bareBundle('wait_watch')]],
  ])('resolver output that is %s → envelope_invalid_input', (_n, input) => {
    const e = thrown(() => build(input));
    expect(e.code).toBe('envelope_invalid_input');
    expect(e.message).toMatch(/^handoff-envelope: resolverOutput is required/);
  });

  it('a wrapped result whose bundle is not an object → envelope_invalid_input', () => {
    expect(thrown(() => build({ bundle: 'x' })).code).toBe('envelope_invalid_input');
  });

  for (const field of ['selectedStrategy', 'executionMode', 'nextAction'] as const) {
    it.each([
      ['missing', undefined],
      ['empty', ''],
      ['blank', '   '],
      ['a number', 42],
    ])(`${field} %s → envelope_missing_field`, (_n, value) => {
      const input = bareBundle('wait_watch');
      if (value === undefined) delete input[field];
      else input[field] = value;
      const e = thrown(() => build(input));
      expect(e.code).toBe('envelope_missing_field');
      expect(e.details.field).toBe(`resolverOutput.${field}`);
      expect(e.message).toContain('is required and must be a non-empty string');
    });
  }

  it('selectedStrategy null without the reconcile tuple is invalid for routed work', () => {
    const e = thrown(() => build(bareBundle('wait_watch', { selectedStrategy: null })));
    expect(e.code).toBe('envelope_missing_field');
  });

  it('an executionMode outside the enum → envelope_invalid_input', () => {
    const e = thrown(() => build(bareBundle('wait_watch', { executionMode: 'yolo' })));
    expect(e.code).toBe('envelope_invalid_input');
    expect(e.details.got).toBe('yolo');
  });

  it.each([
    ['missing', undefined],
    ['no slash', 'acme'],
    ['three segments', 'a/b/c'],
    ['an empty owner', '/app'],
    ['a space inside', 'ac me/app'],
    ['a dot-dot segment', '../app'],
    ['a number', 7],
  ])('repo slug %s → envelope_invalid_repo', (_n, repo) => {
    const input = bareBundle('wait_watch');
    if (repo === undefined) delete input.repo;
    else input.repo = repo;
    const e = thrown(() => build(input));
    expect(e.code).toBe('envelope_invalid_repo');
    expect(e.message).toBe('handoff-envelope: repo slug is required (owner/name)');
  });

  it('repo slug precedence: options.repoSlug > bundle.repoSlug > bundle.repo, normalized', () => {
    const input = bareBundle('wait_watch', { repoSlug: 'Mid/Dle', repo: 'low/er' });
    expect(build(input).target.repo).toBe('mid/dle');
    expect(build(input, {}, {}, { repoSlug: ' Top/Most ' }).target.repo).toBe('top/most');
    expect(build(bareBundle('wait_watch', { repo: 'low/er' })).target.repo).toBe('low/er');
    expect(thrown(() => build(input, {}, {}, { repoSlug: 'bad' })).code).toBe('envelope_invalid_repo');
  });

  it.each([
    ['missing target', {}, 'kind'],
    ['unknown kind', { kind: 'epic' }, 'kind'],
    ['issue without issue', { kind: 'issue' }, 'issue'],
    ['issue 0', { kind: 'issue', issue: 0 }, 'issue'],
    ['pr without pr', { kind: 'pr', issue: 4 }, 'pr'],
    ['pr 1.5', { kind: 'pr', pr: 1.5 }, 'pr'],
    ['local_branch without branch', { kind: 'local_branch' }, 'branch'],
    ['local_branch blank branch', { kind: 'local_branch', branch: '  ' }, 'branch'],
    ['local_phase with neither phase nor issue', { kind: 'local_phase', issue: -1 }, 'phase'],
  ])('%s → envelope_invalid_target', (_n, artifact, field) => {
    const e = thrown(() => build(bareBundle('wait_watch', { activeArtifact: artifact })));
    expect(e.code).toBe('envelope_invalid_target');
    expect(e.details.field).toBe(field);
  });

  it('requiredReads with a blank entry → envelope_invalid_input', () => {
    const e = thrown(() => build(bareBundle('wait_watch', { requiredReads: ['a.md', ' '] })));
    expect(e.code).toBe('envelope_invalid_input');
    expect(e.message).toContain('[1]');
  });

  it('bad options fail closed: overrides with unknown keys, a non-object map, an invalid clock', () => {
    expect(thrown(() => build(bareBundle('wait_watch'), {}, {}, { overrides: { merge: true } })).code).toBe(
      'envelope_invalid_option',
    );
    expect(thrown(() => build(bareBundle('wait_watch'), {}, {}, { sanctionedCommands: ['x'] })).code).toBe(
      'envelope_invalid_option',
    );
    expect(thrown(() => build(bareBundle('wait_watch'), {}, {}, { sanctionedCommands: 'x' })).code).toBe(
      'envelope_invalid_option',
    );
    expect(thrown(() => build(bareBundle('wait_watch'), {}, {}, { now: 'not a date' })).code).toBe(
      'envelope_invalid_option',
    );
  });

  it('settings with wrong types for known keys → envelope_invalid_settings', () => {
    for (const settings of [
      { autonomy: { stopAt: 'merge' } },
      { refinement: { maxCopilotRounds: -1 } },
      { workflow: { asyncStartMode: 'sometimes' } },
      { gates: { draft: { angles: [7] } } },
    ]) {
      expect(thrown(() => build(bareBundle('wait_watch'), settings)).code).toBe('envelope_invalid_settings');
    }
  });
});

describe('target and requiredReads', () => {
  it('kind is trimmed and lower-cased; pr and linkedPr kept only when positive', () => {
    const env = build(
      bareBundle('wait_watch', { activeArtifact: { kind: ' ISSUE ', issue: 42, pr: 0, linkedPr: 9 } }),
    );
    expect(env.target).toEqual({ kind: 'issue', repo: 'acme/app', issue: 42, linkedPr: 9 });
  });

  it('falls back to canonicalState.target when activeArtifact is absent', () => {
    const input = bareBundle('wait_watch', {
      activeArtifact: undefined,
      canonicalState: { target: { kind: 'pr', pr: 5 } },
    });
    expect(build(input).target).toEqual({ kind: 'pr', repo: 'acme/app', pr: 5 });
  });

  it('requiredReads: non-empty top level wins, else the bundle, else []', () => {
    const bundle = bareBundle('wait_watch', { requiredReads: ['bundle.md'] });
    expect(build(wrapped(bundle, { requiredReads: ['top.md'] })).requiredReads).toEqual(['top.md']);
    expect(build(wrapped(bundle, { requiredReads: [] })).requiredReads).toEqual(['bundle.md']);
    expect(build(bareBundle('wait_watch', { requiredReads: undefined })).requiredReads).toEqual([]);
  });

  it('wrapped and bare shapes of the same bundle give the same envelope', () => {
    const bundle = bareBundle('reviewer_fixer');
    expect(build(wrapped(bundle))).toEqual(build(bundle));
  });

  it('nextAction is trimmed at its ends, its text otherwise kept (as the reference trims it)', () => {
    const action = '  Do the thing —  exactly as written.  ';
    expect(build(bareBundle('wait_watch', { nextAction: action })).nextAction).toBe(
      'Do the thing —  exactly as written.',
    );
  });
});

describe('cwd derivation', () => {
  const cwd = (artifact: Record<string, unknown>, options: Record<string, unknown>) =>
    build(bareBundle('wait_watch', { activeArtifact: artifact }), {}, {}, options).cwd;

  it('a trimmed worktreeCwd wins over repoRoot', () => {
    expect(cwd({ kind: 'issue', issue: 42 }, { worktreeCwd: ' /wt/here ', repoRoot: '/repo' })).toBe(
      '/wt/here',
    );
  });
  it('a blank worktreeCwd falls through to repoRoot', () => {
    expect(cwd({ kind: 'issue', issue: 42 }, { worktreeCwd: '  ', repoRoot: '/repo' })).toBe(
      '/repo/tmp/worktrees/dev-loops/issue-42',
    );
  });
  it('issue, pr, branch and phase slugs under the namespace', () => {
    expect(cwd({ kind: 'pr', pr: 77 }, { repoRoot: '/repo/' })).toBe('/repo/tmp/worktrees/dev-loops/pr-77');
    expect(cwd({ kind: 'local_branch', branch: 'feat/a b\\c!' }, { repoRoot: '/repo' })).toBe(
      '/repo/tmp/worktrees/dev-loops/feat-ab-c',
    );
    expect(cwd({ kind: 'local_phase', issue: 3, phase: 'p/1' }, { repoRoot: '/r' })).toBe(
      '/r/tmp/worktrees/dev-loops/phase-3-p-1',
    );
    expect(cwd({ kind: 'local_phase', phase: 'p1' }, { repoRoot: '/r' })).toBe(
      '/r/tmp/worktrees/dev-loops/phase-p1',
    );
    expect(cwd({ kind: 'local_phase', issue: 8 }, { repoRoot: '/r' })).toBe(
      '/r/tmp/worktrees/dev-loops/issue-8',
    );
  });
  it('null without repoRoot or worktreeCwd, and for a branch that flattens to nothing', () => {
    expect(cwd({ kind: 'issue', issue: 42 }, {})).toBeNull();
    expect(cwd({ kind: 'local_branch', branch: '!!!' }, { repoRoot: '/r' })).toBeNull();
  });
});

describe('gateConfig derivation', () => {
  const copilot = (gate: string, settings: Record<string, unknown>) =>
    build(bareBundle('copilot_pr_followup'), settings, { currentSubGate: gate }).gateConfig;

  it('draft: the mandatory angle first, then the configured run-set, never the whole pool', () => {
    const g = copilot('draft', EXTENSION_DEFAULT_SETTINGS as Record<string, unknown>);
    expect(g?.angles).toHaveLength(16);
    expect(g?.angles.slice(0, 4)).toEqual(['pr-description', 'scope', 'coverage', 'correctness']);
    expect(g?.excludeAngles).toBeUndefined();
    expect(g?.blockCleanOnFindingSeverities).toEqual(['high']);
    expect(g?.requireCi).toBe(true);
  });

  it('pre-approval reads the preApproval key', () => {
    const g = copilot('pre-approval', EXTENSION_DEFAULT_SETTINGS as Record<string, unknown>);
    expect(g?.angles).toEqual([
      'pr-checklist-matrix',
      'dry',
      'kiss',
      'yagni',
      'srp',
      'soc',
      'deep',
      'ocp',
      'lsp',
      'isp',
      'dip',
      'docs',
    ]);
  });

  it('absent when the gate has no settings block (watch, default gates)', () => {
    expect(copilot('watch', EXTENSION_DEFAULT_SETTINGS as Record<string, unknown>)).toBeUndefined();
    expect(
      'gateConfig' in build(bareBundle('wait_watch'), EXTENSION_DEFAULT_SETTINGS as Record<string, unknown>),
    ).toBe(false);
  });

  it('excludes (list and enabled:false) are removed and reported; mandatory angles always run', () => {
    const g = copilot('draft', {
      gates: {
        draft: {
          angles: ['a', 'b', { name: 'c', enabled: false }, { name: 'd', mandatory: true }, 'e'],
          excludeAngles: ['b', 'e'],
          mandatoryAngles: ['e', 'm'],
          blockCleanOnFindingSeverities: ['must-fix', 'worth-fixing-now'],
          requireCi: false,
        },
      },
    });
    expect(g).toEqual({
      angles: ['e', 'm', 'd', 'a'],
      excludeAngles: ['b', 'c'],
      blockCleanOnFindingSeverities: ['high', 'medium'],
      requireCi: false,
    });
  });

  it('severities: legacy spellings normalise to high|medium|low, de-duplicated; the default is high', () => {
    const g = (sev: unknown) =>
      copilot('draft', { gates: { draft: { angles: ['a'], blockCleanOnFindingSeverities: sev } } })
        ?.blockCleanOnFindingSeverities;
    expect(g(['must-fix', 'high', 'worth-fixing-now', 'nice-to-have', 'defer'])).toEqual([
      'high',
      'medium',
      'low',
    ]);
    expect(copilot('draft', { gates: { draft: { angles: ['a'] } } })?.blockCleanOnFindingSeverities).toEqual([
      'high',
    ]);
  });

  it('severities: an unknown, mis-cased or non-defect severity, or an empty list, fails closed', () => {
    for (const sev of [['critical'], ['High'], [' high'], ['question'], ['nit'], [], 'high']) {
      expect(() =>
        copilot('draft', { gates: { draft: { angles: ['a'], blockCleanOnFindingSeverities: sev } } }),
      ).toThrow(expect.objectContaining({ code: 'envelope_invalid_settings' }));
    }
  });

  it('non-gate keys under gates (requireFanoutEvidence, fanout, anglePool …) are accepted and ignored', () => {
    const settings = {
      gates: {
        requireFanoutEvidence: true,
        requireFanoutProvenance: false,
        fanout: { mode: 'grouped', maxConcurrent: 4 },
        anglePool: ['scope', 'coverage'],
        size: { absoluteHardLoc: 2000 },
        draft: { angles: ['scope'] },
      },
    };
    expect(copilot('draft', settings)).toEqual({
      angles: ['scope'],
      blockCleanOnFindingSeverities: ['high'],
      requireCi: true,
    });
  });
});

describe('gate state, settings scalars, options', () => {
  it('gate state values pass through into the gateState tail', () => {
    const env = build(
      bareBundle('wait_watch'),
      {},
      {
        currentHeadSha: 'abc123',
        ciStatus: 'success',
        unresolvedThreadCount: 3,
        copilotRoundCount: 2,
      },
    );
    expect(env.gateState).toEqual({
      derivedAt: NOW,
      currentHeadSha: 'abc123',
      ciStatus: 'success',
      unresolvedThreadCount: 3,
      copilotRoundCount: 2,
    });
  });

  it('null/blank/negative/fractional detector values normalize to null and 0', () => {
    const env = build(
      bareBundle('wait_watch'),
      {},
      {
        currentHeadSha: '  ',
        ciStatus: null,
        unresolvedThreadCount: -4,
        copilotRoundCount: 1.5,
      },
    );
    expect(env.gateState).toMatchObject({
      currentHeadSha: null,
      ciStatus: null,
      unresolvedThreadCount: 0,
      copilotRoundCount: 0,
    });
    expect(
      buildHandoffEnvelope(bareBundle('wait_watch'), null, null, BASE_OPTS).gateState.unresolvedThreadCount,
    ).toBe(0);
  });

  it('the clock is injectable (Date, string, epoch ms, function)', () => {
    const d = new Date('2026-01-02T03:04:05Z');
    for (const now of [d, '2026-01-02T03:04:05Z', d.getTime(), () => d]) {
      expect(build(bareBundle('wait_watch'), {}, {}, { now }).gateState.derivedAt).toBe(
        '2026-01-02T03:04:05.000Z',
      );
    }
  });

  it('maxCopilotRounds defaults to 5 and follows settings (0 allowed)', () => {
    expect(build(bareBundle('wait_watch')).maxCopilotRounds).toBe(5);
    expect(build(bareBundle('wait_watch'), { refinement: { maxCopilotRounds: 2 } }).maxCopilotRounds).toBe(2);
    expect(build(bareBundle('wait_watch'), { refinement: { maxCopilotRounds: 0 } }).maxCopilotRounds).toBe(0);
  });

  it('requireDraftFirst defaults to false and follows settings', () => {
    expect(build(bareBundle('wait_watch')).requireDraftFirst).toBe(false);
    expect(build(bareBundle('wait_watch'), { workflow: { requireDraftFirst: true } }).requireDraftFirst).toBe(
      true,
    );
  });

  it('async start: configured mode echoed, relaxed to allowed under CLAUDECODE=1', () => {
    const plain = build(bareBundle('wait_watch'));
    expect([plain.asyncStartMode, plain.asyncStartEffective, plain.asyncStartRelaxedBy]).toEqual([
      'required',
      'required',
      null,
    ]);
    const claude = build(bareBundle('wait_watch'), {}, {}, { env: { CLAUDECODE: '1' } });
    expect([claude.asyncStartMode, claude.asyncStartEffective, claude.asyncStartRelaxedBy]).toEqual([
      'required',
      'allowed',
      'claude-harness',
    ]);
    const allowed = build(
      bareBundle('wait_watch'),
      { workflow: { asyncStartMode: 'allowed' } },
      {},
      { env: { CLAUDECODE: '1' } },
    );
    expect([allowed.asyncStartEffective, allowed.asyncStartRelaxedBy]).toEqual(['allowed', null]);
    const other = build(bareBundle('wait_watch'), {}, {}, { env: { CLAUDECODE: 'true' } });
    expect(other.asyncStartEffective).toBe('required');
  });

  it('overrides: empty dropped, non-empty kept, mergeAuthorized forced false under humanMergeOnly', () => {
    expect('overrides' in build(bareBundle('wait_watch'), {}, {}, { overrides: {} })).toBe(false);
    expect(
      build(bareBundle('wait_watch'), {}, {}, { overrides: { preferLocal: true, mergeAuthorized: true } })
        .overrides,
    ).toEqual({
      preferLocal: true,
      mergeAuthorized: true,
    });
    expect(
      build(
        bareBundle('wait_watch'),
        { autonomy: { humanMergeOnly: true } },
        {},
        { overrides: { mergeAuthorized: true } },
      ).overrides,
    ).toEqual({ mergeAuthorized: false });
  });

  it('sanctionedCommands is carried verbatim as supplied, copied, not validated', () => {
    const map = {
      reads: { 'ci-status': 'x.mjs' },
      edits: {},
      lifecycle: {},
      forbidden: ['node -e'],
      orchestratorOwned: ['gh pr merge'],
      extra: 1,
    };
    const env = build(bareBundle('wait_watch'), {}, {}, { sanctionedCommands: map });
    expect(env.sanctionedCommands).toEqual(map);
    expect(env.sanctionedCommands).not.toBe(map);
    expect(Object.isFrozen(map)).toBe(false);
    expect('sanctionedCommands' in build(bareBundle('wait_watch'))).toBe(false);
  });

  it('sanctionedCommands keeps the consumer key order (no canonical re-sort) at every level', () => {
    const map = {
      reads: { 'pr-facts': 'p.mjs', 'ci-status': 'c.mjs', 'ci-wait': 'w.mjs' },
      edits: {},
      lifecycle: { 'ready-for-review': 'r.mjs', 'pr-create': 'a.mjs' },
      orchestratorOwned: ['gh pr merge'],
      forbidden: ['node -e', 'gh pr view'],
    };
    const env = build(bareBundle('wait_watch'), {}, {}, { sanctionedCommands: map });
    expect(JSON.stringify(env.sanctionedCommands)).toBe(JSON.stringify(map));
    expect(Object.keys(env.sanctionedCommands ?? {})).toEqual([
      'reads',
      'edits',
      'lifecycle',
      'orchestratorOwned',
      'forbidden',
    ]);
  });

  it('sanctionedCommands that is not JSON data is refused (function, undefined member, class instance)', () => {
    for (const bad of [{ reads: () => 1 }, { reads: undefined }, { when: new Date(0) }, { n: Number.NaN }]) {
      expect(thrown(() => build(bareBundle('wait_watch'), {}, {}, { sanctionedCommands: bad })).code).toBe(
        'envelope_invalid_option',
      );
    }
  });

  it('spikeIntakeState is tested for truthiness, as by the reference', () => {
    for (const marker of [{ ok: true }, 'intake', 1, true]) {
      expect(build({ ...bareBundle('local_implementation'), spikeIntakeState: marker }).currentGate).toBe(
        'spike',
      );
    }
    for (const marker of [false, 0, '', null]) {
      expect(build({ ...bareBundle('local_implementation'), spikeIntakeState: marker }).currentGate).toBe(
        'default',
      );
    }
  });

  it('retrospectiveFindings: a valid gateState value wins; an invalid one does not shadow options', () => {
    const fromGs = build(
      bareBundle('wait_watch'),
      {},
      { retrospectiveFindings: { internalToolingOnly: true } },
      {
        retrospectiveFindings: { internalToolingOnly: false, rawCallViolations: ['x'] },
      },
    );
    expect(fromGs.retrospectiveFindings).toEqual({
      internalToolingOnly: true,
      rawCallViolations: [],
      allowedWriteOps: [],
    });
    const fromOpts = build(
      bareBundle('wait_watch'),
      {},
      { retrospectiveFindings: 'bogus' },
      {
        retrospectiveFindings: {
          internalToolingOnly: 'yes',
          rawCallViolations: [' gh pr view ', ''],
          allowedWriteOps: [3],
        },
      },
    );
    expect(fromOpts.retrospectiveFindings).toEqual({
      internalToolingOnly: false,
      rawCallViolations: ['gh pr view'],
      allowedWriteOps: ['3'],
    });
  });
});

describe('shape', () => {
  it('emits the contract key order with gateState last', () => {
    const env = build(
      bareBundle('copilot_pr_followup', { canonicalSpecSource: 'pr_body' }),
      EXTENSION_DEFAULT_SETTINGS as Record<string, unknown>,
      {},
      {
        overrides: { preferLocal: true },
        sanctionedCommands: { reads: {}, edits: {}, lifecycle: {}, forbidden: [], orchestratorOwned: [] },
        retrospectiveFindings: { internalToolingOnly: true },
      },
    );
    expect(Object.keys(env)).toEqual([
      'handoffVersion',
      'target',
      'currentGate',
      'maxCopilotRounds',
      'executionMode',
      'nextAction',
      'requiredReads',
      'stopRules',
      'asyncStartMode',
      'asyncStartEffective',
      'asyncStartRelaxedBy',
      'requireDraftFirst',
      'cwd',
      'worktreeRequired',
      'acceptance',
      'control',
      // The optional fields, in the reference's emitted order (spec A.2 item 14), gateConfig first.
      'gateConfig',
      'overrides',
      'sanctionedCommands',
      'retrospectiveFindings',
      'specSource',
      'gateState',
    ]);
    expect(env.handoffVersion).toBe(1);
    expect(env.worktreeRequired).toBe(true);
  });

  it('the result is deep-frozen; mutation throws', () => {
    const env = build(
      bareBundle('copilot_pr_followup', { canonicalSpecSource: 'pr_body' }),
      EXTENSION_DEFAULT_SETTINGS as Record<string, unknown>,
    );
    expect(Object.isFrozen(env)).toBe(true);
    expect(Object.isFrozen(env.target)).toBe(true);
    expect(Object.isFrozen(env.acceptance.criteria[0])).toBe(true);
    expect(Object.isFrozen(env.gateConfig?.angles)).toBe(true);
    expect(Object.isFrozen(env.gateState)).toBe(true);
    expect(() => {
      (env.gateState as { ciStatus: string | null }).ciStatus = 'x';
    }).toThrow(TypeError);
    expect(() => {
      (env.stopRules as string[]).push('x');
    }).toThrow(TypeError);
  });

  it('does not alias or freeze the caller inputs', () => {
    const input = bareBundle('wait_watch');
    const settings = { autonomy: { stopAt: ['merge'] } };
    const env = build(input, settings);
    expect(Object.isFrozen(input)).toBe(false);
    expect(Object.isFrozen(settings.autonomy.stopAt)).toBe(false);
    expect(env.stopRules).not.toBe(settings.autonomy.stopAt);
  });
});
