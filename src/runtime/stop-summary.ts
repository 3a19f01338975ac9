/**
 * The Markdown stop summary of a persisted run (pure): what was solved, what is stuck and why, and
 * what to do next, each with the `<run_id>#<seq>` it rests on — the seed's "Markdown stop summary"
 * beside the final handoff. Every string a worker, a file name or a commit message could have
 * shaped goes through {@link markdownText}: one line, no control character, no Markdown or HTML
 * that could render as anything but its own characters. Cites are written only when they parse.
 */
import type { Handoff } from '../contract/index.js';
import type { CheckpointRecord } from '../cycle/types.js';
import { parseCite } from '../store/cite.js';
import { RUN_ID_PATTERN } from '../store/schema.js';
import type { CitedOutcome } from './final-cites.js';

/**
 * The file name of the stop summary in the run's directory (beside `handoff.json`).
 *
 * @example
 * ```ts
 * join(runPaths(root, runId).dir, STOP_SUMMARY_FILE); // '<root>/runs/<run_id>/summary.md'
 * ```
 */
export const STOP_SUMMARY_FILE = 'summary.md';

/** C0/C1 controls, DEL, line and paragraph separators, bidi overrides and isolates, BOM. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;
/** ASCII punctuation Markdown (or a GFM autolink, or math) may give a meaning to. */
const MARKDOWN = /[\\`*_{}[\]()#+\-.!|~:$]/;
const ENTITY: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * An untrusted string as inert Markdown text on one line (pure), one character at a time:
 * controls and bidi characters as `\u{…}`, `&`, `<`, `>` as HTML entities, Markdown punctuation
 * backslash-escaped, and at most `max` characters (an ellipsis after).
 *
 * @example
 * ```ts
 * markdownText('*x* <b>\n[y](z)'); // '\\*x\\* &lt;b&gt;\\u{a}\\[y\\]\\(z\\)'
 * ```
 */
export function markdownText(text: string, max = 400): string {
  const chars = [...text];
  const out = chars.slice(0, max).map((c) => {
    if (UNSAFE.test(c)) return `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`;
    const e = ENTITY[c];
    if (e !== undefined) return e;
    return MARKDOWN.test(c) ? `\\${c}` : c;
  });
  return `${out.join('')}${chars.length > max ? '…' : ''}`;
}

/** A run id as written into the summary: itself when it is one (a checked format), else escaped. */
function runIdText(text: string): string {
  return RUN_ID_PATTERN.test(text) ? text : markdownText(text, 64);
}

/** A cite as written into the summary: itself when it parses, else nothing is claimed. */
function cite(text: string | null | undefined): string | null {
  return typeof text === 'string' && parseCite(text) !== null ? text : null;
}

/** Inputs of {@link renderStopSummary}. */
export interface StopSummaryInput {
  readonly runId: string;
  /** The final handoff as stored. */
  readonly handoff: Handoff;
  /** Its cite (`<run_id>#<seq>`), or null when it could not be stored. */
  readonly finalCite: string | null;
  /** The journaled worker handoffs, classified (src/runtime/final-cites.ts). */
  readonly cited: readonly CitedOutcome[];
  readonly checkpoints: readonly CheckpointRecord[];
}

const NEXT: Readonly<Record<Handoff['next_action'], string>> = {
  continue: 'continue the run',
  deep: 'a deep pass on the blocked target',
  repair: 'repair the build error first',
  redraft: 'redraft the statement (the proof as stated is blocked)',
  golf: 'golf the accepted proofs',
  stop: 'nothing more in this run',
};

/**
 * The stop summary as Markdown (pure; ends with a newline).
 *
 * @example
 * ```ts
 * renderStopSummary({ runId, handoff, finalCite: `${runId}#9`, cited, checkpoints });
 * // '# Run 20261206T…: solved\n\n…## Solved\n\n- A\\.lean\\:2 — 20261206T…#3\n…'
 * ```
 */
export function renderStopSummary(i: StopSummaryInput): string {
  const h = i.handoff;
  const out: string[] = [];
  const status = `${h.status}${h.stop_reason ? ` (${h.stop_reason})` : ''}`;
  out.push(`# Run ${runIdText(i.runId)}: ${markdownText(status, 80)}`, '');
  out.push(
    `Target ${markdownText(h.target ?? '-', 200)}, scope ${markdownText(h.scope ?? '-', 20)}, mode ${markdownText(h.mode ?? '-', 20)}.`,
  );
  const fin = cite(i.finalCite);
  out.push(fin === null ? 'The final handoff could not be stored.' : `Final handoff: ${fin}.`, '');

  out.push('## Solved', '');
  const solved = i.cited.filter((c) => c.solved && cite(c.cite) !== null);
  if (solved.length === 0) out.push('Nothing was solved.');
  for (const c of solved) out.push(`- ${markdownText(c.target, 200)} — accepted handoff ${c.cite}`);
  for (const k of i.checkpoints) {
    out.push(
      `- committed ${/^[0-9a-f]{4,64}$/.test(k.commit ?? '') ? (k.commit ?? '').slice(0, 12) : 'uncommitted'} (cycle ${k.cycle}): ${markdownText(k.message, 200)}`,
    );
  }
  out.push('');

  out.push('## Stuck or open', '');
  const failed = i.cited.filter((c) => !c.solved && cite(c.cite) !== null);
  const driven = h.blocker_signature !== null;
  if (!driven && failed.length === 0 && h.status === 'solved') out.push('Nothing is stuck.');
  if (driven) {
    out.push(
      `- blocker ${markdownText(`${h.blocker_kind ?? '-'}/${h.blocker_class ?? '-'}`, 60)}: ${markdownText(h.blocker_signature ?? '', 300)}`,
    );
  }
  if (h.stop_detail !== null) out.push(`- stopped: ${markdownText(h.stop_detail, 300)}`);
  if (h.status !== 'solved' && !driven && h.stop_detail === null)
    out.push(`- the run ended ${markdownText(status, 80)} before every target was solved`);
  for (const c of failed) {
    const words = c.words.startsWith(`${c.cite}: `) ? c.words.slice(c.cite.length + 2) : c.words;
    out.push(`- ${markdownText(words, 300)} — handoff ${c.cite}`);
  }
  out.push('');

  out.push('## Next', '');
  out.push(`- next action: ${markdownText(h.next_action, 20)} (${NEXT[h.next_action] ?? 'see the handoff'})`);
  if (h.new_evidence_required_for_rerun !== null)
    out.push(`- a rerun needs: ${markdownText(h.new_evidence_required_for_rerun, 300)}`);
  if (h.status !== 'solved')
    out.push(
      `- to build on this run: handoff run --persist --prior-run ${runIdText(i.runId)} … (with the new evidence)`,
    );
  out.push(`- to read it: handoff inspect ${runIdText(i.runId)}; handoff audit ${runIdText(i.runId)}`);
  return `${out.join('\n')}\n`;
}
