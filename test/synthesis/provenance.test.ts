/**
 * Session-generated provenance: immutable, filled by drafts, kept across replans (the same value
 * carried on), empty after a restart (a new session starts from emptyProvenance, nothing is read
 * from disk).
 */
import { describe, expect, it } from 'vitest';
import {
  emptyProvenance,
  isGenerated,
  provenanceEntries,
  redraftAllowed,
  withDrafted,
} from '../../src/synthesis/index.js';

const A = '/p/Demo/A.lean';
const B = '/p/Demo/B.lean';

describe('provenance', () => {
  it('records drafted (file, name) pairs and nothing else', () => {
    const p = withDrafted(withDrafted(emptyProvenance(), A, ['t', 'u']), B, ['v']);
    expect(isGenerated(p, A, 't')).toBe(true);
    expect(isGenerated(p, A, 'u')).toBe(true);
    expect(isGenerated(p, B, 'v')).toBe(true);
    expect(isGenerated(p, B, 't')).toBe(false);
    expect(isGenerated(p, A, 'v')).toBe(false);
    expect(isGenerated(p, 'Demo/A.lean', 't')).toBe(false); // paths are exact strings
  });

  it('is immutable: adding returns a new value and the old one is unchanged', () => {
    const p0 = emptyProvenance();
    const p1 = withDrafted(p0, A, ['t']);
    const p2 = withDrafted(p1, A, ['u']);
    expect(isGenerated(p0, A, 't')).toBe(false);
    expect(isGenerated(p1, A, 'u')).toBe(false);
    expect(provenanceEntries(p2)).toEqual([
      { file: A, name: 't' },
      { file: A, name: 'u' },
    ]);
    expect(Object.isFrozen(p2)).toBe(true);
    expect(withDrafted(p2, A, [])).toBe(p2);
  });

  it('entries are sorted and deduplicated', () => {
    const p = withDrafted(withDrafted(emptyProvenance(), B, ['z', 'a']), A, ['m', 'm']);
    expect(provenanceEntries(p)).toEqual([
      { file: A, name: 'm' },
      { file: B, name: 'a' },
      { file: B, name: 'z' },
    ]);
  });

  it('kept across a replan, empty after a restart: a redraft allowed before a restart is refused after it', () => {
    // one session: draft, then (replan) the provenance value is carried on unchanged
    let session = emptyProvenance();
    session = withDrafted(session, A, ['t']);
    const afterReplan = session;
    const ask = (provenance: typeof session) =>
      redraftAllowed({
        policy: 'rewrite-generated-only',
        provenance,
        file: A,
        name: 't',
        explicitPreserve: false,
      });
    expect(ask(afterReplan)).toEqual({ ok: true, mode: 'replace', name: 't' });
    // restart: a new session starts from the empty provenance — the statement is user-authored now
    const restarted = emptyProvenance();
    expect(provenanceEntries(restarted)).toEqual([]);
    expect(ask(restarted)).toMatchObject({ ok: false, halt: false });
  });
});
