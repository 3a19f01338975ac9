/**
 * validateHandoffEnvelope: never throws; every rule of the reference (errors and warnings, `got`
 * echoed, several errors at once) and the seed's terminal-reconcile rules.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildHandoffEnvelope, validateHandoffEnvelope } from '../../src/envelope/index.js';
import { BASE_OPTS, bareBundle, reconcileBare } from './helpers.js';

type Env = Record<string, unknown> & {
  target: Record<string, unknown>;
  acceptance: Record<string, unknown>;
  gateState: Record<string, unknown>;
};

/** A mutable JSON copy of a valid routed envelope. */
function valid(strategy = 'copilot_pr_followup', extra: Record<string, unknown> = {}): Env {
  return JSON.parse(
    JSON.stringify(buildHandoffEnvelope(bareBundle(strategy, extra), {}, {}, BASE_OPTS)),
  ) as Env;
}

function validReconcile(): Env {
  return JSON.parse(JSON.stringify(buildHandoffEnvelope(reconcileBare(), {}, {}, BASE_OPTS))) as Env;
}

const fields = (r: ReturnType<typeof validateHandoffEnvelope>) => r.errors.map((e) => e.field);

describe('root', () => {
  it('a built envelope is valid with no warnings key', () => {
    const r = validateHandoffEnvelope(valid());
    expect(r).toEqual({ ok: true, errors: [] });
    expect('warnings' in r).toBe(false);
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a string', 'envelope'],
    ['a number', 1],
    ['an array', []],
  ])('%s → a single _root error and nothing else', (_n, x) => {
    const r = validateHandoffEnvelope(x);
    expect(r.ok).toBe(false);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]?.field).toBe('_root');
    expect(r.errors[0]?.got).toBe(x);
  });

  it('never throws, even on hostile input', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
      },
    );
    expect(() => validateHandoffEnvelope(hostile)).not.toThrow();
    expect(validateHandoffEnvelope(hostile).ok).toBe(false);
    fc.assert(
      fc.property(fc.anything(), (x) => {
        const r = validateHandoffEnvelope(x);
        return typeof r.ok === 'boolean' && Array.isArray(r.errors);
      }),
      { numRuns: 300 },
    );
  });
});

describe('handoffVersion', () => {
  it.each([
    ['missing', undefined],
    ['zero', 0],
    ['negative', -1],
    ['fractional', 1.5],
    ['a string', '1'],
  ])('%s → error', (_n, v) => {
    const e = valid();
    e.handoffVersion = v;
    const r = validateHandoffEnvelope(e);
    expect(fields(r)).toEqual(['handoffVersion']);
    expect(r.errors[0]?.got).toBe(v);
  });

  it('a valid but different version is a warning, not an error', () => {
    const e = valid();
    e.handoffVersion = 2;
    const r = validateHandoffEnvelope(e);
    expect(r.ok).toBe(true);
    expect(r.warnings).toEqual([{ field: 'handoffVersion', reason: 'expected version 1, got 2' }]);
  });
});

describe('target', () => {
  it.each([
    ['missing', undefined],
    ['null', null],
    ['an array', []],
    ['a string', 'acme/app'],
  ])('target %s → target error', (_n, t) => {
    const e = valid();
    e.target = t as never;
    expect(fields(validateHandoffEnvelope(e))).toEqual(['target']);
  });

  it.each([
    ['missing', undefined],
    ['unknown', 'epic'],
    ['upper-case', 'ISSUE'],
  ])('target.kind %s → error', (_n, kind) => {
    const e = valid();
    e.target.kind = kind;
    const r = validateHandoffEnvelope(e);
    expect(fields(r)).toEqual(['target.kind']);
    expect(r.errors[0]?.got).toBe(kind);
  });

  it.each([
    ['missing', undefined],
    ['a number', 42],
    ['without a slash', 'acme'],
    ['three segments', 'a/b/c'],
    ['with a space', 'acme/my app'],
    ['not normalized (upper case)', 'Acme/App'],
    ['padded', ' acme/app'],
  ])('target.repo %s → error', (_n, repo) => {
    const e = valid();
    e.target.repo = repo;
    const r = validateHandoffEnvelope(e);
    expect(fields(r)).toEqual(['target.repo']);
    expect(r.errors[0]?.got).toBe(repo);
  });

  it('kind issue needs issue ≥ 1', () => {
    const e = valid();
    e.target.issue = 0;
    expect(fields(validateHandoffEnvelope(e))).toEqual(['target.issue']);
  });

  it('kind pr needs pr ≥ 1', () => {
    const e = valid();
    e.target = { kind: 'pr', repo: 'acme/app', pr: -3 };
    expect(fields(validateHandoffEnvelope(e))).toEqual(['target.pr']);
  });

  it('kind local_branch needs a non-blank branch', () => {
    const e = valid();
    e.target = { kind: 'local_branch', repo: 'acme/app', branch: ' ' };
    expect(fields(validateHandoffEnvelope(e))).toEqual(['target.branch']);
  });

  it('kind local_phase checks phase only when there is no valid issue', () => {
    const e = valid();
    e.target = { kind: 'local_phase', repo: 'acme/app' };
    expect(fields(validateHandoffEnvelope(e))).toEqual(['target.phase']);
    e.target = { kind: 'local_phase', repo: 'acme/app', issue: 5 };
    expect(validateHandoffEnvelope(e).ok).toBe(true);
    e.target = { kind: 'local_phase', repo: 'acme/app', phase: 'p2' };
    expect(validateHandoffEnvelope(e).ok).toBe(true);
  });
});

describe('nextAction, requiredReads, stopRules', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', ' \n '],
    ['a number', 3],
  ])('nextAction %s → error', (_n, v) => {
    const e = valid();
    e.nextAction = v;
    expect(fields(validateHandoffEnvelope(e))).toEqual(['nextAction']);
  });

  it('requiredReads must be an array', () => {
    const e = valid();
    e.requiredReads = 'a.md';
    expect(fields(validateHandoffEnvelope(e))).toEqual(['requiredReads']);
  });

  it('blank requiredReads entries are reported by index', () => {
    const e = valid();
    e.requiredReads = ['a.md', '', 'b.md', 7];
    const r = validateHandoffEnvelope(e);
    expect(fields(r)).toEqual(['requiredReads']);
    expect(r.errors[0]?.reason).toContain('[1,3]');
    expect(r.errors[0]?.got).toEqual(['a.md', '', 'b.md', 7]);
  });

  it('empty requiredReads is a warning only', () => {
    const e = valid();
    e.requiredReads = [];
    const r = validateHandoffEnvelope(e);
    expect(r.ok).toBe(true);
    expect(r.warnings?.map((w) => w.field)).toEqual(['requiredReads']);
  });

  it('stopRules must be an array of strings', () => {
    const e = valid();
    e.stopRules = 'merge';
    expect(fields(validateHandoffEnvelope(e))).toEqual(['stopRules']);
    e.stopRules = ['merge', 3, null];
    const r = validateHandoffEnvelope(e);
    expect(fields(r)).toEqual(['stopRules']);
    expect(r.errors[0]?.reason).toContain('[1,2]');
    e.stopRules = [];
    expect(validateHandoffEnvelope(e).ok).toBe(true);
  });
});

describe('acceptance', () => {
  it.each([
    ['missing', undefined],
    ['an array', []],
    ['a string', 'all green'],
  ])('acceptance %s → error', (_n, a) => {
    const e = valid();
    e.acceptance = a as never;
    expect(fields(validateHandoffEnvelope(e))).toEqual(['acceptance']);
  });

  it('criteria must be a non-empty array', () => {
    const e = valid();
    e.acceptance.criteria = 'x';
    expect(validateHandoffEnvelope(e).errors[0]).toMatchObject({
      field: 'acceptance.criteria',
      reason: 'must be an array',
    });
    e.acceptance.criteria = [];
    expect(validateHandoffEnvelope(e).errors[0]).toMatchObject({
      field: 'acceptance.criteria',
      reason: 'must not be empty',
    });
  });

  it('each criterion needs id, must and a known severity (reported by index)', () => {
    const e = valid();
    e.acceptance.criteria = [
      { id: 'ok', must: 'fine', severity: 'recommended' },
      { id: '', must: 'x', severity: 'required' },
      { id: 'a', must: ' ', severity: 'required' },
      { id: 'b', must: 'x', severity: 'optional' },
      null,
      { id: 'c', must: 'x', severity: 'required' },
    ];
    const r = validateHandoffEnvelope(e);
    expect(fields(r)).toEqual(['acceptance.criteria']);
    expect(r.errors[0]?.reason).toContain('[1,2,3,4]');
  });

  it('evidence, control, gateConfig, cwd and worktreeRequired are not checked on routed envelopes', () => {
    const e = valid();
    e.acceptance.evidence = 'whatever';
    e.control = null;
    e.gateConfig = 'x';
    e.cwd = 42;
    e.worktreeRequired = 'yes';
    e.gateState = { derivedAt: 'x', currentHeadSha: 5 };
    expect(validateHandoffEnvelope(e).ok).toBe(true);
  });
});

describe('enums', () => {
  for (const field of ['executionMode', 'asyncStartMode', 'asyncStartEffective'] as const) {
    it(`${field} must be present`, () => {
      const e = valid();
      delete e[field];
      expect(validateHandoffEnvelope(e).errors).toEqual([
        { field, reason: 'must be present', got: undefined },
      ]);
      e[field] = null;
      expect(validateHandoffEnvelope(e).errors[0]?.reason).toBe('must be present');
    });
    it(`${field} must be a known value`, () => {
      const e = valid();
      e[field] = 'sometimes';
      const r = validateHandoffEnvelope(e);
      expect(fields(r)).toEqual([field]);
      expect(r.errors[0]?.reason).toMatch(/^must be one of: /);
      expect(r.errors[0]?.got).toBe('sometimes');
    });
  }
});

describe('optional fields', () => {
  it('retrospectiveFindings: absent or null is fine; a non-object is an error', () => {
    const e = valid();
    e.retrospectiveFindings = null;
    expect(validateHandoffEnvelope(e).ok).toBe(true);
    e.retrospectiveFindings = ['x'];
    expect(fields(validateHandoffEnvelope(e))).toEqual(['retrospectiveFindings']);
  });

  it('retrospectiveFindings is checked field by field', () => {
    const e = valid();
    e.retrospectiveFindings = { internalToolingOnly: 'yes', rawCallViolations: [1], allowedWriteOps: 'x' };
    expect(fields(validateHandoffEnvelope(e))).toEqual([
      'retrospectiveFindings.internalToolingOnly',
      'retrospectiveFindings.rawCallViolations',
      'retrospectiveFindings.allowedWriteOps',
    ]);
    e.retrospectiveFindings = {
      internalToolingOnly: false,
      rawCallViolations: ['gh pr view'],
      allowedWriteOps: [],
    };
    expect(validateHandoffEnvelope(e).ok).toBe(true);
  });

  it('specSource must be phase_doc or pr_body when present', () => {
    const e = valid();
    e.specSource = 'pr_body';
    expect(validateHandoffEnvelope(e).ok).toBe(true);
    e.specSource = 'tracker_issue';
    expect(fields(validateHandoffEnvelope(e))).toEqual(['specSource']);
    e.specSource = 5;
    expect(validateHandoffEnvelope(e).errors[0]?.got).toBe(5);
  });

  it('a missing gateState.derivedAt is a warning', () => {
    const e = valid();
    delete e.gateState.derivedAt;
    expect(validateHandoffEnvelope(e)).toEqual({
      ok: true,
      errors: [],
      warnings: [{ field: 'gateState.derivedAt', reason: 'should be an ISO 8601 build timestamp' }],
    });
    delete (e as Record<string, unknown>).gateState;
    expect(validateHandoffEnvelope(e).warnings?.map((w) => w.field)).toEqual(['gateState.derivedAt']);
  });
});

describe('several errors at once', () => {
  it('reports every broken field in rule order, each with its got value', () => {
    const e = valid();
    e.handoffVersion = 0;
    e.target.repo = 'bad';
    e.nextAction = '';
    e.requiredReads = null;
    e.acceptance = 'x' as never;
    e.stopRules = {};
    e.executionMode = 'x';
    const r = validateHandoffEnvelope(e);
    expect(r.ok).toBe(false);
    expect(fields(r)).toEqual([
      'handoffVersion',
      'target.repo',
      'nextAction',
      'requiredReads',
      'acceptance',
      'stopRules',
      'executionMode',
    ]);
    expect(r.errors.map((x) => x.got)).toEqual([0, 'bad', '', null, 'x', {}, 'x']);
  });

  it('errors and warnings together', () => {
    const e = valid();
    e.handoffVersion = 3;
    e.requiredReads = [];
    e.nextAction = '';
    const r = validateHandoffEnvelope(e);
    expect(fields(r)).toEqual(['nextAction']);
    expect(r.warnings?.map((w) => w.field)).toEqual(['handoffVersion', 'requiredReads']);
  });
});

describe('terminal reconcile rules', () => {
  it('a built reconcile envelope is valid; merge after reconcile is allowed', () => {
    const e = validReconcile();
    expect(validateHandoffEnvelope(e).ok).toBe(true);
    e.stopRules = ['reconcile', 'merge'];
    expect(validateHandoffEnvelope(e).ok).toBe(true);
  });

  it('routeKind must be needs_reconcile when present', () => {
    const e = valid();
    e.routeKind = 'route';
    expect(fields(validateHandoffEnvelope(e))).toContain('routeKind');
  });

  it('selectedStrategy may appear only as null in the tuple', () => {
    const e = validReconcile();
    e.selectedStrategy = 'wait_watch';
    expect(fields(validateHandoffEnvelope(e))).toEqual(['selectedStrategy']);
    delete e.selectedStrategy;
    expect(fields(validateHandoffEnvelope(e))).toEqual(['selectedStrategy']);
  });

  it('the fail_closed_reconcile gate without the tuple markers is an error', () => {
    const e = valid();
    e.currentGate = 'fail_closed_reconcile';
    expect(fields(validateHandoffEnvelope(e))).toEqual(
      expect.arrayContaining(['routeKind', 'selectedStrategy', 'worktreeRequired']),
    );
    const r = validReconcile();
    r.currentGate = 'default';
    expect(fields(validateHandoffEnvelope(r))).toEqual(['currentGate']);
  });

  it('no worktree: worktreeRequired must be false', () => {
    const e = validReconcile();
    e.worktreeRequired = true;
    expect(validateHandoffEnvelope(e).errors).toEqual([
      { field: 'worktreeRequired', reason: 'must be false: reconciliation needs no worktree', got: true },
    ]);
  });

  it.each([
    [[]],
    [['merge']],
    [['merge', 'reconcile']],
    [['reconcile', 'draft-pr']],
    [['reconcile', 'merge', 'merge']],
  ])('stopRules %j are not the canonical reconcile stop rules', (rules) => {
    const e = validReconcile();
    e.stopRules = rules;
    expect(fields(validateHandoffEnvelope(e))).toEqual(['stopRules']);
  });

  it('acceptance must require a reconcile criterion', () => {
    const e = validReconcile();
    e.acceptance.criteria = [{ id: 'contract-compliance', must: 'x', severity: 'required' }];
    expect(fields(validateHandoffEnvelope(e))).toEqual(['acceptance.criteria']);
    e.acceptance.criteria = [{ id: 'reconcile', must: 'x', severity: 'recommended' }];
    expect(fields(validateHandoffEnvelope(e))).toEqual(['acceptance.criteria']);
  });

  it.each([
    ['Stop and reconcile the linkage.', true],
    ['stop and reconcile: conflicting PRs', true],
    ['Reconcile the retrospective checkpoint state before routing.', true],
    ['Fail closed: reconcile first.', true],
    ['Halt and reconcile.', true],
    [
      'Complete or explicitly skip the required post-run behavioral retrospective before starting or resuming the next dev-loop run.',
      true,
    ],
    ['Complete the feature, then reconcile.', false],
    ['Reconciliation is optional; continue.', false],
    ['Continue implementing the feature.', false],
    ['Please stop and reconcile.', false],
  ])('nextAction %j has a recognized fail-closed prefix: %s', (action, ok) => {
    const e = validReconcile();
    e.nextAction = action;
    expect(validateHandoffEnvelope(e).ok).toBe(ok);
  });
});

describe('reference validator cases not covered above, one row each', () => {
  const del =
    (...path: string[]) =>
    (e: Env) => {
      let o: Record<string, unknown> = e;
      for (const k of path.slice(0, -1)) o = o[k] as Record<string, unknown>;
      delete o[path.at(-1) as string];
    };
  const set = (patch: Record<string, unknown>) => (e: Env) => Object.assign(e, patch);
  const crit = (c: unknown) => (e: Env) => {
    e.acceptance.criteria = [c];
  };
  it.each<[string, (e: Env) => void, string]>([
    ['missing target.repo', del('target', 'repo'), 'target.repo'],
    ['issue target without an issue number', del('target', 'issue'), 'target.issue'],
    [
      'issue target with a negative issue',
      set({ target: { kind: 'issue', issue: -1, repo: 'a/b' } }),
      'target.issue',
    ],
    ['pr target without a pr number', set({ target: { kind: 'pr', repo: 'a/b' } }), 'target.pr'],
    ['pr target with pr 0', set({ target: { kind: 'pr', pr: 0, repo: 'a/b' } }), 'target.pr'],
    [
      'local_branch target without a branch',
      set({ target: { kind: 'local_branch', repo: 'a/b' } }),
      'target.branch',
    ],
    ['missing requiredReads', del('requiredReads'), 'requiredReads'],
    ['missing stopRules', del('stopRules'), 'stopRules'],
    ['stopRules with a number among strings', set({ stopRules: ['merge', 42, 'draft-pr'] }), 'stopRules'],
    ['acceptance without criteria', del('acceptance', 'criteria'), 'acceptance.criteria'],
    ['criterion without id', crit({ must: 'do something', severity: 'required' }), 'acceptance.criteria'],
    ['criterion without must', crit({ id: 'test', severity: 'required' }), 'acceptance.criteria'],
    ['criterion without severity', crit({ id: 'test', must: 'do something' }), 'acceptance.criteria'],
    [
      'criterion with severity critical',
      crit({ id: 'x', must: 'y', severity: 'critical' }),
      'acceptance.criteria',
    ],
    ['handoffVersion "v1" (got echoed)', set({ handoffVersion: 'v1' }), 'handoffVersion'],
  ])('%s → an error on %s', (_name, mutate, field) => {
    const e = valid();
    mutate(e);
    const r = validateHandoffEnvelope(e);
    expect(r.ok).toBe(false);
    expect(fields(r)).toEqual([field]);
  });

  it('a sparse object reports every missing or broken field together', () => {
    const r = validateHandoffEnvelope({
      handoffVersion: -5,
      target: { kind: 'issue' },
      nextAction: '',
      requiredReads: 'not-array',
      stopRules: null,
    });
    expect(r.ok).toBe(false);
    expect(fields(r)).toEqual([
      'handoffVersion',
      'target.repo',
      'target.issue',
      'nextAction',
      'requiredReads',
      'acceptance',
      'stopRules',
      'executionMode',
      'asyncStartMode',
      'asyncStartEffective',
    ]);
    expect(r.warnings).toEqual([
      { field: 'gateState.derivedAt', reason: 'should be an ISO 8601 build timestamp' },
    ]);
  });

  it('a built envelope of every routed strategy and target kind validates clean', () => {
    const targets = [
      { kind: 'issue', issue: 99 },
      { kind: 'pr', pr: 10 },
      { kind: 'local_branch', branch: 'feature/x' },
      { kind: 'local_phase', phase: 'p1' },
    ];
    for (const strategy of [
      'copilot_pr_followup',
      'issue_intake',
      'external_pr_followup',
      'reviewer_fixer',
      'wait_watch',
      'final_approval',
      'local_implementation',
      'ui_review',
    ]) {
      for (const activeArtifact of targets) {
        const env = buildHandoffEnvelope(bareBundle(strategy, { activeArtifact }), {}, {}, BASE_OPTS);
        expect(validateHandoffEnvelope(env), `${strategy} ${activeArtifact.kind}`).toEqual({
          ok: true,
          errors: [],
        });
      }
    }
  });
});
