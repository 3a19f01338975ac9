/**
 * prefix_digest agrees with the reference's run_reuse: sha256 of json.dumps(..., ensure_ascii=False,
 * separators=(",", ":"), sort_keys=True) — computed here by a real python3 — also for non-ASCII text.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { prefixDigest } from '../../src/persist/reuse-selection.js';

const PY = [
  'import hashlib, json, sys',
  'v = json.loads(sys.stdin.read())',
  'text = json.dumps(v, ensure_ascii=False, separators=(",", ":"), sort_keys=True)',
  'sys.stdout.write(hashlib.sha256(text.encode("utf-8")).hexdigest())',
].join('\n');

describe('prefix_digest across implementations', () => {
  it('equals the reference digest of a prefix whose note holds a Lean goal', () => {
    const load = {
      run_id: '20260909T120000Z-7484bfa8',
      manifest: { schema: 'run-store-manifest/v1', run_id: '20260909T120000Z-7484bfa8', note: 'ä' },
      events: [
        {
          schema: 'run-store-event/v1',
          seq: 1,
          ts: '2026-09-09T12:00:01Z',
          kind: 'note',
          payload: { kind: 'candidate', text: 'closes ⊢ a ≤ b', lean: null },
        },
      ],
    };
    const reference = execFileSync('python3', ['-c', PY], { input: JSON.stringify(load), encoding: 'utf8' });
    expect(prefixDigest(load as unknown as Parameters<typeof prefixDigest>[0])).toBe(reference);
  });
});
