/**
 * Example worker for `handoff run` (TypeScript; compiled to dist/examples/workers/solver-worker.js).
 *
 * Protocol (docs/worker-protocol.md): read one run-contract/v1 dispatch from stdin, check the
 * custody baseline before editing, edit only owned files, advance the baseline for each changed
 * file, print zero or more `run-persist-progress/v1` lines and end with one handoff record.
 *
 * Marker domain (src/runtime/marker-scan.ts): a line holding `sorry` is a target; a line comment
 * `-- error: TEXT` is a build error. Per role (the dispatch's `worker`):
 *
 * - fill (`worker: null`, also a falsify pass): `sorry -- hint: TACTIC` is solved by TACTIC; an
 *   evidence_delta entry `use: TACTIC` solves any line; a target in a file that does not build
 *   (an `-- error:` line) is stuck on that build error; anything else is stuck (missing library
 *   lemma).
 * - `sorry-filler-deep`: `sorry -- deep: regress` gets a deep pass that makes things worse (the
 *   proof is split into two helper lemmas that each end in `sorry`: the sorry count goes up and the
 *   runtime must roll it back); `sorry -- deep: TACTIC` is solved with a multi-line helper
 *   (`have key : GOAL := by TACTIC` / `exact key`); any other target is handled as in fill.
 * - `proof-repair` (patch-only): never edits. It computes, in the worker, a unified diff that
 *   replaces a line `CODE -- repair: REPLACEMENT -- error: TEXT` by `REPLACEMENT` (keeping the
 *   line's indentation) and returns it as one `unified-diff` artifact with `files_changed: []` and
 *   the parent's baseline unchanged; the runtime applies it under custody.
 * - golf (`mode: golf`, `proof-golfer`): the target is a proved declaration's header line; a
 *   two-line tactic proof `… := by` / `  TACTIC` ending the declaration is collapsed into
 *   `… := by TACTIC` on one line; anything else is left as it is (`solved`, no files changed).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
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

function stop(d: Dispatch, reason: 'protocol-error' | 'operational-error', detail: string): void {
  emit({ ...base(d), status: 'stopped', stop_reason: reason, stop_detail: detail, next_action: 'stop' });
}

/** One task as the worker sees it: the target's file (owned), its line and text. */
interface Task {
  readonly d: Dispatch;
  readonly root: string;
  readonly file: string;
  readonly rel: string;
  readonly line: number;
  readonly text: string;
  readonly content: string;
}

const ERROR_RE = /--\s*error:\s*(.+)$/;
const REPAIR_RE = /^(\s*).*?--\s*repair:\s*(.*?)\s*--\s*error:\s*(.+)$/;

/** The first build error of a text (`-- error: TEXT`), with its 1-based line. */
function firstError(content: string): { line: number; message: string } | null {
  const lines = content.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = ERROR_RE.exec(lines[i] ?? '');
    if (m) return { line: i + 1, message: (m[1] ?? '').trim() };
  }
  return null;
}

function stuckOn(
  t: Task,
  cls: Handoff['blocker_class'],
  phrase: string,
  line: number,
  required: string,
): void {
  emit({
    ...base(t.d),
    status: 'stuck',
    blocker_kind: 'proof',
    blocker_class: cls,
    blocker_signature: blockerSignature(t.rel, line, phrase),
    attempted_tools: ['marker-hint', 'library-search'],
    best_candidates: [{ candidate: 'simp', outcome: 'fail: goal unchanged' }],
    failed_avenues: ['simp: goal unchanged', 'omega: not linear arithmetic'],
    evidence: {
      queries: [`library-search: ${t.text.trim()}`],
      top_candidates: [],
      attempts: [
        { snippet: 'simp', result: 'fail' },
        { snippet: 'omega', result: 'fail' },
      ],
      goal_delta: null,
      diagnostic_delta: phrase,
    },
    next_action: 'stop',
    new_evidence_required_for_rerun: required,
  });
}

/** Custody: the baseline must match the owned files before any mutation. */
async function custodyHolds(t: Task): Promise<boolean> {
  const check = await checkBaseline(t.d.file_baseline, { only: [...t.d.owned_files] });
  if (check.result === 'match') return true;
  stop(t.d, 'operational-error', `baseline check failed before editing: ${check.result}`);
  return false;
}

/** Writes the new text of the target's file, advances its baseline entry and reports the change. */
async function commitEdit(t: Task, next: string): Promise<Dispatch['file_baseline']> {
  writeFileSync(t.file, next);
  const advanced = await advanceBaseline(t.d.file_baseline, [t.file]);
  emit({ schema: 'run-persist-progress/v1', files_changed: [t.file], file_baseline: advanced });
  return advanced;
}

/** The ordinary (fill) pass: hint or evidence, else a blocker. */
async function fill(t: Task): Promise<void> {
  const fromEvidence = t.d.evidence_delta
    .map((e) => /^use:\s*(.+)$/.exec(e)?.[1])
    .find((x) => x !== undefined);
  const tactic = fromEvidence ?? /--\s*hint:\s*(.+)$/.exec(t.text)?.[1]?.trim();
  const broken = firstError(t.content);
  if (broken !== null && t.text.includes('sorry')) {
    // a file that does not build: no goal can be closed until the build error is repaired
    stuckOn(
      t,
      'typeclass-coercion-elaboration',
      `build error: ${broken.message}`,
      broken.line,
      `a repair of the build error at ${t.rel}:${broken.line}`,
    );
    return;
  }
  if (tactic === undefined || !t.text.includes('sorry')) {
    stuckOn(
      t,
      'missing-library-lemma',
      'missing library lemma',
      t.line,
      `a verified lemma for ${t.d.target}, given as evidence 'use: TACTIC'`,
    );
    return;
  }
  if (!(await custodyHolds(t))) return;
  const lines = t.content.split('\n');
  lines[t.line - 1] = t.text.replace(/sorry(\s*--\s*hint:.*)?$/, tactic);
  const advanced = await commitEdit(t, lines.join('\n'));
  emit({
    ...base(t.d),
    attempted_tools: ['marker-hint'],
    best_candidates: [{ candidate: tactic, outcome: 'pass' }],
    evidence: {
      queries: [],
      top_candidates: [tactic],
      attempts: [{ snippet: tactic, result: 'pass' }],
      goal_delta: `${t.d.target}: sorry → ${tactic}`,
      diagnostic_delta: null,
    },
    files_changed: [t.file],
    file_baseline: advanced,
  });
}

/** The declaration the target line belongs to: its name, binders and goal (nearest header above). */
function declarationAbove(
  lines: readonly string[],
  line: number,
): { index: number; name: string; binders: string; goal: string } | null {
  for (let i = line - 1; i >= 0; i--) {
    const m = /^\s*(?:theorem|lemma)\s+(\S+)\s*(.*?)\s*:\s*([^:]*?)\s*:=\s*by\s*$/.exec(lines[i] ?? '');
    if (m) return { index: i, name: m[1] as string, binders: (m[2] ?? '').trim(), goal: (m[3] ?? '').trim() };
  }
  return null;
}

/** The names of a declaration's explicit binders (`(n : Nat) (h : 4 ≤ n)` → `n h`). */
function explicitNames(binders: string): string[] {
  return [...binders.matchAll(/\(([^:()]+):/g)].flatMap((m) => (m[1] ?? '').trim().split(/\s+/));
}

/** The deep pass (`sorry-filler-deep`): `-- deep: regress` makes things worse, `-- deep: TACTIC` solves. */
async function deep(t: Task): Promise<void> {
  const marker = /sorry\s*--\s*deep:\s*(.+)$/.exec(t.text);
  if (marker === null || firstError(t.content) !== null) return fill(t);
  const plan = (marker[1] as string).trim();
  const lines = t.content.split('\n');
  const decl = declarationAbove(lines, t.line - 1);
  const indent = /^\s*/.exec(t.text)?.[0] ?? '';
  emit({
    schema: 'run-persist-progress/v1',
    attempted_tools: ['deep-pass'],
    evidence: { queries: [`goal ${t.d.target}`] },
  });
  if (!(await custodyHolds(t))) return;
  if (plan === 'regress') {
    if (decl === null) return fill(t);
    // split the proof into two helper lemmas, each still open: one sorry becomes two
    const b = decl.binders === '' ? '' : ` ${decl.binders}`;
    const helpers = [
      `theorem ${decl.name}_step₁${b} : ${decl.goal} := by`,
      `${indent}sorry -- split off by the deep pass`,
      `theorem ${decl.name}_step₂${b} : ${decl.goal} := by`,
      `${indent}sorry -- split off by the deep pass`,
    ];
    const args = explicitNames(decl.binders);
    const call = (step: string) => [`${decl.name}_${step}`, ...args].join(' ');
    const next = [
      ...lines.slice(0, decl.index),
      ...helpers,
      ...lines.slice(decl.index, t.line - 1),
      `${indent}have := ${call('step₁')}`,
      `${indent}exact ${call('step₂')}`,
      ...lines.slice(t.line),
    ];
    const advanced = await commitEdit(t, next.join('\n'));
    emit({
      ...base(t.d),
      status: 'stuck',
      blocker_kind: 'proof',
      blocker_class: 'needs-helper-lemma',
      blocker_signature: blockerSignature(t.rel, t.line, 'needs helper lemma'),
      attempted_tools: ['deep-pass'],
      best_candidates: [{ candidate: `exact ${call('step₂')}`, outcome: 'fail: two helper lemmas open' }],
      failed_avenues: [`deep split of ${decl.name}: two helper lemmas, both still sorry`],
      evidence: {
        queries: [`goal ${t.d.target}`],
        top_candidates: [],
        attempts: [{ snippet: `split ${decl.name} into two helpers`, result: 'fail: 2 new sorry' }],
        goal_delta: `${t.d.target}: 1 goal → 2 helper goals`,
        diagnostic_delta: null,
      },
      files_changed: [t.file],
      file_baseline: advanced,
      next_action: 'stop',
      new_evidence_required_for_rerun: `a proof of the helper lemmas of ${decl.name}`,
    });
    return;
  }
  // an accepted deep pass: the goal is proved through a local helper over several lines
  const goal = decl?.goal ?? '_';
  const next = [
    ...lines.slice(0, t.line - 1),
    `${indent}have key : ${goal} := by`,
    `${indent}  ${plan}`,
    `${indent}exact key`,
    ...lines.slice(t.line),
  ];
  const advanced = await commitEdit(t, next.join('\n'));
  emit({
    ...base(t.d),
    attempted_tools: ['deep-pass'],
    best_candidates: [{ candidate: plan, outcome: 'pass' }],
    evidence: {
      queries: [`goal ${t.d.target}`],
      top_candidates: [plan],
      attempts: [{ snippet: `have key : ${goal} := by ${plan}`, result: 'pass' }],
      goal_delta: `${t.d.target}: sorry → helper key (${plan})`,
      diagnostic_delta: null,
    },
    files_changed: [t.file],
    file_baseline: advanced,
  });
}

/** The error line a repair dispatch names (`parameters.error`, or the cycle's `parameters.repair.error`). */
function namedErrorLine(d: Dispatch): number | null {
  const p = d.parameters as Record<string, unknown>;
  const e = p.error ?? (p.repair as Record<string, unknown> | undefined)?.error;
  if (typeof e === 'object' && e !== null && Number.isInteger((e as { line?: unknown }).line))
    return (e as { line: number }).line;
  if (typeof e === 'string') {
    const m = /^.*?:(\d+):/.exec(e);
    if (m) return Number(m[1]);
  }
  return null;
}

/** A line-number-anchored unified diff replacing line `at` (1-based) of `content` by `replacement`. */
function lineDiff(rel: string, content: string, at: number, replacement: string): string {
  const terminated = content.endsWith('\n');
  const lines = content.split('\n');
  if (terminated) lines.pop();
  const i = at - 1;
  const from = Math.max(0, i - 3);
  const to = Math.min(lines.length - 1, i + 3);
  const eof = '\\ No newline at end of file';
  const out = [
    `--- a/${rel}`,
    `+++ b/${rel}`,
    `@@ -${from + 1},${to - from + 1} +${from + 1},${to - from + 1} @@`,
  ];
  for (let k = from; k <= to; k++) {
    const last = k === lines.length - 1 && !terminated;
    if (k === i) {
      out.push(`-${lines[k]}`);
      if (last) out.push(eof);
      out.push(`+${replacement}`);
      if (last) out.push(eof);
    } else {
      out.push(` ${lines[k]}`);
      if (last) out.push(eof);
    }
  }
  return `${out.join('\n')}\n`;
}

/** The patch-only repair pass (`proof-repair`): a diff in artifacts, no edit, the parent's baseline. */
async function repair(t: Task): Promise<void> {
  if (!(await custodyHolds(t))) return;
  const lines = t.content.split('\n');
  const named = namedErrorLine(t.d);
  const fixable = (n: number) => REPAIR_RE.exec(lines[n - 1] ?? '');
  let at: number | null = named !== null && fixable(named) ? named : null;
  for (let n = 1; at === null && n <= lines.length; n++) if (fixable(n)) at = n;
  emit({ schema: 'run-persist-progress/v1', attempted_tools: ['marker-repair'] });
  if (at === null) {
    const err = firstError(t.content);
    stuckOn(
      t,
      'typeclass-coercion-elaboration',
      `build error: ${err?.message ?? 'unknown'}`,
      err?.line ?? t.line,
      `a known fix for the build error in ${t.rel}`,
    );
    return;
  }
  const m = fixable(at) as RegExpExecArray;
  const replacement = `${m[1] ?? ''}${(m[2] ?? '').trim()}`;
  const diff = lineDiff(t.rel, t.content, at, replacement);
  emit({
    ...base(t.d),
    attempted_tools: ['marker-repair'],
    best_candidates: [{ candidate: replacement.trim(), outcome: 'pass' }],
    evidence: {
      queries: [],
      top_candidates: [replacement.trim()],
      attempts: [{ snippet: replacement.trim(), result: 'pass' }],
      goal_delta: null,
      diagnostic_delta: `${t.rel}:${at}: ${(m[3] ?? '').trim()} → fixed by the diff`,
    },
    files_changed: [],
    file_baseline: t.d.file_baseline,
    artifacts: [{ kind: 'unified-diff', content: diff }],
  });
}

/** The golf pass: collapse a `:= by` / one-tactic-line proof of the declaration into one line. */
async function golf(t: Task): Promise<void> {
  const lines = t.content.split('\n');
  let at: number | null = null;
  for (let i = t.line - 1; i < lines.length; i++) {
    const l = lines[i] ?? '';
    if (i > t.line - 1 && /^\S/.test(l)) break; // the next top-level item
    const next = lines[i + 1] ?? '';
    const after = lines[i + 2];
    const lastOfDecl = after === undefined || after.trim() === '' || /^\S/.test(after);
    if (/:=\s*by\s*$/.test(l) && /^\s+\S/.test(next) && !next.includes('--') && lastOfDecl) {
      at = i;
      break;
    }
  }
  if (at === null) {
    emit({ ...base(t.d), attempted_tools: ['golf-collapse'], files_changed: [] });
    return;
  }
  if (!(await custodyHolds(t))) return;
  const tactic = (lines[at + 1] ?? '').trim();
  lines.splice(at, 2, `${(lines[at] ?? '').replace(/\s*$/, '')} ${tactic}`);
  const advanced = await commitEdit(t, lines.join('\n'));
  emit({
    ...base(t.d),
    attempted_tools: ['golf-collapse'],
    best_candidates: [{ candidate: `by ${tactic}`, outcome: 'pass' }],
    files_changed: [t.file],
    file_baseline: advanced,
  });
}

async function main(): Promise<void> {
  const d = entryCheck(readStdin());
  if (d === undefined) return;
  const root = process.env.HANDOFF_PROJECT_ROOT ?? process.cwd();
  const m = /^(.*):(\d+)$/.exec(d.target);
  if (!m) return stop(d, 'protocol-error', 'target is not file:line');
  // the target's file must be one of the owned files (never edit anything else)
  const wanted = resolve(root, m[1] as string);
  const file = d.owned_files.find((f) => f === wanted);
  if (file === undefined) return stop(d, 'protocol-error', `the target's file ${m[1]} is not an owned file`);
  const rel = relative(root, file).split(sep).join('/');
  const line = Number(m[2]);
  const content = readFileSync(file, 'utf8');
  const text = content.split('\n')[line - 1] ?? '';
  emit({
    schema: 'run-persist-progress/v1',
    attempted_tools: ['marker-hint'],
    evidence: { queries: [`goal ${d.target}`] },
  });
  const t: Task = { d, root, file, rel, line, text, content };
  if (d.mode === 'golf') return golf(t);
  if (d.worker === 'proof-repair') return repair(t);
  if (d.worker === 'sorry-filler-deep') return deep(t);
  return fill(t);
}

main().catch((e: unknown) => {
  process.stderr.write(`solver-worker: ${String(e)}\n`);
  process.exitCode = 1;
});
