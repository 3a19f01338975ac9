import { describe, expect, it } from 'vitest';
import { emptyEvidence } from '../../src/contract/index.js';
import {
  EMPTY_LEDGER,
  fallbackGate,
  grantCapabilities,
  ledgerAfterHandoff,
  ledgerAfterPlan,
  searchGrant,
  searchViolation,
} from '../../src/cycle/search-budget.js';
import type { TargetInfo } from '../../src/cycle/types.js';
import { importLines, importsChanged, nextTier, tierPlan } from '../../src/cycle/verification-ladder.js';
import { verifyEdit } from '../../src/cycle/verify-edit.js';
import { initTracker, recordKwSearch } from '../../src/tracker/counters.js';

const T: TargetInfo = { id: 'A.lean:2', file: 'A.lean', line: 2, goal: 'sorry' };
const handoffish = (queries: string[], top: string[], tools: string[] = []) => ({
  attempted_tools: tools,
  evidence: { ...emptyEvidence(), queries, top_candidates: top },
});

describe('verification ladder', () => {
  it('picks the lightest tier per question and caps below the project gate', () => {
    expect(tierPlan({ kind: 'discover' })).toEqual({ start: 'file-fast', max: 'module' });
    expect(tierPlan({ kind: 'edit', importsChanged: false })).toEqual({ start: 'file-fast', max: 'module' });
    expect(tierPlan({ kind: 'edit', importsChanged: true })).toEqual({ start: 'file-deps', max: 'module' });
    expect(tierPlan({ kind: 'checkpoint' })).toEqual({ start: 'project', max: 'project' });
    expect(nextTier('file-fast', 'module')).toBe('file-deps');
    expect(nextTier('file-deps', 'module')).toBe('module');
    expect(nextTier('module', 'module')).toBeNull();
    expect(nextTier('project', 'project')).toBeNull();
  });

  it('detects changed imports', () => {
    const before = 'import A\ntheorem t := sorry\n';
    expect(importLines('import A\nfrom x import y\n  #include <z>\nlet a = 1')).toEqual([
      'import A',
      'from x import y',
      '#include <z>',
    ]);
    expect(importsChanged(before, 'import A\ntheorem t := rfl\n')).toBe(false);
    expect(importsChanged(before, 'import A\nimport B\ntheorem t := b\n')).toBe(true);
    expect(importsChanged(before, 'theorem t := rfl\n')).toBe(true);
  });

  it('confirms a solved claim only when the target is gone and its file has no error', () => {
    const attempts = [{ cycle: 1, solved: true, signature: null, snippets: [], emptySearch: false }];
    const base = { tier: 'file-fast' as const, targets: [], errors: [] };
    expect(verifyEdit(T, attempts, 'solved', base).confirmed).toBe(true);
    const open = verifyEdit(T, attempts, 'solved', { ...base, targets: [T] });
    expect(open.confirmed).toBe(false);
    expect(open.attempts[0]).toMatchObject({ solved: false, signature: 'A.lean:2:not verified' });
    expect(open.line).toBe('verify (file-fast): A.lean:2 not confirmed — A.lean:2 still open');
    const err = verifyEdit(T, attempts, 'solved', { ...base, errors: ['A.lean:3:unknown identifier foo'] });
    expect(err.attempts[0]?.signature).toBe('A.lean:2:unknown identifier foo');
    expect(verifyEdit(T, attempts, 'solved', { ...base, errors: ['B.lean:1:x'] }).confirmed).toBe(true);
    expect(verifyEdit(T, attempts, 'stuck', { ...base, targets: [T] }).attempts).toBe(attempts);
  });
});

describe('search budgets and the fallback gate', () => {
  it('opens the gate only after 2 empty/inconclusive searches or an unavailable tool', () => {
    expect(fallbackGate(EMPTY_LEDGER).open).toBe(false);
    expect(fallbackGate({ inconclusive: 1, unavailable: [] })).toMatchObject({ open: false });
    expect(fallbackGate({ inconclusive: 2, unavailable: [] }).open).toBe(true);
    expect(fallbackGate({ inconclusive: 0, unavailable: ['leansearch'] })).toMatchObject({
      open: true,
      reason: 'search tool unavailable: leansearch',
    });
    expect(ledgerAfterPlan(EMPTY_LEDGER, [{ top: [] }, { top: ['x'] }]).inconclusive).toBe(1);
    const l = ledgerAfterHandoff(EMPTY_LEDGER, handoffish(['a', 'b'], [], ['unavailable:loogle', 'lsp']));
    expect(l).toEqual({ inconclusive: 2, unavailable: ['loogle'] });
    expect(ledgerAfterHandoff(EMPTY_LEDGER, handoffish(['a'], ['lemma'])).inconclusive).toBe(0);
  });

  it("grants min(2, the tracker's knowledge-search budget left) through dispatch capabilities", () => {
    const t = initTracker({ maxCycles: 3, maxStuck: 2 }, 's', 0);
    if (!t.ok) throw new Error(t.error);
    expect(searchGrant(t.state, 0, EMPTY_LEDGER)).toEqual({
      budget: 2,
      fallback: false,
      capabilities: ['search-budget:2'],
    });
    const two = recordKwSearch(recordKwSearch(t.state));
    expect(searchGrant(two, 0, EMPTY_LEDGER).budget).toBe(1);
    expect(searchGrant(recordKwSearch(two), 0, EMPTY_LEDGER).budget).toBe(0);
    expect(grantCapabilities(2, { inconclusive: 2, unavailable: [] })).toEqual([
      'search-budget:2',
      'search-fallback',
    ]);
  });

  it('refuses searches past the budget and a fallback before the gate opened', () => {
    const g = { budget: 2, ledger: EMPTY_LEDGER };
    expect(searchViolation(handoffish(['a', 'b'], []), g)).toBeNull();
    expect(searchViolation(handoffish(['a', 'b', 'c'], []), g)).toBe(
      'the worker ran 3 searches; its search budget was 2',
    );
    expect(searchViolation(handoffish(['a'], [], ['fallback:smart-search']), g)).toMatch(
      /^script fallback \(fallback:smart-search\) before the fallback gate opened/,
    );
    // its own two inconclusive searches, an unavailable tool, or an earlier ledger open the gate
    expect(searchViolation(handoffish(['a', 'b'], [], ['fallback:smart-search']), g)).toBeNull();
    expect(searchViolation(handoffish([], [], ['unavailable:lsp', 'fallback:x']), g)).toBeNull();
    expect(
      searchViolation(handoffish(['a'], [], ['fallback:x']), {
        budget: 2,
        ledger: { inconclusive: 1, unavailable: [] },
      }),
    ).toBeNull();
    expect(searchViolation(handoffish(['a'], ['hit'], ['fallback:x']), g)).not.toBeNull();
  });
});
