/**
 * A drafter backed by a command (`--drafter CMD`, layer 3): the `draft-request/v1` on stdin, one
 * `draft-response/v1` line on stdout, the declaration-only block in the request's `temp_path`.
 * Argument arrays only, never a shell; the child runs contained (process group, session sweep,
 * bounded output and time — src/process). See docs/drafter-protocol.md.
 *
 * Custody: the target file's state (absent, or its bytes and mode, or the link it is) is recorded
 * before the call and compared after it, whatever the outcome (also after a timeout). A drafter
 * that changed it is refused (`protocol-error`) and the target is put back: its bytes rewritten
 * beside it and renamed over (so a swapped-in link is replaced, not written through), or a file
 * it created removed. The temp file is read without following a link, only when it is a regular
 * file no larger than the limit, and only as UTF-8.
 *
 * Sandboxed (`sandbox`): the drafter sees the project read-only under a private writable layer
 * (src/sandbox). Its temp path is then a fresh file in a private directory the runtime makes under
 * `<project>/.handoff/drafts/` (the drafter's `/tmp` is its own); the block's bytes are taken from
 * the layer into the caller's `temp_path`, and everything else it wrote in the project — the target
 * file included — is discarded (the host is never touched) and named in a `protocol-error`
 * (drafters write only the temp path). What it leaves in its private `$HOME` is thrown away.
 */
import { createHash } from 'node:crypto';
import { constants as C } from 'node:fs';
import { lstat, mkdir, open, readFile, readlink, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { nodeFsLayer, publishFile } from '../durable/index.js';
import { randomHex } from '../ids/index.js';
import { type ContainedResult, runContained } from '../process/index.js';
import { discardedViolation, runSandboxed, type SandboxNetwork } from '../sandbox/index.js';
import { MAX_DRAFT_CHARS } from './draft-block.js';
import { validateDraftRequest } from './draft-schema.js';
import { checkDraft, type DrafterPort, type DraftOutcome } from './drafter-port.js';

/**
 * Framing version of the drafter protocol, in the child's `HANDOFF_DRAFTER_PROTOCOL`.
 *
 * @example
 * ```ts
 * process.env.HANDOFF_DRAFTER_PROTOCOL === DRAFTER_PROTOCOL_VERSION; // inside a drafter
 * ```
 */
export const DRAFTER_PROTOCOL_VERSION = 'handoff-drafter/v1';

/**
 * Largest stdout a drafter may print (characters); beyond it the drafter is stopped.
 *
 * @example
 * ```ts
 * commandDrafter(argv, { cwd, timeoutMs: 60_000, maxResponseChars: DEFAULT_MAX_RESPONSE_CHARS });
 * ```
 */
export const DEFAULT_MAX_RESPONSE_CHARS = 256 * 1024;

/**
 * Options of {@link commandDrafter}.
 *
 * @example
 * ```ts
 * const o: CommandDrafterOptions = { cwd: '/p', timeoutMs: 120_000 };
 * ```
 */
export interface CommandDrafterOptions {
  /** Working directory (the project root; also `HANDOFF_PROJECT_ROOT`). */
  readonly cwd: string;
  /** Wall-clock budget of one call; at its end the process group is killed. */
  readonly timeoutMs: number;
  /** Extra environment on top of `process.env` (`undefined` removes a variable). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Stdout cap (default {@link DEFAULT_MAX_RESPONSE_CHARS}). */
  readonly maxResponseChars?: number;
  /** Largest temp file read, in bytes (default `MAX_DRAFT_CHARS`). */
  readonly maxDraftBytes?: number;
  /** SIGTERM → SIGKILL grace (default 2,000 ms; tests shorten it). */
  readonly killGraceMs?: number;
  /**
   * Run the drafter in the sandbox (decide with `probeSandbox` first; `cwd` must be a realpath):
   * the project read-only, only the temp path's bytes taken, every other project write discarded
   * and refused by name. Omitted or null: contained only.
   */
  readonly sandbox?: { readonly network: SandboxNetwork } | null;
}

/** A sandboxed call's outcome: the contained result, and the project writes it discarded. */
interface SandboxedDraft {
  readonly r: ContainedResult;
  /** Named as the layer plan names them; `~/…` (the private home) left out. */
  readonly discarded: readonly string[];
  /** Why the block could not be taken from the layer, or null. */
  readonly error: string | null;
}

/**
 * Runs the drafter sandboxed with its temp path inside the project's layer, then moves the block's
 * bytes to the caller's `temp_path` (created exclusively, mode 0600).
 */
async function draftSandboxed(
  argv: readonly string[],
  request: { readonly temp_path: string } & Record<string, unknown>,
  o: CommandDrafterOptions & { readonly sandbox: { readonly network: SandboxNetwork } },
  contained: Parameters<typeof runContained>[2],
): Promise<SandboxedDraft> {
  const dir = join(o.cwd, '.handoff', 'drafts', randomHex(8));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  try {
    const inner = join(dir, 'draft.lean');
    const { cwd: _c, ...rest } = contained;
    const r = await runSandboxed(argv, `${JSON.stringify({ ...request, temp_path: inner })}\n`, {
      ...rest,
      projectRoot: o.cwd,
      owned: [inner],
      network: o.sandbox.network,
    });
    const discarded = r.plan.discarded.filter((n) => !n.startsWith('~/'));
    if (r.layerError !== null) return { r, discarded, error: r.layerError };
    const f = r.files.get(inner);
    if (f !== undefined && f !== null)
      await writeFile(request.temp_path, f.bytes, { flag: 'wx', mode: 0o600 });
    return { r, discarded, error: null };
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => {});
    // the drafts directory goes too once empty (another call's may still be there)
    await rmdir(join(o.cwd, '.handoff', 'drafts')).catch(() => {});
  }
}

type TargetState =
  | { readonly kind: 'absent' }
  | { readonly kind: 'file'; readonly sha256: string; readonly bytes: Buffer; readonly mode: number }
  | { readonly kind: 'link'; readonly to: string }
  | { readonly kind: 'other'; readonly mode: number };

async function targetState(file: string): Promise<TargetState> {
  let st: Awaited<ReturnType<typeof lstat>>;
  try {
    st = await lstat(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    return { kind: 'other', mode: -1 };
  }
  if (st.isSymbolicLink()) return { kind: 'link', to: await readlink(file).catch(() => '') };
  if (!st.isFile()) return { kind: 'other', mode: st.mode };
  try {
    const bytes = await readFile(file, { flag: C.O_RDONLY | C.O_NOFOLLOW });
    return { kind: 'file', sha256: createHash('sha256').update(bytes).digest('hex'), bytes, mode: st.mode };
  } catch {
    return { kind: 'other', mode: st.mode };
  }
}

function sameState(a: TargetState, b: TargetState): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'file' && b.kind === 'file') return a.sha256 === b.sha256 && a.mode === b.mode;
  if (a.kind === 'link' && b.kind === 'link') return a.to === b.to;
  if (a.kind === 'other' && b.kind === 'other') return a.mode === b.mode;
  return true;
}

/** Puts the target back to `before`; returns what happened, for the refusal's detail. */
async function restoreTarget(file: string, before: TargetState): Promise<string> {
  try {
    if (before.kind === 'file') {
      publishFile(nodeFsLayer(), file, before.bytes, {
        label: 'draft_restore',
        sync: 'none',
        mode: before.mode & 0o7777,
        exactMode: true,
      });
      return 'target restored to its bytes before the call';
    }
    if (before.kind === 'absent') {
      const now = await lstat(file);
      if (now.isDirectory()) return 'could not restore the target: the drafter created a directory there';
      await unlink(file);
      return 'the file the drafter created at the target was removed';
    }
    return 'could not restore the target (it was not a regular file before the call)';
  } catch (e) {
    return `could not restore the target: ${(e as Error).message}`;
  }
}

/** Reads the temp file: a regular file (no link followed), at most `max` bytes, valid UTF-8. */
async function readDraft(
  file: string,
  max: number,
): Promise<{ ok: true; text: string | null } | { ok: false; error: string }> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(file, C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: true, text: null };
    if (code === 'ELOOP') return { ok: false, error: 'the temp path is a symbolic link' };
    return { ok: false, error: `cannot read the temp path: ${code ?? String(e)}` };
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return { ok: false, error: 'the temp path is not a regular file' };
    if (st.size > max) return { ok: false, error: `the draft is too large (${st.size} > ${max} bytes)` };
    const buf = Buffer.alloc(max + 1);
    let n = 0;
    while (n < buf.length) {
      const r = await fh.read(buf, n, buf.length - n, n);
      if (r.bytesRead === 0) break;
      n += r.bytesRead;
    }
    if (n > max) return { ok: false, error: `the draft is too large (more than ${max} bytes)` };
    try {
      return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(buf.subarray(0, n)) };
    } catch {
      return { ok: false, error: 'the draft is not valid UTF-8' };
    }
  } finally {
    await fh.close().catch(() => {});
  }
}

function oneJsonLine(stdout: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 0) return { ok: false, error: 'the drafter printed no response' };
  if (lines.length > 1)
    return { ok: false, error: `the drafter printed ${lines.length} lines; the response is one JSON line` };
  try {
    return { ok: true, value: JSON.parse(lines[0] as string) as unknown };
  } catch {
    return { ok: false, error: 'the drafter did not print a JSON response' };
  }
}

/**
 * A drafter that runs `argv` once per request (see docs/drafter-protocol.md). Never throws: every
 * failure is a {@link DraftOutcome}. The caller owns `temp_path` (a fresh path in a private
 * directory, removed after the call); a path that already exists is refused before anything runs.
 *
 * @example
 * ```ts
 * const drafter = commandDrafter(['node', 'examples/drafters/skeleton-drafter.mjs'], { cwd: '/p', timeoutMs: 120_000 });
 * const outcome = await drafter.draft(request, new AbortController().signal);
 * ```
 */
export function commandDrafter(argv: readonly string[], o: CommandDrafterOptions): DrafterPort {
  const maxDraft = o.maxDraftBytes ?? MAX_DRAFT_CHARS;
  return {
    async draft(req, signal): Promise<DraftOutcome> {
      const v = validateDraftRequest(req);
      if (!v.ok)
        return { kind: 'operational-error', detail: `invalid draft request: ${v.issues[0]?.message}` };
      const request = v.value;
      const pre = await lstat(request.temp_path).then(
        () => true,
        (e: NodeJS.ErrnoException) => e.code !== 'ENOENT',
      );
      if (pre)
        return {
          kind: 'operational-error',
          detail: 'the temp path already exists; use a fresh one per call',
        };
      const before = await targetState(request.target_file);
      const contained = {
        cwd: o.cwd,
        timeoutMs: o.timeoutMs,
        signal,
        maxOutputBytes: o.maxResponseChars ?? DEFAULT_MAX_RESPONSE_CHARS,
        ...(o.killGraceMs === undefined ? {} : { killGraceMs: o.killGraceMs }),
        env: {
          ...(o.env ?? {}),
          HANDOFF_DRAFTER_PROTOCOL: DRAFTER_PROTOCOL_VERSION,
          HANDOFF_PROJECT_ROOT: o.cwd,
        },
      };
      const sandbox = o.sandbox ?? null;
      let r: ContainedResult;
      if (sandbox === null) {
        r = await runContained(argv, `${JSON.stringify(request)}\n`, contained);
      } else {
        const s = await draftSandboxed(argv, request, { ...o, sandbox }, contained);
        if (s.discarded.length > 0)
          return {
            kind: 'protocol-error',
            detail: `the drafter wrote in the project outside its temp path (drafters write only the temp path): ${discardedViolation(s.discarded)}`,
          };
        if (s.error !== null) return { kind: 'operational-error', detail: s.error };
        r = s.r;
      }
      // custody first, whatever else happened
      const after = await targetState(request.target_file);
      if (!sameState(before, after)) {
        const restored = await restoreTarget(request.target_file, before);
        return {
          kind: 'protocol-error',
          detail: `the drafter changed the target file ${request.target_file} (drafters write only the temp path); ${restored}`,
        };
      }
      const tail = r.stderr.trim().split('\n').slice(-3).join(' | ');
      if (r.spawnError !== null)
        return { kind: 'operational-error', detail: `cannot start drafter: ${r.spawnError}` };
      if (r.timedOut) {
        return {
          kind: 'operational-error',
          detail: `drafter exceeded its ${Math.max(1, Math.round(o.timeoutMs / 1000))}s budget and was killed`,
        };
      }
      if (signal.aborted) return { kind: 'operational-error', detail: 'draft call aborted' };
      if (r.truncated) return { kind: 'protocol-error', detail: 'drafter output exceeded the size limit' };
      const line = oneJsonLine(r.stdout);
      if (r.code !== 0) {
        return {
          kind: 'operational-error',
          detail: `drafter exited with ${r.code ?? r.signal}${line.ok ? '' : ' and no response'}${tail ? `: ${tail}` : ''}`,
        };
      }
      if (!line.ok) return { kind: 'protocol-error', detail: line.error };
      const status = (line.value as { status?: unknown } | null)?.status;
      if (status !== 'drafted') return checkDraft(line.value, null);
      const text = await readDraft(request.temp_path, maxDraft);
      if (!text.ok) return { kind: 'protocol-error', detail: text.error };
      return checkDraft(line.value, text.text);
    },
  };
}
