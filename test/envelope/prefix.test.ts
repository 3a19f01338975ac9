/**
 * #1462: the envelope minus gateState is byte-stable across builds and rounds for the same target +
 * gate + settings; a per-round-varying field placed above gateState is caught by the drift guard.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from '../../src/canonical/index.js';
import {
  assertStablePrefix,
  buildHandoffEnvelope,
  EXTENSION_DEFAULT_SETTINGS,
  envelopePrefix,
  findPrefixDrift,
  type HandoffEnvelope,
  serializeEnvelope,
  stableBody,
} from '../../src/envelope/index.js';
import { isHandoffError } from '../../src/errors/index.js';
import { bareBundle, reconcileWrapped, wrapped } from './helpers.js';

const SETTINGS = EXTENSION_DEFAULT_SETTINGS as Record<string, unknown>;
const SANCTIONED = {
  reads: { 'ci-status': 'scripts/github/ci-status.mjs' },
  edits: { 'issue-comment': 'scripts/github/issue-comment.mjs' },
  lifecycle: { 'pr-create': 'scripts/github/pr-create.mjs' },
  forbidden: ['node -e'],
  orchestratorOwned: ['gh pr merge'],
};

/** Round i of a simulated loop: head sha, CI status, counts and clock all move. */
function roundState(i: number) {
  return {
    currentSubGate: 'pre-approval',
    currentHeadSha: sha256Hex(`commit-${i}`).slice(0, 40),
    ciStatus: ['pending', 'failure', 'success', null][i % 4],
    unresolvedThreadCount: (i * 7) % 5,
    copilotRoundCount: i,
  };
}

function buildRound(
  i: number,
  input: Record<string, unknown> = bareBundle('copilot_pr_followup'),
): HandoffEnvelope {
  return buildHandoffEnvelope(input, SETTINGS, roundState(i), {
    repoRoot: '/work/repo',
    sanctionedCommands: SANCTIONED,
    overrides: { preferLocal: true },
    env: {},
    now: new Date(Date.UTC(2026, 10, 30) + i * 61_000),
  });
}

describe('#1462: the envelope minus gateState is byte-stable across rounds', () => {
  it('40 simulated rounds: gateState changes every round, the prefix bytes never do', () => {
    const rounds = Array.from({ length: 40 }, (_, i) => buildRound(i));
    const prefixes = rounds.map((r) => envelopePrefix(r));
    const first = prefixes[0];
    for (const p of prefixes) {
      expect(p.text).toBe(first?.text);
      expect(p.digest).toBe(first?.digest);
    }
    expect(new Set(rounds.map((r) => canonicalJson(r.gateState))).size).toBe(40);
    expect(assertStablePrefix(rounds)).toBe(first?.digest);
    expect(findPrefixDrift(rounds)).toEqual({ stable: true, digest: first?.digest, drift: [] });
  });

  it('holds for wrapped input and for the terminal reconcile envelope too', () => {
    const w = wrapped(bareBundle('copilot_pr_followup'));
    expect(findPrefixDrift(Array.from({ length: 10 }, (_, i) => buildRound(i, w))).stable).toBe(true);
    const rec = reconcileWrapped();
    expect(findPrefixDrift(Array.from({ length: 10 }, (_, i) => buildRound(i, rec))).stable).toBe(true);
  });

  it('property: any detector state and clock leave the prefix unchanged', () => {
    const base = envelopePrefix(buildRound(0)).digest;
    fc.assert(
      fc.property(
        fc.record({
          currentHeadSha: fc.option(fc.string(), { nil: null }),
          ciStatus: fc.option(fc.string(), { nil: null }),
          unresolvedThreadCount: fc.integer({ min: -5, max: 1000 }),
          copilotRoundCount: fc.integer({ min: -5, max: 1000 }),
        }),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        (gs, ms) => {
          const env = buildHandoffEnvelope(
            bareBundle('copilot_pr_followup'),
            SETTINGS,
            { ...gs, currentSubGate: 'pre-approval' },
            {
              repoRoot: '/work/repo',
              sanctionedCommands: SANCTIONED,
              overrides: { preferLocal: true },
              env: {},
              now: ms,
            },
          );
          return envelopePrefix(env).digest === base;
        },
      ),
      { numRuns: 200 },
    );
  });

  it('the prefix changes when what it depends on changes (target, gate, settings)', () => {
    const d = (env: HandoffEnvelope) => envelopePrefix(env).digest;
    const base = d(buildRound(0));
    expect(
      d(buildRound(0, bareBundle('copilot_pr_followup', { activeArtifact: { kind: 'issue', issue: 43 } }))),
    ).not.toBe(base);
    const watch = buildHandoffEnvelope(
      bareBundle('copilot_pr_followup'),
      SETTINGS,
      { currentSubGate: 'watch' },
      {
        repoRoot: '/work/repo',
        sanctionedCommands: SANCTIONED,
        overrides: { preferLocal: true },
        env: {},
        now: 0,
      },
    );
    expect(d(watch)).not.toBe(base);
  });
});

describe('the drift guard catches a per-round-varying field above gateState', () => {
  /** A faulty builder that leaks the head sha (and a counter) above the gateState tail. */
  function leakyBuild(i: number): Record<string, unknown> {
    const env = buildRound(i);
    const { gateState, ...body } = env;
    return { ...body, currentHeadSha: gateState.currentHeadSha, roundStamp: `r${i}`, gateState };
  }

  it('findPrefixDrift names the leaked fields and the rounds', () => {
    const report = findPrefixDrift(Array.from({ length: 5 }, (_, i) => leakyBuild(i)));
    expect(report.stable).toBe(false);
    expect(report.drift.map((d) => d.round)).toEqual([1, 2, 3, 4]);
    for (const d of report.drift) expect(d.fields).toEqual(['currentHeadSha', 'roundStamp']);
  });

  it('assertStablePrefix throws envelope_prefix_drift', () => {
    try {
      assertStablePrefix([leakyBuild(0), leakyBuild(1)]);
      throw new Error('no error');
    } catch (e) {
      expect(isHandoffError(e) && e.code).toBe('envelope_prefix_drift');
      expect(isHandoffError(e) && e.details.fields).toEqual(['currentHeadSha', 'roundStamp']);
    }
  });

  it('a field that varies only once in many rounds is still caught; a stable extra field is not', () => {
    const rounds: Record<string, unknown>[] = Array.from({ length: 20 }, (_, i) => ({
      ...buildRound(i),
      note: i === 17 ? 'late' : 'same',
    }));
    expect(findPrefixDrift(rounds).drift).toEqual([{ round: 17, fields: ['note'] }]);
    const stableExtra = Array.from({ length: 5 }, (_, i) => ({ ...buildRound(i), note: 'same' }));
    expect(findPrefixDrift(stableExtra).stable).toBe(true);
  });

  it('a field added or removed between rounds counts as drift', () => {
    const a = buildRound(0);
    const { requiredReads: _r, ...withoutReads } = buildRound(1);
    expect(findPrefixDrift([a, withoutReads]).drift).toEqual([{ round: 1, fields: ['requiredReads'] }]);
  });
});

describe('serialization', () => {
  it('envelopePrefix is canonical JSON of the envelope minus gateState, with its sha256 and byte count', () => {
    const env = buildRound(3);
    const p = envelopePrefix(env);
    const body = stableBody(env);
    expect('gateState' in body).toBe(false);
    expect(p.text).toBe(canonicalJson(body));
    expect(p.digest).toBe(sha256Hex(p.text));
    expect(p.bytes).toBe(Buffer.byteLength(p.text));
    expect(p.text).not.toContain('derivedAt');
  });

  it('serializeEnvelope keeps gateState as the last member after the stable bytes', () => {
    const texts = [0, 1, 2].map((i) => serializeEnvelope(buildRound(i)));
    const stable = envelopePrefix(buildRound(0)).text.slice(0, -1);
    for (const [i, t] of texts.entries()) {
      expect(t.startsWith(`${stable},"gateState":`)).toBe(true);
      expect(JSON.parse(t)).toEqual(JSON.parse(JSON.stringify(buildRound(i))));
    }
    expect(new Set(texts).size).toBe(3);
  });

  it('rejects non-objects', () => {
    expect(() => envelopePrefix(null)).toThrow(/envelope must be an object/);
    expect(() => serializeEnvelope([])).toThrow(/envelope must be an object/);
    expect(serializeEnvelope({ gateState: { a: 1 } })).toBe('{"gateState":{"a":1}}');
  });
});
