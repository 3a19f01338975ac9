/**
 * The golf pass of the synthesis loop's review router (seed 002 § Review Router: "golf — a
 * golf-mode worker pass over the proved declaration"): one worker task in the `golf` role
 * (`WorkRole`), which the dispatch builder turns into a run-contract/v1 dispatch with
 * `mode: 'golf'`, `worker: 'proof-golfer'` and the contract's proof-golfer parameters (the
 * session's `search_mode`), targeting the proved declaration's header line (`file:line`) and
 * owning exactly the target file, through the same custody machinery as every worker
 * (`createDelegatingWorker`: fresh baseline, handoff validation and echo, workspace watch,
 * statement fence, and the golf role's own check — only the declaration's proof may change, no
 * `sorry` may come back). The golfed edit is then accepted only when the same diagnostics the
 * loop uses show no new error and no new `sorry` on the file; otherwise the file's bytes are put
 * back exactly and the golf is declined. An accepted golf is committed (`golf: <declaration>`,
 * exactly the target file) unless commits are off.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { recordBaseline } from '../baseline/index.js';
import type { Dispatch, Handoff } from '../contract/index.js';
import { EMPTY_LEDGER } from '../cycle/search-budget.js';
import type { TargetInfo, WorkerInput } from '../cycle/types.js';
import type { PinnedRepository } from '../git/index.js';
import type { SandboxNetwork } from '../sandbox/index.js';
import { declarationLines } from '../synthesis/declarations.js';
import { createDelegatingWorker } from './delegating-worker.js';
import { GOLFABLE_PATTERNS, type GolfSearchMode } from './dispatch-builder.js';
import { commitExact } from './git-checkpointer.js';
import type { DiagnosticsPort } from './ports.js';
import { type InProcessWorker, inProcessTransport, subprocessTransport } from './transports.js';

export { GOLFABLE_PATTERNS };

/**
 * The knowledge searches a golf dispatch may make per `search_mode` (`off` none; the tracker's
 * default per-cycle budget for `full`).
 *
 * @example
 * ```ts
 * GOLF_SEARCH_BUDGET.quick; // 1
 * ```
 */
export const GOLF_SEARCH_BUDGET: Readonly<Record<GolfSearchMode, number>> = { off: 0, quick: 1, full: 3 };

/** Options of {@link runGolfPass}. */
export interface GolfPassOptions {
  /** The project root (real path). */
  readonly projectRoot: string;
  /** The target file, project-relative (forward slashes). */
  readonly rel: string;
  /** The target file, absolute. */
  readonly abs: string;
  /** The claim's declarations (the golf targets the first proved one). */
  readonly declarations: readonly string[];
  readonly worker: { readonly argv: readonly string[] } | { readonly inProcess: InProcessWorker };
  /** The loop's file diagnostics (errors and open `sorry` targets of the target file). */
  readonly diagnostics: DiagnosticsPort;
  readonly scratch: string;
  /** Commit an accepted golf (`golf: <declaration>`)? */
  readonly commit: boolean;
  /** The repository pinned before the session's first dispatch (default: found at the commit). */
  readonly repo?: PinnedRepository;
  readonly timeoutMs: number;
  /** The proof-golfer's `search_mode` (the session's `--golf-search`; default `off`). */
  readonly searchMode?: GolfSearchMode;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Run a command golf worker in the sandbox (src/sandbox; the session's decision and network
   * policy, as for its inner runs' worker): its writes land in a private layer, only the target
   * file's bytes are taken, everything else is discarded and refuses the golf (named). Null or
   * absent: contained, under the workspace watch. An in-process worker is never sandboxed.
   */
  readonly sandbox?: { readonly network: SandboxNetwork } | null;
  /** Observes the golf dispatch exactly as sent (journal, tests). */
  readonly onDispatch?: (d: Dispatch) => void | Promise<void>;
  /** Observes the golf worker's validated handoff (journal), before the diagnostics judge it. */
  readonly onHandoff?: (h: Handoff, d: Dispatch) => void | Promise<void>;
  readonly signal?: AbortSignal;
}

/** How a golf pass ended. */
export interface GolfPassResult {
  /** `accepted` (kept), `declined` (restored), `refused` (custody/fence, restored), `skipped` (nothing proved). */
  readonly outcome: 'accepted' | 'declined' | 'refused' | 'skipped';
  readonly declaration: string | null;
  readonly detail: string;
  /** The dispatch sent (null when skipped or refused before sending). */
  readonly dispatch: Dispatch | null;
  /** The golf worker's validated handoff (null when none was accepted by custody). */
  readonly handoff: Handoff | null;
  readonly commit: string | null;
  /** Whether the target file is clean afterwards (no errors, no open `sorry` in the declarations). */
  readonly clean: boolean;
}

interface FileState {
  readonly errors: readonly string[];
  readonly targets: readonly TargetInfo[];
}

const message = (e: string): string => e.replace(/^[^:]*:\d+:\s*/, '');

/**
 * The errors of `after` not in `before` (compared without their line numbers, as a multiset).
 *
 * @example
 * ```ts
 * newErrors(['A.lean:3: bad'], ['A.lean:2: bad', 'A.lean:4: worse']); // ['A.lean:4: worse']
 * ```
 */
export function newErrors(before: readonly string[], after: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const e of before) left.set(message(e), (left.get(message(e)) ?? 0) + 1);
  const out: string[] = [];
  for (const e of after) {
    const n = left.get(message(e)) ?? 0;
    if (n > 0) left.set(message(e), n - 1);
    else out.push(e);
  }
  return out;
}

/**
 * The first declaration (in `declarations` order) present in `text` with no error and no open
 * target inside its lines, with its header line; null when none is proved.
 *
 * @example
 * ```ts
 * provedDeclaration('theorem a : True := by\n  trivial\n', ['a'], { errors: [], targets: [] });
 * // { name: 'a', line: 1 }
 * ```
 */
export function provedDeclaration(
  text: string,
  declarations: readonly string[],
  state: FileState,
): { readonly name: string; readonly line: number } | null {
  for (const name of declarations) {
    const r = declarationLines(text, name);
    if (r === null) continue;
    const inside = (line: number) => line >= r.start && line <= r.end;
    const open = state.targets.some((t) => inside(t.line));
    const broken = state.errors.some((e) => {
      const m = /^[^:]*:(\d+):/.exec(e);
      return m !== null && inside(Number(m[1]));
    });
    if (!open && !broken) return { name, line: r.start };
  }
  return null;
}

async function stateOf(o: GolfPassOptions): Promise<FileState> {
  const d = await o.diagnostics.diagnose({ question: 'edit', tier: 'file-fast', files: [o.rel] } as never);
  return { errors: [...d.errors], targets: [...d.targets] };
}

/**
 * Runs one golf pass over the first proved declaration of the claim.
 *
 * @example
 * ```ts
 * const r = await runGolfPass({ projectRoot, rel: 'Paper.lean', abs, declarations: ['two_eq'],
 *   worker: { argv: ['node', 'solver-worker.js'] }, diagnostics: marker, scratch, commit: true, timeoutMs: 60_000 });
 * r.outcome; // 'accepted' | 'declined' | 'refused' | 'skipped'
 * ```
 */
export async function runGolfPass(o: GolfPassOptions): Promise<GolfPassResult> {
  const original = await readFile(o.abs);
  const before = await stateOf(o);
  const text = original.toString('utf8');
  const target = provedDeclaration(text, o.declarations, before);
  const cleanNow = before.errors.length === 0 && before.targets.length === 0;
  if (target === null)
    return {
      outcome: 'skipped',
      declaration: null,
      detail: 'no proved declaration to golf',
      dispatch: null,
      handoff: null,
      commit: null,
      clean: cleanNow,
    };
  const id = `${o.rel}:${target.line}`;
  let sent: Dispatch | null = null;
  let answered: Handoff | null = null;
  const searchMode = o.searchMode ?? 'off';
  const inner =
    'argv' in o.worker
      ? subprocessTransport(o.worker.argv, {
          cwd: o.projectRoot,
          timeoutMs: o.timeoutMs,
          ...(o.env === undefined ? {} : { env: o.env }),
          sandbox: o.sandbox ?? null,
        })
      : inProcessTransport(o.worker.inProcess);
  const worker = createDelegatingWorker({
    projectRoot: o.projectRoot,
    transport: inner,
    scratch: o.scratch,
    onDispatch: async (d) => {
      sent = d;
      await o.onDispatch?.(d);
    },
    onHandoff: async (h, d) => {
      answered = h;
      await o.onHandoff?.(h, d);
    },
  });
  const input: WorkerInput = {
    // the golf role: the dispatch builder sends proof-golfer in the contract's golf mode, and the
    // delegating worker lets it change only this declaration's proof
    role: 'golf',
    parameters: { search_mode: searchMode, golfable_patterns: [...GOLFABLE_PATTERNS] },
    target: { id, file: o.rel, line: target.line, goal: text.split('\n')[target.line - 1] ?? '' },
    ownedFiles: [o.rel],
    cycle: 1,
    mode: 'autoprove',
    priorBlocker: null,
    evidenceDelta: [],
    priorFailure: null,
    searchResults: [],
    searchBudget: GOLF_SEARCH_BUDGET[searchMode],
    searchLedger: EMPTY_LEDGER,
    trivial: false,
    inline: false,
    budget: { max_cycles: 1, max_stuck_cycles: 1, runtime: null },
    baseline: await recordBaseline([o.abs]),
  };
  const out = await worker.work(input, o.signal ?? new AbortController().signal);
  const restore = async () => {
    const now = await readFile(o.abs).catch(() => null);
    if (now === null || !now.equals(original)) await writeFile(o.abs, original);
  };
  const end = (outcome: GolfPassResult['outcome'], detail: string, commit: string | null = null) => ({
    outcome,
    declaration: target.name,
    detail,
    dispatch: sent,
    handoff: answered,
    commit,
  });
  if (out.kind !== 'handoff') {
    // the delegating worker restored the owned bytes; make sure of it
    await restore();
    return { ...end('refused', `${out.kind}: ${out.detail}`), clean: cleanNow };
  }
  const after = await stateOf(o);
  const added = newErrors(before.errors, after.errors);
  const moreSorry = after.targets.length > before.targets.length;
  if (added.length > 0 || moreSorry) {
    await restore();
    const why = [
      added.length > 0 ? `new error(s): ${added.join('; ')}` : '',
      moreSorry ? `new sorry (${before.targets.length} → ${after.targets.length})` : '',
    ]
      .filter((s) => s !== '')
      .join('; ');
    return { ...end('declined', `golf declined (${why}); ${o.rel} restored`), clean: cleanNow };
  }
  const golfed = await readFile(o.abs);
  const clean = after.errors.length === 0 && after.targets.length === 0;
  if (golfed.equals(original))
    return { ...end('accepted', `golf of ${target.name}: nothing to shorten`), clean };
  if (!o.commit) return { ...end('accepted', `golf of ${target.name} accepted (not committed)`), clean };
  const commit = await commitExact(
    o.repo ?? o.projectRoot,
    [{ rel: o.rel, file: { bytes: golfed, mode: (await stat(o.abs)).mode & 0o111 ? 0o755 : 0o644 } }],
    `golf: ${target.name}`,
  );
  return { ...end('accepted', `golf of ${target.name} accepted and committed`, commit), clean };
}
