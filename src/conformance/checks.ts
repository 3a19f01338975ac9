/**
 * The conformance checks (layer 1, pure): given what was sent, what the worker process did, which
 * paths changed on disk, what the harness observed of its containment (processes left behind, git
 * control files, the run store, owned-file types, declaration headers) and (for valid cases) the
 * custody check of the returned baseline, the findings of one case. A failed gate check (spawn,
 * timeout, framing, handoff-valid) ends the case: the checks after it have nothing to inspect.
 */
import { canonicalJson } from '../canonical/index.js';
import { type Dispatch, type Handoff, validateHandoff } from '../contract/index.js';
import { searchViolation } from '../cycle/search-budget.js';
import { searchGrantOf } from '../delegate/search-grant.js';
import { describeViolation } from '../fence/describe.js';
import { fenceCheck } from '../fence/fence-check.js';
import type { HeaderSnapshot } from '../fence/snapshot.js';
import { ProgressSchema } from '../persist/progress.js';
import type { ContainedResult } from '../process/index.js';
import { parseWorkerOutput } from '../runtime/worker-framing.js';
import { safeValidate } from '../validation/index.js';
import type { CheckId, Defect, Finding } from './report-schema.js';
import { type RoleObservation, roleFindings } from './role-checks.js';
import { discardedDetail, NO_DISCARDS, type SandboxDiscards } from './sandbox-discards.js';
import { unsafeStrings } from './terminal-safety.js';

/** The custody check of a returned baseline, reduced to what the findings need. */
export interface ReturnedBaselineCheck {
  readonly result: 'match' | 'drift' | 'error';
  /** `path: status` of every entry that is not unchanged, or the refusal message. */
  readonly detail: string;
}

/**
 * What the harness observed around the worker process, beyond its output and the project tree:
 * the "untrusted workers" threat model (docs/worker-protocol.md) as observations.
 */
export interface ContainmentObservation {
  /**
   * Processes the session sweep missed that still ran in the project (cwd or an open file inside
   * it) after the worker exited; the harness killed them.
   */
  readonly lingering: number;
  /** Git control files created, removed or changed (absolute paths; the workspace watch's git zone). */
  readonly gitChanged: readonly string[];
  /** Run-store files created, removed or changed (paths relative to the store root). */
  readonly storeChanged: readonly string[];
  /** `ownedTypeViolation` after the worker: null when every owned path is a regular file (or absent) at its own location. */
  readonly ownedSwap: string | null;
  /** Declaration headers of the owned files before dispatch. */
  readonly headersBefore: HeaderSnapshot;
  /** The same files' headers after the worker (only read, and only judged, when `ownedSwap` is null). */
  readonly headersAfter: HeaderSnapshot;
  /**
   * The worker ran in the sandbox: what it wrote outside its owned files, discarded (nothing of it
   * reached the host), sorted by the check that names it. Absent: not sandboxed.
   */
  readonly discarded?: SandboxDiscards;
}

/**
 * How an in-process worker's call ended and what its answer was, as the harness observed it
 * (src/delegate's `runWorker` calls it; the answer is read once on arrival with `detachAnswer`).
 */
export interface InProcessAnswer {
  /** `returned`: it returned or resolved to a value; `threw`: it threw or rejected; `timed-out`. */
  readonly outcome: 'returned' | 'threw' | 'timed-out';
  /** What it threw (described safely: "the worker threw: …"), or the timeout; '' when it returned. */
  readonly detail: string;
  /** The answer read once into plain JSON data the moment it arrived; undefined when unreadable. */
  readonly value: unknown;
  /** Why the answer could not be read as JSON data (a cycle, a function, a trap that throws…), or null. */
  readonly unreadable: string | null;
  /** Why the answer is not plain data (a Proxy, a getter, a class instance…), or null when it is. */
  readonly notPlain: string | null;
  /** How the answer changed after the worker returned it (read again later), or null when it did not. */
  readonly changedLater: string | null;
}

/** Everything {@link evaluateCase} inspects (a command's process, or an in-process worker's answer). */
export type CaseObservation = CaseObservationBase &
  (
    | { readonly process: ContainedResult; readonly answer?: never }
    | { readonly answer: InProcessAnswer; readonly process?: never }
  );

/** The members of a {@link CaseObservation} common to both kinds of worker. */
export interface CaseObservationBase {
  readonly case_id: string;
  readonly kind: 'valid' | 'malformed';
  readonly defect?: Defect;
  /** The dispatch sent (valid cases) or the valid dispatch it was damaged from (malformed cases). */
  readonly dispatch: Dispatch;
  readonly timeoutMs: number;
  /** Absolute paths created, removed or modified under the project (but `.git` and `.handoff`) while the worker ran. */
  readonly changed: readonly string[];
  readonly containment: ContainmentObservation;
  /** Custody check of the handoff's file_baseline (valid cases with a valid handoff only). */
  readonly baselineCheck?: ReturnedBaselineCheck;
  /** A case sent in the repair or falsify role: what its role checks judge (valid cases only). */
  readonly role?: RoleObservation;
}

/** The outcome of one case. */
export interface CaseEvaluation {
  readonly findings: Finding[];
  /** The valid handoff, when the worker returned one. */
  readonly handoff: Handoff | null;
}

const list = (xs: readonly string[], max = 3, sep = ', '): string =>
  xs.length <= max ? xs.join(sep) : `${xs.slice(0, max).join(sep)} and ${xs.length - max} more`;

function tail(text: string): string {
  const t = text.trim().split('\n').slice(-2).join(' | ');
  return t === '' ? '' : `; stderr: ${t.slice(0, 200)}`;
}

/**
 * Whether a valid handoff would need the custody check of its baseline (valid cases only).
 *
 * @example
 * ```ts
 * if (needsBaselineCheck('valid', handoff)) check = await checkBaseline(handoff.file_baseline);
 * ```
 */
export function needsBaselineCheck(kind: 'valid' | 'malformed', h: Handoff | null): boolean {
  return kind === 'valid' && h !== null && h.file_baseline !== null;
}

/**
 * Parses and validates the worker's stdout: the handoff when framing and validation pass.
 *
 * @example
 * ```ts
 * const h = handoffOf(result.stdout); // Handoff | null
 * ```
 */
export function handoffOf(stdout: string): Handoff | null {
  const f = parseWorkerOutput(stdout);
  if (!f.ok) return null;
  const v = validateHandoff(f.handoff);
  return v.ok ? v.value : null;
}

/**
 * Applies every check that fits the case and returns the findings in {@link CHECKS} order.
 *
 * @example
 * ```ts
 * const { findings } = evaluateCase({ case_id: 'case-01', kind: 'valid', dispatch, process, timeoutMs, changed: [], containment });
 * findings.every((f) => f.passed);
 * ```
 */
export function evaluateCase(o: CaseObservation): CaseEvaluation {
  const findings: Finding[] = [];
  const add = (check: CheckId, passed: boolean, detail: string): boolean => {
    findings.push({
      case_id: o.case_id,
      kind: o.kind,
      ...(o.defect === undefined ? {} : { defect: o.defect }),
      check,
      passed,
      detail,
    });
    return passed;
  };
  const done = (handoff: Handoff | null = null): CaseEvaluation => ({ findings, handoff });
  const p = o.process;
  const a = o.answer;
  if (p !== undefined) {
    if (
      !add(
        'spawn',
        p.spawnError === null,
        p.spawnError === null ? 'started' : `cannot start: ${p.spawnError}`,
      )
    )
      return done();
  }
  const timedOut = p !== undefined ? p.timedOut : a?.outcome === 'timed-out';
  if (
    !add(
      'timeout',
      !timedOut,
      timedOut ? `killed after exceeding ${o.timeoutMs} ms` : `exited within ${o.timeoutMs} ms`,
    )
  )
    return done();

  const c = o.containment;
  const sb = c.discarded ?? NO_DISCARDS;
  if (p !== undefined) {
    const lingered: string[] = [];
    if (p.swept > 0)
      lingered.push(`${p.swept} process(es) still ran after the worker exited (killed by the session sweep)`);
    if (p.pipesHeld)
      lingered.push('a descendant held stdout/stderr open after the worker exited (the pipes were cut)');
    if (c.lingering > 0)
      lingered.push(
        `${c.lingering} process(es) outside the worker's session still ran in the project (killed by the harness)`,
      );
    add(
      'no-lingering-process',
      lingered.length === 0,
      lingered.length === 0 ? 'nothing the worker started outlived it' : lingered.join('; '),
    );
  }
  add(
    'git-unchanged',
    c.gitChanged.length === 0 && sb.git.length === 0,
    c.gitChanged.length > 0
      ? `git control files changed: ${list(c.gitChanged)}`
      : sb.git.length > 0
        ? discardedDetail(sb.git)
        : 'no git control file changed',
  );
  add(
    'store-untouched',
    c.storeChanged.length === 0 && sb.store.length === 0,
    c.storeChanged.length > 0
      ? `the worker wrote into the run store: ${list(c.storeChanged)}`
      : sb.store.length > 0
        ? discardedDetail(sb.store)
        : 'the run store is untouched',
  );
  add(
    'no-symlink-swap',
    c.ownedSwap === null && sb.ownedSwap.length === 0,
    c.ownedSwap ??
      (sb.ownedSwap.length > 0
        ? discardedDetail(sb.ownedSwap)
        : 'every owned path is a regular file (or absent) at its own location'),
  );
  if (c.ownedSwap === null) {
    const breaches = fenceCheck(c.headersBefore, c.headersAfter).flatMap(({ file, violations }) =>
      violations.map((v) => describeViolation(file, v)),
    );
    let headers = 0;
    for (const x of c.headersBefore.values()) if (x?.ok) headers += x.headers.length;
    add(
      'headers-unchanged',
      breaches.length === 0,
      breaches.length === 0
        ? `${headers} declaration header(s) of the owned files intact`
        : list(breaches, 3, '; '),
    );
  }

  const answered = p !== undefined ? commandAnswer(p, o, add) : inProcessAnswer(a as InProcessAnswer, add);
  if (answered === null) return done();
  const { value, progress } = answered;

  const v = validateHandoff(value);
  if (!v.ok) {
    add(
      'handoff-valid',
      false,
      `invalid handoff: ${list(v.issues.map((i) => `${i.path || '(root)'} ${i.code}`))}`,
    );
    return done();
  }
  const h = v.value;
  add(
    'handoff-valid',
    true,
    `valid handoff: status ${h.status}${h.stop_reason ? ` (${h.stop_reason})` : ''}`,
  );
  const unsafe = [
    ...progress.flatMap((line, i) => unsafeStrings(line, `progress[${i}]`)),
    ...unsafeStrings(value, 'handoff'),
  ];
  add(
    'terminal-safe',
    unsafe.length === 0,
    unsafe.length === 0
      ? 'no terminal control characters in the handoff or progress lines'
      : `terminal control characters in ${list(unsafe.map((u) => `${u.path} (${u.codePoint})`))}`,
  );

  if (o.kind === 'malformed') {
    add(
      'protocol-error',
      h.stop_reason === 'protocol-error' && h.next_action === 'stop',
      h.stop_reason === 'protocol-error' && h.next_action === 'stop'
        ? `protocol-error, next_action stop: ${h.stop_detail ?? ''}`.slice(0, 200)
        : `expected stopped/protocol-error with next_action stop, got status ${h.status}, stop_reason ${h.stop_reason}, next_action ${h.next_action}`,
    );
    add(
      'no-file-changed',
      o.changed.length === 0 && sb.other.length === 0,
      o.changed.length > 0
        ? `changed: ${list(o.changed)}`
        : sb.other.length > 0
          ? discardedDetail(sb.other)
          : 'no file changed',
    );
    return done(h);
  }

  const d = o.dispatch;
  add(
    'valid-accepted',
    h.stop_reason !== 'protocol-error',
    h.stop_reason === 'protocol-error'
      ? `a valid dispatch was refused as malformed: ${h.stop_detail ?? ''}`.slice(0, 240)
      : 'a valid dispatch was not refused as malformed',
  );
  const wrongIdentity = (['target', 'scope', 'mode'] as const).filter((k) => h[k] !== d[k]);
  add(
    'identity-echoed',
    wrongIdentity.length === 0,
    wrongIdentity.length === 0
      ? 'target, scope and mode echoed'
      : wrongIdentity
          .map((k) => `${k}: sent ${JSON.stringify(d[k])}, got ${JSON.stringify(h[k])}`)
          .join('; '),
  );
  const owned = new Set(d.owned_files);
  const returned = new Set(h.files_owned);
  const sameOwned =
    h.files_owned.length === d.owned_files.length &&
    returned.size === owned.size &&
    [...owned].every((f) => returned.has(f));
  add(
    'files-owned',
    sameOwned,
    sameOwned
      ? 'files_owned equals owned_files'
      : `files_owned ${JSON.stringify(h.files_owned)} != owned_files ${JSON.stringify(d.owned_files)}`,
  );
  const foreign = h.files_changed.filter((f) => !owned.has(f));
  add(
    'files-changed-owned',
    foreign.length === 0,
    foreign.length === 0
      ? `files_changed (${h.files_changed.length}) within owned_files`
      : `files_changed outside owned_files: ${list(foreign)}`,
  );
  const touched = o.changed.filter((f) => !owned.has(f));
  add(
    'unowned-unchanged',
    touched.length === 0 && sb.other.length === 0,
    touched.length > 0
      ? `changed outside the owned set: ${list(touched)}`
      : sb.other.length > 0
        ? discardedDetail(sb.other)
        : 'no file outside the owned set changed',
  );
  const uncovered =
    h.file_baseline === null
      ? d.owned_files
      : d.owned_files.filter((f) => !h.file_baseline?.files.some((e) => e.path === f));
  add(
    'baseline-covers-owned',
    uncovered.length === 0,
    uncovered.length === 0 ? 'file_baseline covers every owned file' : `not covered: ${list(uncovered)}`,
  );
  const bc = o.baselineCheck;
  add(
    'baseline-matches-disk',
    bc?.result === 'match',
    bc === undefined
      ? 'no file_baseline returned'
      : bc.result === 'match'
        ? 'file_baseline matches the disk'
        : `file_baseline ${bc.result}: ${bc.detail}`,
  );
  if (h.files_changed.length === 0) {
    const same =
      h.file_baseline !== null && canonicalJson(h.file_baseline) === canonicalJson(d.file_baseline);
    add(
      'patch-only-baseline',
      same,
      same
        ? "no files changed and the parent's baseline is returned unchanged"
        : "files_changed is empty but file_baseline differs from the dispatch's baseline",
    );
  }
  if (h.files_changed.length > 0 && h.file_baseline !== null) {
    const prior = new Map(d.file_baseline.files.map((e) => [e.path, canonicalJson(e)]));
    const reported = new Set(h.files_changed);
    const silent = h.file_baseline.files
      .filter((e) => prior.get(e.path) !== canonicalJson(e) && !reported.has(e.path))
      .map((e) => e.path);
    add(
      'baseline-advances-reported',
      silent.length === 0,
      silent.length === 0
        ? 'only entries named in files_changed were advanced'
        : `baseline advances files not in files_changed: ${list(silent)}`,
    );
  }
  const grant = searchGrantOf(d);
  if (grant !== null) {
    const over = searchViolation(h, grant);
    add(
      'search-budget',
      over === null,
      over === null
        ? `${h.evidence.queries.length} search(es) within the granted search-budget:${grant.budget}`
        : `search budget: ${over}`,
    );
  }
  if (o.role !== undefined) {
    for (const f of roleFindings(o.role, h, d.owned_files, o.changed)) add(f.check, f.passed, f.detail);
  }
  return done(h);
}

type AddFinding = (check: CheckId, passed: boolean, detail: string) => boolean;

/** The answer to judge: the handoff as JSON data, and the progress lines (a command's only). */
interface Answered {
  readonly value: unknown;
  readonly progress: readonly unknown[];
}

/** A command's stdout: `framing` (gate) and `progress-valid`. */
function commandAnswer(p: ContainedResult, o: CaseObservationBase, add: AddFinding): Answered | null {
  const framed = parseWorkerOutput(p.stdout);
  const exit = p.code === null ? `signal ${p.signal ?? '?'}` : `exit ${p.code}`;
  if (p.truncated) {
    add('framing', false, `output exceeded the size limit (${exit})`);
    return null;
  }
  if (!framed.ok) {
    add('framing', false, `${framed.defect} (${exit}${tail(p.stderr)})`);
    return null;
  }
  add('framing', true, `${framed.progress.length} progress line(s) and one handoff (${exit})`);

  const badProgress: string[] = [];
  const ownedSet = new Set(o.dispatch.owned_files);
  framed.progress.forEach((line, i) => {
    const r = safeValidate(ProgressSchema, line);
    if (!r.ok) {
      const first = r.issues[0];
      badProgress.push(`line ${i + 1}: ${first ? `${first.path || '(root)'} ${first.code}` : 'invalid'}`);
    } else if (o.kind === 'valid') {
      const foreign = (r.value.files_changed ?? []).filter((f) => !ownedSet.has(f));
      if (foreign.length > 0)
        badProgress.push(`line ${i + 1}: files_changed outside owned_files ${list(foreign)}`);
    }
  });
  add(
    'progress-valid',
    badProgress.length === 0,
    badProgress.length === 0
      ? `${framed.progress.length} valid run-persist-progress/v1 line(s)`
      : `invalid progress: ${list(badProgress)}`,
  );
  return { value: framed.handoff, progress: framed.progress };
}

/**
 * An in-process worker's answer: `returned` (gate: it did not throw or reject), `plain-answer`
 * and `answer-stable` (only when the answer is plain data: a getter or a Proxy changes between
 * reads by design, one finding is enough). An answer that cannot be read as JSON data fails
 * `handoff-valid` (gate).
 */
function inProcessAnswer(a: InProcessAnswer, add: AddFinding): Answered | null {
  if (
    !add(
      'returned',
      a.outcome === 'returned',
      a.outcome === 'returned' ? 'the worker returned an answer' : a.detail,
    )
  )
    return null;
  add(
    'plain-answer',
    a.notPlain === null,
    a.notPlain ?? 'the answer is plain data (no Proxy, getter or class instance)',
  );
  if (a.notPlain === null) {
    add(
      'answer-stable',
      a.changedLater === null,
      a.changedLater === null
        ? 'the answer did not change after it was returned'
        : `the worker changed its answer after returning it: ${a.changedLater}`,
    );
  }
  if (a.unreadable !== null) {
    add('handoff-valid', false, `invalid handoff record: ${a.unreadable}`);
    return null;
  }
  return { value: a.value, progress: [] };
}
