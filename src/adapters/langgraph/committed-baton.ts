/**
 * The journal is the truth about a chain graph's baton (layer 1, pure): the baton a node finds in
 * LangGraph state is read once into plain data, re-validated, and compared with the journal's last
 * commit before any stage runs on it.
 */

import { deepFreeze, tryCanonicalJson } from '../../canonical/index.js';
import { type Baton, BatonSchema } from '../../chain/baton.js';
import { detachAnswer } from '../../delegate/detach.js';
import { safeValidate } from '../../validation/index.js';

/**
 * Reads a value from graph state as a baton: read once into plain JSON (getters, Proxies and
 * cycles are refused), checked against the baton schema and its own invariants (revision, trace,
 * receipts, fingerprint, snapshot id), deep-frozen. Never throws.
 *
 * @example
 * ```ts
 * const r = readStateBaton(state.baton); if (r.ok) r.baton.snapshot_id;
 * ```
 */
export function readStateBaton(
  value: unknown,
): { readonly ok: true; readonly baton: Baton } | { readonly ok: false; readonly detail: string } {
  if (value === undefined || value === null) return { ok: false, detail: 'the state holds no baton' };
  const d = detachAnswer(value);
  if (!d.ok) return { ok: false, detail: `the state's baton is not plain data: ${d.detail}` };
  const v = safeValidate(BatonSchema, d.value);
  if (!v.ok) {
    const first = v.issues
      .slice(0, 3)
      .map((i) => `${i.path || '(root)'}: ${i.message}`)
      .join('; ');
    return { ok: false, detail: `the state's baton is not a valid baton: ${first}` };
  }
  return { ok: true, baton: deepFreeze(v.value as Baton) };
}

/**
 * How a baton from the state relates to the journal's last commit of its id:
 * - `none` — the journal holds nothing for it;
 * - `same` — it is the last commit (byte for byte, receipts included);
 * - `behind` — the last commit is the very next revision, made from exactly this baton (the stage
 *   committed, then the graph lost its result — a crash between the journal and LangGraph's own
 *   checkpoint);
 * - `other` — anything else: a forged, edited, stale or foreign baton.
 *
 * @example
 * ```ts
 * journalRelation(await journal.loadLast(b.baton_id), b); // 'same'
 * ```
 */
export function journalRelation(last: Baton | undefined, baton: Baton): 'none' | 'same' | 'behind' | 'other' {
  if (last === undefined) return 'none';
  const json = (v: unknown): string | null => {
    const t = tryCanonicalJson(v);
    return t.ok ? t.json : null;
  };
  const mine = json(baton);
  if (mine !== null && mine === json(last)) return 'same';
  const receipt = last.stage_receipts[last.stage_receipts.length - 1];
  if (
    receipt !== undefined &&
    last.revision === baton.revision + 1 &&
    receipt.input_revision === baton.revision &&
    receipt.input_fingerprint === baton.fingerprint &&
    json(last.stage_receipts.slice(0, -1)) === json(baton.stage_receipts)
  ) {
    return 'behind';
  }
  return 'other';
}
