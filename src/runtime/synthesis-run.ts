/**
 * The host of the synthesis outer loop (layer 3): resolves the session's options (statement
 * policy with its startup warning, commit policy, per-claim and session budgets), provides the
 * actors of `machines/synthesis.ts` — claim extraction, the declaration-present check, the
 * drafter (subprocess or in-process), the human (guided mode), file assembly into the target,
 * validation with the marker diagnostics, the `draft:` committer (git plumbing: exactly the
 * target file, nothing else staged), the inner cycle (`runProject` on the claim's declarations)
 * and the golf pass — and runs the machine to its report. Provenance lives in the machine's
 * context for the session and nowhere else (a restart starts empty). With `journal`, the claims,
 * drafts and routes are journaled as notes of one session run, each citing the ones before it.
 */
import { mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { createActor, fromPromise, toPromise } from 'xstate';
import type { MachineInspector } from '../../machines/inspector.js';
import { synthesisMachine } from '../../machines/synthesis.js';
import { recordBaseline } from '../baseline/index.js';
import { type Dispatch, type Handoff, handoffFor } from '../contract/index.js';
import type { DiagnosticsOutput, TargetInfo } from '../cycle/types.js';
import { HandoffError } from '../errors/index.js';
import { pinRepository } from '../git/index.js';
import { memoryStateStore, PersistController, type PersistResult } from '../persist/index.js';
import { type DomainProfile, leanProfile } from '../profile/index.js';
import { probeSandbox, type SandboxMode, type SandboxNetwork, sandboxDecision } from '../sandbox/index.js';
import type { Store } from '../store/index.js';
import { assembleDraft } from '../synthesis/assembly.js';
import { extractClaims, nameFromTitle } from '../synthesis/claims/index.js';
import { commandDrafter } from '../synthesis/command-drafter.js';
import { existingDeclaration, headNames } from '../synthesis/declarations.js';
import type { DraftRequest } from '../synthesis/draft-schema.js';
import type { DrafterPort } from '../synthesis/drafter-port.js';
import {
  declarationLines,
  declarationNameAt,
  type LoopClaim,
  withoutDeclarations,
} from '../synthesis/loop/index.js';
import type {
  ApproveInput,
  AssembleInput,
  AssembleOutput,
  CommitInput,
  CommitOutput,
  DraftCommit,
  DraftOutput,
  ExtractOutput,
  GolfInput,
  GolfOutput,
  InspectInput,
  InspectOutput,
  ProveInput,
  ProveOutput,
  SynthesisInput,
  SynthesisOutput,
  ValidateOutput,
} from '../synthesis/loop/types.js';
import { adjacentName, resolveStatementPolicy } from '../synthesis/statement-policy.js';
import { initTracker } from '../tracker/counters.js';
import { parseDuration } from '../tracker/duration.js';
import { buildRunDispatch, GOLF_SEARCH_MODES, type GolfSearchMode } from './dispatch-builder.js';
import { commitExact } from './git-checkpointer.js';
import { runGolfPass } from './golf-pass.js';
import { createMarkerDiagnostics, splitTarget } from './marker-diagnostics.js';
import { openRunStore } from './persist-recorder.js';
import type { DiagnosticsPort, ReviewerPort, Unstamped } from './ports.js';
import { runProject } from './project-run.js';
import type { InProcessWorker } from './transports.js';

/** The claim queue's source: G's extractor or any function with its shape. */
export type ClaimExtractor = (
  file: string,
  select: string | undefined,
) => Promise<
  | {
      readonly ok: true;
      readonly claims: readonly {
        readonly id: string;
        readonly index: number;
        readonly text: string;
        readonly title?: string | null;
        readonly name: string | null;
        readonly kind: string;
      }[];
    }
  | { readonly ok: false; readonly error: string }
>;

/** A journal of the session's claims, drafts and routes (notes with cites). */
export interface SynthesisJournal {
  /** Starts the session run; resolves to its run id. */
  start(first: Dispatch): Promise<string>;
  /** Appends one note; resolves to its cite `<run_id>#<seq>`. */
  note(
    kind: 'source-note' | 'candidate' | 'blocker-diagnosis',
    text: string,
    lean: string | null,
  ): Promise<string>;
  /** Records a worker dispatch of the session (the golf pass) as a dispatch event; resolves to its cite. */
  dispatch?(d: Dispatch): Promise<string>;
  /** Records that dispatch's worker handoff as a handoff event; resolves to its cite. */
  handoff?(h: Handoff): Promise<string>;
  /** Stores the session's final handoff; resolves to its cite. */
  finish(final: Handoff): Promise<string | null>;
}

/** Options of {@link runSynthesis}. */
export interface SynthesisRunOptions {
  readonly projectRoot: string;
  /** `formalize` (guided: the human approves each draft) or `autoformalize`. */
  readonly mode: 'guided' | 'auto';
  /** The claim source (`--source`); absent: scope-backed (`--formalize restage`). */
  readonly source?: string | null;
  /** `--formalize`: `auto` (needs a source) or `restage` (scope-backed, no source). */
  readonly formalize?: 'auto' | 'restage';
  readonly claimSelect?: string;
  /** The Lean file drafts are assembled into (relative to the project, or absolute inside it). */
  readonly target: string;
  readonly drafter?: { readonly argv: readonly string[] } | { readonly port: DrafterPort };
  readonly worker: { readonly argv: readonly string[] } | { readonly inProcess: InProcessWorker };
  readonly reviewer?: ReviewerPort;
  readonly reviewerArgv?: readonly string[];
  /** `--statement-policy` as given (undefined: the formalize default, with a warning). */
  readonly statementPolicy?: string;
  /** `--commit` as given (default auto; `ask` is coerced to auto in autoformalize). */
  readonly commit?: string;
  readonly maxCycles?: string | number;
  readonly maxStuck?: string | number;
  readonly maxRuntime?: string;
  /** The golf pass's proof-golfer `search_mode` (`--golf-search`; default `off`). */
  readonly golfSearch?: string;
  /** Redrafts allowed per claim (default 1). */
  readonly maxRedrafts?: number;
  /** The claim extractor (default: `extractClaims` of src/synthesis/claims). */
  readonly extract?: ClaimExtractor;
  /** Guided mode's human: answers `approve`, `skip` or `stop` (default: `stop`). */
  readonly human?: (q: ApproveInput) => Promise<string>;
  readonly journal?: SynthesisJournal;
  readonly profile?: DomainProfile;
  readonly clock?: () => number;
  readonly workerTimeoutMs?: number;
  readonly drafterTimeoutMs?: number;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * The drafter command's and the worker command's sandbox (docs/sandbox.md), as `runProject`
   * takes it: `auto` (default) where the machine and project allow it, else one note (through
   * `onSandboxNote`, or the result's warnings); `on` refuses to start without it (usage error);
   * `off`: contained only. A sandboxed drafter's writes outside its temp path are discarded and
   * refused by name.
   */
  readonly sandbox?: SandboxMode;
  /** `deny` (default): no network in the sandbox; `allow`: the host's (a drafter calling a model). */
  readonly sandboxNetwork?: SandboxNetwork;
  /** Receives the one `sandbox unavailable: …` line of an `auto` fallback. */
  readonly onSandboxNote?: (line: string) => void;
  readonly inspect?: MachineInspector;
  /** A line of progress (claim started, draft, route …). */
  readonly onLog?: (line: string) => void;
}

/** What {@link runSynthesis} returns. */
export interface SynthesisRunResult {
  readonly output: SynthesisOutput;
  readonly warnings: readonly string[];
  readonly targetFile: string;
  readonly journalRun: string | null;
  readonly cites: readonly string[];
}

function positive(name: string, v: string | number | undefined, d: number): number {
  if (v === undefined) return d;
  const n = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new HandoffError('usage', `--${name} must be a positive integer, got '${String(v)}'`);
  return n;
}

/** The resolved session settings (startup-validated). */
export interface SynthesisSettings {
  readonly input: Omit<SynthesisInput, 'tracker' | 'startedAt'>;
  readonly warnings: readonly string[];
  readonly maxRuntime: string;
  /** The golf pass's `search_mode`. */
  readonly golfSearch: GolfSearchMode;
}

/**
 * Validates and resolves the session's flags (no I/O): the statement policy (formalize is active,
 * so the default is `rewrite-generated-only` with a startup warning), the commit policy
 * (`ask` → `auto` in autoformalize, with a warning), budgets, and the entry shape.
 *
 * @example
 * ```ts
 * resolveSynthesisSettings({ mode: 'auto', source: 'paper.md', target: 'Paper.lean' }).warnings;
 * // [DEFAULT_POLICY_WARNING]
 * ```
 * @throws HandoffError `usage` for a bad value or a missing/contradictory entry.
 */
export function resolveSynthesisSettings(
  o: Pick<
    SynthesisRunOptions,
    | 'mode'
    | 'source'
    | 'formalize'
    | 'target'
    | 'statementPolicy'
    | 'commit'
    | 'maxCycles'
    | 'maxStuck'
    | 'maxRuntime'
    | 'maxRedrafts'
    | 'golfSearch'
  >,
): SynthesisSettings {
  const warnings: string[] = [];
  const hasSource = o.source !== undefined && o.source !== null && o.source !== '';
  const formalize = o.formalize ?? (hasSource ? 'auto' : 'restage');
  if (formalize !== 'auto' && formalize !== 'restage')
    throw new HandoffError('usage', `--formalize must be auto|restage, got '${String(formalize)}'`);
  if (formalize === 'auto' && !hasSource)
    throw new HandoffError(
      'usage',
      '--source FILE is required (or --formalize restage for the existing scope)',
    );
  if (formalize === 'restage' && hasSource)
    throw new HandoffError('usage', '--formalize restage works on the existing scope: it takes no --source');
  if (typeof o.target !== 'string' || o.target === '')
    throw new HandoffError('usage', 'missing --target FILE');
  const policy = resolveStatementPolicy({ flag: o.statementPolicy, formalizeActive: true });
  if (!policy.ok) throw new HandoffError('usage', policy.error);
  warnings.push(...policy.warnings);
  const commitFlag = o.commit ?? 'auto';
  if (commitFlag !== 'never' && commitFlag !== 'ask' && commitFlag !== 'auto')
    throw new HandoffError('usage', `--commit must be never|ask|auto, got '${commitFlag}'`);
  let commit: DraftCommit = commitFlag;
  if (commit === 'ask' && o.mode === 'auto') {
    commit = 'auto';
    warnings.push('autoformalize: --commit=ask coerced to auto (no human to ask)');
  }
  const golfSearch = GOLF_SEARCH_MODES.find((m) => m === (o.golfSearch ?? 'off'));
  if (golfSearch === undefined)
    throw new HandoffError('usage', `--golf-search must be off|quick|full, got '${String(o.golfSearch)}'`);
  const maxRuntime = o.maxRuntime ?? '120m';
  const seconds = parseDuration(maxRuntime);
  if (seconds === null)
    throw new HandoffError('usage', `--max-total-runtime must match ^\\d+[mshMSH]?$, got '${maxRuntime}'`);
  return {
    warnings,
    maxRuntime,
    golfSearch,
    input: {
      mode: o.mode,
      entry: formalize === 'auto' ? 'source' : 'scope',
      targetFile: o.target,
      policy: policy.policy,
      policyExplicit: policy.explicit,
      commit,
      maxCycles: positive('max-cycles', o.maxCycles, 20),
      maxStuck: positive('max-stuck-cycles', o.maxStuck, 3),
      maxRuntimeMs: seconds * 1000,
      maxRedrafts: o.maxRedrafts ?? 1,
    },
  };
}

/** A project-relative, forward-slash path for `file` inside `root`, or null when outside. */
function insideRel(root: string, file: string): string | null {
  const rel = relative(root, file);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return null;
  return rel.split(sep).join('/');
}

async function readText(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Claim-scoped diagnostics: the marker scan of the target, limited to the claim's declarations. */
function claimDiagnostics(
  base: DiagnosticsPort,
  abs: string,
  declarations: readonly string[],
): DiagnosticsPort {
  return {
    async diagnose(input): Promise<Unstamped<DiagnosticsOutput>> {
      const out = await base.diagnose(input);
      if (declarations.length === 0) return out;
      const text = (await readText(abs)) ?? '';
      const ranges = declarations.map((d) => declarationLines(text, d)).filter((r) => r !== null);
      const inside = (line: number) => ranges.some((r) => line >= r.start && line <= r.end);
      const targets = out.targets.filter((t: TargetInfo) => inside(t.line));
      const errors = out.errors.filter((e) => {
        const m = /^[^:]*:(\d+):/.exec(e);
        return m === null || inside(Number(m[1]));
      });
      return { ...out, targets, errors, ok: errors.length === 0 };
    },
  };
}

function isoSeconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/**
 * Runs one synthesis session (`handoff formalize` / `handoff autoformalize`).
 *
 * @example
 * ```ts
 * const r = await runSynthesis({ projectRoot: '/repo', mode: 'auto', source: 'paper.md', target: 'Paper.lean',
 *   drafter: { argv: ['node', 'drafter.mjs'] }, worker: { argv: ['node', 'solver-worker.js'] }, extract });
 * r.output.reports.map((c) => c.status); // ['skipped', 'proved', 'stuck']
 * ```
 * @throws HandoffError `usage` for bad flags, a target outside the project, a missing drafter or
 * extractor, or commits without a git repository.
 */
export async function runSynthesis(o: SynthesisRunOptions): Promise<SynthesisRunResult> {
  const clock = o.clock ?? Date.now;
  const settings = resolveSynthesisSettings(o);
  const given = resolve(o.projectRoot);
  const st = await stat(given).catch(() => null);
  if (st === null || !st.isDirectory())
    throw new HandoffError('usage', `--project ${given} is not a directory`);
  const root = await realpath(given);
  const abs = resolve(root, o.target);
  const rel = insideRel(root, abs);
  if (rel === null) throw new HandoffError('usage', `--target ${o.target} is not a file inside ${root}`);
  const entry = settings.input.entry;
  if (entry === 'source' && o.drafter === undefined) throw new HandoffError('usage', 'missing --drafter CMD');
  if (entry === 'scope' && (await readText(abs)) === null)
    throw new HandoffError('usage', `--formalize restage: the target ${rel} does not exist`);
  // the repository (and identity) of every draft commit, pinned before the first dispatch
  const repo = settings.input.commit === 'never' ? null : await pinRepository(root);
  if (settings.input.commit !== 'never' && repo === null)
    throw new HandoffError(
      'usage',
      `${root} is not a git repository: draft commits need git (or pass --commit never)`,
    );
  const source = o.source ? resolve(o.source) : null;
  const profile = o.profile ?? leanProfile();
  const timeout = o.workerTimeoutMs ?? 600_000;
  const drafterTimeout = o.drafterTimeoutMs ?? timeout;
  // decided once for the session: the inner runs get the mode back only when it sandboxes (no
  // repeated fallback note), else off
  const sandboxMode = o.sandbox ?? 'auto';
  const sandboxNetwork = o.sandboxNetwork ?? 'deny';
  const decided = sandboxDecision(
    sandboxMode,
    sandboxMode === 'off' ? { available: false, reason: 'off' } : await probeSandbox(root),
  );
  if ('refuse' in decided) throw new HandoffError('usage', decided.refuse);
  const sandboxWarnings: string[] = [];
  if (decided.note !== null) {
    if (o.onSandboxNote === undefined) sandboxWarnings.push(decided.note);
    else o.onSandboxNote(decided.note);
  }
  const innerSandbox = {
    sandbox: decided.sandbox ? sandboxMode : ('off' as const),
    sandboxNetwork,
  };
  const drafter: DrafterPort | null =
    o.drafter === undefined
      ? null
      : 'port' in o.drafter
        ? o.drafter.port
        : commandDrafter(o.drafter.argv, {
            cwd: root,
            timeoutMs: drafterTimeout,
            ...(decided.sandbox ? { sandbox: { network: sandboxNetwork } } : {}),
            ...(o.env === undefined ? {} : { env: o.env }),
          });
  const log = (l: string) => o.onLog?.(l);
  const startedAt = clock();
  const tr = initTracker(
    {
      maxCycles: settings.input.maxCycles,
      maxStuck: settings.input.maxStuck,
      maxRuntime: settings.maxRuntime,
    },
    `synthesis-${startedAt}`,
    startedAt,
  );
  if (!tr.ok) throw new HandoffError('usage', tr.error);

  // the session journal: one run, notes that cite what they follow from
  const cites: string[] = [];
  let journalRun: string | null = null;
  const claimCite = new Map<string, string>();
  const note = async (
    kind: 'source-note' | 'candidate' | 'blocker-diagnosis',
    record: Record<string, unknown>,
    lean: string | null = null,
  ): Promise<string | null> => {
    if (o.journal === undefined || journalRun === null) return null;
    const cite = await o.journal.note(kind, JSON.stringify(record), lean);
    cites.push(cite);
    return cite;
  };

  const event = async (kind: 'dispatch' | 'handoff', record: Dispatch | Handoff): Promise<string | null> => {
    const j = o.journal;
    if (j === undefined || journalRun === null) return null;
    const cite =
      kind === 'dispatch' ? await j.dispatch?.(record as Dispatch) : await j.handoff?.(record as Handoff);
    if (cite === undefined) return null;
    cites.push(cite);
    return cite;
  };

  // the bytes of the target before the latest assembly (a failed validation restores them)
  let beforeAssembly: string | null = null;
  const scratch = await mkdtemp(join(tmpdir(), 'handoff-synthesis-'));
  let drafts = 0;
  // the same judgement of `solved` as a proving run (the profile's escape hatches, token by token,
  // over its source files); a target the profile's scan never reads keeps the line scan
  const scanned = profile.sourceExtensions.includes(extname(rel).toLowerCase());
  const markerOptions = {
    projectRoot: root,
    target: rel,
    scope: 'file' as const,
    markers: profile.markers,
    errorComment: profile.errorComment,
    ...(scanned ? { hatches: profile.escapeHatches, sourceExtensions: profile.sourceExtensions } : {}),
    ...(profile.diagnosticsCommand === null
      ? {}
      : { check: { argv: profile.diagnosticsCommand, timeoutMs: timeout } }),
    ...(decided.sandbox ? { sandbox: { network: sandboxNetwork } } : {}),
  };
  const marker = createMarkerDiagnostics(markerOptions);
  // the golf pass counts the open targets before and after its edit with a scan that remembers
  // none: a golfed proof shifts the lines below it, which the session's scan (rightly, for a
  // proving worker) would keep open as a moved escape hatch; the golf role's own check already
  // refuses any change outside the golfed proof and any sorry in it
  const golfScan: DiagnosticsPort = {
    diagnose: (input) => createMarkerDiagnostics(markerOptions).diagnose(input),
  };
  const stamp = <T extends object>(v: T) => ({ ...v, now: clock() });

  const innerRun = async (
    claim: LoopClaim,
    declarations: readonly string[],
    maxCycles: number,
    maxStuck: number,
    runtimeLeftMs: number,
    commit: boolean,
  ) => {
    const r = await runProject({
      projectRoot: root,
      flags: {
        target: rel,
        scope: 'file',
        mode: 'autoprove',
        maxCycles,
        maxStuck,
        maxRuntime: runtimeLeftMs === 0 ? '0' : `${Math.ceil(runtimeLeftMs / 1000)}s`,
        // the inner cycle commits unless --commit never or the human declined this draft's commit
        commit: commit ? 'auto' : 'never',
        outerLoop: true,
      },
      worker: o.worker,
      ...innerSandbox,
      diagnostics: claimDiagnostics(marker, abs, claim.kind === 'scope' ? [] : declarations),
      ...(o.reviewer === undefined ? {} : { reviewer: o.reviewer }),
      ...(o.reviewerArgv === undefined ? {} : { reviewerArgv: o.reviewerArgv }),
      profile,
      workerTimeoutMs: timeout,
      clock,
      // a claim whose declarations hold no open marker is proved as drafted (not an empty run)
      allowEmpty: true,
      ...(o.env === undefined ? {} : { env: o.env }),
    });
    const h = r.handoff;
    let stuckDeclaration: string | null = null;
    if (h.status !== 'solved') {
      // a stuck target is file:line; a max-stuck stop names the run's target and carries the
      // line in its blocker signature (file:line:text)
      const fromTarget = splitTarget(h.target ?? '');
      const sig = /^(.*?):(\d+):/.exec(h.blocker_signature ?? '');
      const t =
        fromTarget.line === null && sig !== null
          ? { file: sig[1] as string, line: Number(sig[2]) }
          : fromTarget;
      const text = t.line === null ? null : await readText(resolve(root, t.file));
      if (text !== null && t.line !== null) stuckDeclaration = declarationNameAt(text, t.line);
    }
    return { r, h, stuckDeclaration };
  };

  const machine = synthesisMachine.provide({
    actors: {
      extract: fromPromise(async (): Promise<ExtractOutput> => {
        if (source === null) return stamp({ ok: false as const, error: 'no claim source' });
        const x = await (o.extract ?? extractClaims)(source, o.claimSelect);
        if (!x.ok) return stamp({ ok: false as const, error: x.error });
        const claims: LoopClaim[] = x.claims.map((c) => ({
          id: c.id,
          index: c.index,
          text: c.text,
          title: c.title ?? c.text.slice(0, 72),
          // the source's name, else one from the title, else one from the claim's id
          name: c.name ?? nameFromTitle(c.title ?? '') ?? `claim_${c.id.replace(/[^A-Za-z0-9_]/g, '_')}`,
          kind: c.kind,
        }));
        for (const c of claims) {
          const cite = await note('source-note', {
            schema: 'synthesis-claim/v1',
            claim: c.id,
            index: c.index,
            name: c.name,
            kind: c.kind,
            title: c.title,
            text: c.text,
            source: source,
          });
          if (cite !== null) claimCite.set(c.id, cite);
        }
        return stamp({ ok: true as const, claims });
      }),
      inspectTarget: fromPromise(async ({ input }: { input: InspectInput }): Promise<InspectOutput> => {
        const text = await readText(abs);
        return stamp({
          present: text !== null && input.claim.name !== '' && existingDeclaration(text, input.claim.name),
        });
      }),
      drafter: fromPromise(async ({ input, signal }): Promise<DraftOutput> => {
        if (drafter === null) return stamp({ kind: 'error' as const, reason: 'no drafter' });
        drafts++;
        const dir = join(scratch, `draft-${drafts}`);
        await mkdir(dir, { recursive: true });
        const prior = input.previous[0] ?? null;
        const redraft = input.replace !== null && prior !== null;
        const existing = (await readText(abs)) ?? '';
        const name =
          input.replace === 'adjacent' && prior !== null
            ? adjacentName(prior, [...input.previous, ...headNames(existing)])
            : input.claim.name || null;
        const req: DraftRequest = {
          schema: 'draft-request/v1',
          claim: {
            id: input.claim.id,
            text: input.claim.text,
            title: input.claim.title,
            name,
            kind: input.claim.kind === 'scope' ? 'theorem' : input.claim.kind,
          },
          target_file: abs,
          temp_path: join(dir, 'draft.lean'),
          policy: {
            statement_policy: input.policy,
            caller: o.mode === 'guided' ? 'formalize' : 'autoformalize',
          },
          mode: redraft ? 'redraft' : 'draft',
          prior: redraft && prior !== null ? { declaration: prior, reason: input.reason ?? 'redraft' } : null,
        };
        // custody of the target for every drafter (a command drafter checks it too): a drafter
        // that changed the target is refused and the target put back to its bytes
        const targetBefore = await readFile(abs).catch(() => null);
        const out = await drafter.draft(req, signal);
        const targetAfter = await readFile(abs).catch(() => null);
        const same =
          targetBefore === null
            ? targetAfter === null
            : targetAfter !== null && targetBefore.equals(targetAfter);
        if (!same) {
          if (targetBefore === null) await rm(abs, { force: true, recursive: true });
          else await writeFile(abs, targetBefore);
          log(`draft ${input.claim.id}: refused (the drafter changed the target)`);
          return stamp({
            kind: 'error' as const,
            reason: `the drafter changed the target file ${rel} (drafters write only the temp path); target restored`,
          });
        }
        log(`draft ${input.claim.id}: ${out.kind}`);
        if (out.kind === 'drafted')
          return stamp({
            kind: 'drafted' as const,
            declarations: out.declarations,
            text: out.text,
            imports: out.imports,
          });
        if (out.kind === 'declined') return stamp({ kind: 'declined' as const, reason: out.detail });
        return stamp({ kind: 'error' as const, reason: `${out.kind}: ${out.detail}` });
      }),
      human: fromPromise(async ({ input }) => stamp({ answer: o.human ? await o.human(input) : 'stop' })),
      assemble: fromPromise(async ({ input }: { input: AssembleInput | null }): Promise<AssembleOutput> => {
        if (input === null) return stamp({ ok: false, added: [], skipped: [], error: 'no draft' });
        const current = (await readText(abs)) ?? '';
        const base = input.remove.length > 0 ? withoutDeclarations(current, input.remove) : current;
        const r = assembleDraft(base, {
          text: input.draft.text,
          imports: input.draft.imports,
          claim: { id: input.claim.id, text: input.claim.text || input.claim.title },
          timestamp: isoSeconds(clock()),
        });
        if (!r.ok) return stamp({ ok: false, added: [], skipped: [], error: r.error });
        if (r.added.length === 0) return stamp({ ok: true, added: [], skipped: [...r.skipped], error: null });
        beforeAssembly = current;
        await mkdir(dirname(abs), { recursive: true });
        await writeFile(abs, r.text);
        const cite = await note(
          'candidate',
          {
            schema: 'synthesis-draft/v1',
            claim: input.claim.id,
            declarations: r.added,
            skipped: r.skipped,
            target: rel,
            replaced: input.remove,
            cites: [claimCite.get(input.claim.id)].filter((c) => c !== undefined),
          },
          input.draft.text,
        );
        if (cite !== null) claimCite.set(input.claim.id, cite);
        return stamp({ ok: true, added: [...r.added], skipped: [...r.skipped], error: null });
      }),
      validate: fromPromise(async (): Promise<ValidateOutput> => {
        const d = await marker.diagnose({ question: 'edit', tier: 'file-fast', files: [rel] } as never);
        if (d.errors.length === 0) return stamp({ ok: true, errors: [] as string[] });
        // the draft does not check: the target goes back to its bytes before the assembly
        if (beforeAssembly !== null) await writeFile(abs, beforeAssembly);
        return stamp({ ok: false, errors: [...d.errors] });
      }),
      committer: fromPromise(async ({ input }: { input: CommitInput }): Promise<CommitOutput> => {
        try {
          const bytes = await readFile(abs);
          const mode = (await stat(abs)).mode & 0o111 ? 0o755 : 0o644;
          const commit = await commitExact(repo ?? root, [{ rel, file: { bytes, mode } }], input.message);
          log(`commit ${commit?.slice(0, 8) ?? '(nothing to commit)'} ${input.message}`);
          return stamp({ committed: commit !== null, commit, error: null });
        } catch (e) {
          return stamp({ committed: false, commit: null, error: (e as Error).message });
        }
      }),
      prove: fromPromise(async ({ input }: { input: ProveInput }): Promise<ProveOutput> => {
        const { r, h, stuckDeclaration } = await innerRun(
          input.claim,
          input.declarations,
          input.maxCycles,
          input.maxStuck,
          input.runtimeLeftMs,
          input.commit,
        );
        log(
          `inner cycle ${input.claim.id}: ${h.status}${h.status === 'solved' ? '' : ` (next_action ${h.next_action})`}`,
        );
        const cite = await note('blocker-diagnosis', {
          schema: 'synthesis-route/v1',
          claim: input.claim.id,
          inner_run: r.runId,
          status: h.status,
          stop_reason: h.stop_reason,
          blocker_signature: h.blocker_signature,
          next_action: h.status === 'solved' ? null : h.next_action,
          route_in: input.route,
          cites: [claimCite.get(input.claim.id)].filter((c) => c !== undefined),
        });
        if (cite !== null) claimCite.set(input.claim.id, cite);
        return stamp({
          handoff: h,
          cycles: r.context.tracker.cycles,
          stuckCycles: r.context.tracker.stuck_cycles_total,
          stuckDeclaration,
        });
      }),
      golf: fromPromise(async ({ input, signal }): Promise<GolfOutput> => {
        // the golf pass: one golf-mode proof-golfer dispatch over the proved declaration, under
        // custody and the statement fence; kept only when the diagnostics show nothing new
        const golfCites: string[] = [];
        const g = await runGolfPass({
          projectRoot: root,
          rel,
          abs,
          declarations: (input as GolfInput).declarations,
          worker: o.worker,
          diagnostics: golfScan,
          scratch,
          commit: (input as GolfInput).commit,
          ...(repo === null ? {} : { repo }),
          timeoutMs: timeout,
          searchMode: settings.golfSearch,
          ...(o.env === undefined ? {} : { env: o.env }),
          ...(decided.sandbox ? { sandbox: { network: sandboxNetwork } } : {}),
          // under --persist the golf dispatch and its handoff are events of the session run,
          // like the inner cycle's; the golf note cites them
          onDispatch: async (d) => {
            const c = await event('dispatch', d);
            if (c !== null) golfCites.push(c);
          },
          onHandoff: async (h) => {
            const c = await event('handoff', h);
            if (c !== null) golfCites.push(c);
          },
          signal,
        });
        log(`golf pass ${input.claim.id}: ${g.outcome} — ${g.detail}`);
        if (g.commit !== null) log(`commit ${g.commit.slice(0, 8)} golf: ${g.declaration}`);
        const cite = await note('blocker-diagnosis', {
          schema: 'synthesis-golf/v1',
          claim: input.claim.id,
          outcome: g.outcome,
          declaration: g.declaration,
          detail: g.detail,
          commit: g.commit,
          dispatch:
            g.dispatch === null
              ? null
              : // the whole dispatch (search mode included) is the dispatch event this note cites
                { target: g.dispatch.target, mode: g.dispatch.mode, worker: g.dispatch.worker },
          cites: [claimCite.get(input.claim.id), ...golfCites].filter((c) => c !== undefined),
        });
        if (cite !== null) claimCite.set(input.claim.id, cite);
        const prior = input.priorHandoff;
        const claimClean = await claimDiagnostics(marker, abs, input.declarations).diagnose({
          question: 'edit',
          tier: 'file-fast',
          files: [rel],
        } as never);
        const solved = claimClean.errors.length === 0 && claimClean.targets.length === 0;
        const base: Handoff =
          prior ??
          handoffFor(
            await sessionDispatch(rel, settings, scratch, abs).then((d) => ({ ...d, mode: 'golf' as const })),
          );
        return stamp({
          handoff: solved
            ? {
                ...base,
                status: 'solved' as const,
                stop_reason: null,
                stop_detail: null,
                blocker_kind: null,
                blocker_class: null,
                blocker_signature: null,
                next_action: 'stop' as const,
                new_evidence_required_for_rerun: null,
              }
            : base,
        });
      }),
    },
  });

  let firstDispatch: Dispatch | null = null;
  try {
    if (o.journal !== undefined) {
      firstDispatch = await sessionDispatch(rel, settings, scratch, abs);
      journalRun = await o.journal.start(firstDispatch);
    }
    const actor = createActor(machine, {
      input: { ...settings.input, targetFile: rel, tracker: tr.state, startedAt },
      ...(o.inspect === undefined ? {} : { inspect: o.inspect }),
    });
    let seen = 0;
    actor.subscribe({
      next: (s) => {
        for (const l of s.context.log.slice(seen)) log(l);
        seen = s.context.log.length;
      },
      error: () => {},
    });
    actor.start();
    const output = await toPromise(actor);
    if (o.journal !== undefined && journalRun !== null && firstDispatch !== null) {
      await note('source-note', {
        schema: 'synthesis-report/v1',
        ending: output.ending,
        reports: output.reports,
        cites: [...cites],
      });
      const fin = await o.journal.finish(await sessionHandoff(firstDispatch, abs, output));
      if (fin !== null) cites.push(fin);
    }
    return {
      output,
      warnings: [...settings.warnings, ...sandboxWarnings],
      targetFile: rel,
      journalRun,
      cites,
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The session run's first dispatch: the parent's own task over the target file. */
async function sessionDispatch(
  rel: string,
  s: SynthesisSettings,
  scratch: string,
  abs: string,
): Promise<Dispatch> {
  return buildRunDispatch({
    options: {
      target: rel,
      scope: 'file',
      mode: 'autoprove',
      maxCycles: s.input.maxCycles,
      maxStuck: s.input.maxStuck,
      maxRuntime: s.maxRuntime,
    },
    owned: [abs],
    baseline: await recordBaseline([abs]),
    priorBlocker: null,
    evidenceDelta: [],
    scratch,
    capabilities: ['synthesis-outer-loop'],
  });
}

/** The session run's final handoff: solved when every claim ended well, stuck when one is stuck. */
async function sessionHandoff(first: Dispatch, abs: string, out: SynthesisOutput): Promise<Handoff> {
  const stuck = out.reports.filter((r) => r.status === 'stuck');
  const solved = out.ending === 'done' && stuck.length === 0;
  const base = handoffFor(first);
  return {
    ...base,
    status: solved ? 'solved' : stuck.length > 0 ? 'stuck' : 'stopped',
    stop_reason:
      solved || stuck.length > 0 ? null : out.ending === 'halted' ? 'operational-error' : 'user-stop',
    stop_detail: !solved && stuck.length === 0 && out.ending === 'halted' ? (out.error ?? 'halted') : null,
    blocker_kind: stuck.length > 0 ? 'proof' : null,
    blocker_class: stuck.length > 0 ? 'needs-helper-lemma' : null,
    blocker_signature: stuck.length > 0 ? `${first.target}:0:${stuck.map((r) => r.claim).join(',')}` : null,
    attempted_tools: ['synthesis-outer-loop'],
    failed_avenues: stuck.map((r) => `${r.claim}: ${r.reason ?? 'stuck'}`),
    files_changed: [abs],
    file_baseline: await recordBaseline([abs]),
    next_action: 'stop',
    new_evidence_required_for_rerun:
      stuck.length > 0 ? 'a redraft or new evidence for the stuck claims' : null,
  };
}

/** Options of {@link createSynthesisJournal}. */
export interface SynthesisJournalOptions {
  readonly projectRoot: string;
  /** `--run-store` (else `$HANDOFF_RUN_STORE`, else `<project>/.handoff`). */
  readonly runStore?: string | null;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** A store to journal to instead of the fs store (e.g. `createMemoryStore()`). */
  readonly store?: Store;
  readonly clock?: () => Date;
}

/**
 * The `--persist` journal of a synthesis session: one run in the run store (started with the
 * session's own dispatch), a note per claim (`source-note`), draft (`candidate`, the Lean text in
 * `lean`) and inner-cycle route (`blocker-diagnosis`), the golf pass's dispatch and handoff as
 * `dispatch`/`handoff` events (its `synthesis-golf/v1` note cites them), each note's JSON text
 * citing the earlier records of its claim, and the session's final handoff. A persistence refusal stops the session
 * (`persist_stop`).
 *
 * @example
 * ```ts
 * const journal = createSynthesisJournal({ projectRoot: '/repo' });
 * await runSynthesis({ …, journal });
 * ```
 */
export function createSynthesisJournal(
  o: SynthesisJournalOptions,
): SynthesisJournal & { readonly root: string } {
  const { store, root } =
    o.store === undefined
      ? openRunStore(o.projectRoot, o.runStore, o.env)
      : { store: o.store, root: o.store.root };
  const controller = new PersistController({
    stateStore: memoryStateStore(),
    openStore: () => store,
    storageRoot: root,
    projectRoot: o.projectRoot,
    ...(o.clock ? { clock: o.clock } : {}),
  });
  const obey = (r: PersistResult): PersistResult => {
    if (r.action === 'stop' || r.action === 'startup-error' || r.action === 'usage')
      throw new HandoffError(
        'persist_stop',
        `persistence stopped the session (${r.verb}: ${r.code ?? r.outcome ?? r.action}): ${r.message ?? ''}`,
        { details: { result: r } },
      );
    return r;
  };
  return {
    root,
    async start(first) {
      const r = obey(await controller.start({ dispatch: first }));
      return String(r.run_id);
    },
    async note(kind, text, lean) {
      const r = obey(await controller.note({ kind, text, lean }));
      return String(r.cite ?? r.committed?.cite);
    },
    async dispatch(d) {
      const r = obey(await controller.dispatch(d));
      return String(r.cite ?? r.committed?.cite);
    },
    async handoff(h) {
      const r = obey(await controller.handoff(h));
      return String(r.cite ?? r.committed?.cite);
    },
    async finish(final) {
      const r = obey(await controller.finish(final));
      return typeof r.cite === 'string' ? r.cite : (r.committed?.cite ?? null);
    },
  };
}
