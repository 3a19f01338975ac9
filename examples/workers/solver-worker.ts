/**
 * Example worker for `handoff run` (TypeScript; compiled to dist/examples/workers/solver-worker.js).
 *
 * Protocol (docs/worker-protocol.md): read one run-contract/v1 dispatch from stdin, check the
 * custody baseline before editing, edit only the owned file, advance the baseline for the changed
 * file, print zero or more `run-persist-progress/v1` lines and end with one handoff record.
 *
 * Marker domain: the target line holds `sorry`. A line with `-- hint: TACTIC` is solved by
 * replacing `sorry -- hint: TACTIC` with TACTIC; an evidence_delta entry `use: TACTIC` solves any
 * line; anything else is declared stuck (missing library lemma).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { advanceBaseline, checkBaseline } from 'handoff-runtime/baseline';
import {
  blockerSignature,
  type Dispatch,
  type Handoff,
  handoffFor,
  protocolErrorHandoff,
  validateDispatch,
} from 'handoff-runtime/contract';

function readStdin(): string {
  return readFileSync(0, 'utf8');
}

function emit(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

function base(d: Dispatch): Handoff {
  return handoffFor(d);
}

/**
 * The worker-side entry check: a dispatch that is not JSON or not a valid run-contract/v1 record
 * is answered with a protocol-error handoff, and nothing is touched.
 */
function entryCheck(text: string): Dispatch | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    emit(protocolErrorHandoff(text, `malformed dispatch: not JSON (${(e as Error).message})`));
    return undefined;
  }
  const v = validateDispatch(raw);
  if (!v.ok) {
    const detail = v.issues
      .slice(0, 3)
      .map((i) => `${i.path || '(root)'}: ${i.message}`)
      .join('; ');
    emit(protocolErrorHandoff(raw, `malformed dispatch: ${detail}`));
    return undefined;
  }
  return v.value;
}

async function main(): Promise<void> {
  const d = entryCheck(readStdin());
  if (d === undefined) return;
  const root = process.env.HANDOFF_PROJECT_ROOT ?? process.cwd();
  const m = /^(.*):(\d+)$/.exec(d.target);
  const file = d.owned_files[0];
  if (!m || file === undefined) {
    emit({
      ...base(d),
      status: 'stopped',
      stop_reason: 'protocol-error',
      stop_detail: 'target is not file:line',
      next_action: 'stop',
    });
    return;
  }
  const line = Number(m[2]);
  const rel = relative(root, file);
  const lines = readFileSync(file, 'utf8').split('\n');
  const text = lines[line - 1] ?? '';
  const fromEvidence = d.evidence_delta.map((e) => /^use:\s*(.+)$/.exec(e)?.[1]).find((x) => x !== undefined);
  const tactic = fromEvidence ?? /--\s*hint:\s*(.+)$/.exec(text)?.[1]?.trim();
  emit({
    schema: 'run-persist-progress/v1',
    attempted_tools: ['marker-hint'],
    evidence: { queries: [`goal ${d.target}`] },
  });

  if (tactic === undefined || !text.includes('sorry')) {
    const sig = blockerSignature(rel, line, 'missing library lemma');
    emit({
      ...base(d),
      status: 'stuck',
      blocker_kind: 'proof',
      blocker_class: 'missing-library-lemma',
      blocker_signature: sig,
      attempted_tools: ['marker-hint', 'library-search'],
      best_candidates: [{ candidate: 'simp', outcome: 'fail: goal unchanged' }],
      failed_avenues: ['simp: goal unchanged', 'omega: not linear arithmetic'],
      evidence: {
        queries: [`library-search: ${text.trim()}`],
        top_candidates: [],
        attempts: [
          { snippet: 'simp', result: 'fail' },
          { snippet: 'omega', result: 'fail' },
        ],
        goal_delta: null,
        diagnostic_delta: 'missing library lemma',
      },
      next_action: 'stop',
      new_evidence_required_for_rerun: `a verified lemma for ${d.target}, given as evidence 'use: TACTIC'`,
    });
    return;
  }

  // custody: check before mutating, then advance only the changed entry
  const check = await checkBaseline(d.file_baseline, { only: [file] });
  if (check.result !== 'match') {
    emit({
      ...base(d),
      status: 'stopped',
      stop_reason: 'operational-error',
      stop_detail: `baseline check failed before editing: ${check.result}`,
      next_action: 'stop',
    });
    return;
  }
  lines[line - 1] = text.replace(/sorry(\s*--\s*hint:.*)?$/, tactic);
  writeFileSync(file, lines.join('\n'));
  const advanced = await advanceBaseline(d.file_baseline, [file]);
  emit({ schema: 'run-persist-progress/v1', files_changed: [file], file_baseline: advanced });
  emit({
    ...base(d),
    attempted_tools: ['marker-hint'],
    best_candidates: [{ candidate: tactic, outcome: 'pass' }],
    evidence: {
      queries: [],
      top_candidates: [tactic],
      attempts: [{ snippet: tactic, result: 'pass' }],
      goal_delta: `${d.target}: sorry → ${tactic}`,
      diagnostic_delta: null,
    },
    files_changed: [file],
    file_baseline: advanced,
  });
}

main().catch((e: unknown) => {
  process.stderr.write(`solver-worker: ${String(e)}\n`);
  process.exitCode = 1;
});
