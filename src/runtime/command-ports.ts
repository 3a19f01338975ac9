/**
 * Reviewer and diagnostics ports backed by a command (`--reviewer CMD`, `--diagnostics CMD`): the
 * request is one JSON object on stdin, the response one JSON object on stdout, validated with zod.
 * Argument arrays only; never a shell.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { NextActionSchema } from '../contract/index.js';
import { HandoffError } from '../errors/index.js';
import { runContained } from '../process/index.js';
import type { SandboxNetwork } from '../sandbox/index.js';
import type { DiagnosticsPort, ReviewerPort } from './ports.js';
import { runReadOnly } from './read-only-run.js';
import { type CheckSandbox, checkSandboxNow, runOnSnapshot } from './snapshot-check.js';

const TargetSchema = z.object({ id: z.string(), file: z.string(), line: z.number().int(), goal: z.string() });
const DiagnosticsResponseSchema = z.object({
  targets: z.array(TargetSchema),
  errors: z.array(z.string()).default([]),
  ok: z.boolean().optional(),
  inconclusive: z.boolean().optional(),
});
const ReviewResponseSchema = z.object({
  primary_blocker: z.string().nullable().default(null),
  top_blockers: z.array(z.string()).default([]),
  evidence: z.array(z.string()).default([]),
  falsification: z.boolean().default(false),
  next_action: NextActionSchema.default('continue'),
  suggestions: z.array(z.string()).default([]),
});

async function callJson(
  argv: readonly string[],
  cwd: string,
  request: unknown,
  timeoutMs: number,
): Promise<unknown> {
  return parsedAnswer(argv, await runContained(argv, `${JSON.stringify(request)}\n`, { cwd, timeoutMs }));
}

/** A finished command's one JSON object, or the failure as a HandoffError. */
function parsedAnswer(argv: readonly string[], r: Awaited<ReturnType<typeof runContained>>): unknown {
  if (r.spawnError !== null) throw new HandoffError('io_error', `cannot start ${argv[0]}: ${r.spawnError}`);
  if (r.timedOut) throw new HandoffError('io_error', `${argv[0]} timed out`);
  if (r.code !== 0)
    throw new HandoffError('io_error', `${argv[0]} exited with ${r.code}: ${r.stderr.slice(-200)}`);
  try {
    return JSON.parse(r.stdout) as unknown;
  } catch {
    throw new HandoffError('protocol_error', `${argv[0]} did not print one JSON object`);
  }
}

/** {@link callJson} in the sandbox: a write in the project is a `protocol_error` naming it. */
async function callJsonReadOnly(
  argv: readonly string[],
  cwd: string,
  request: unknown,
  timeoutMs: number,
  sandbox: { readonly network: SandboxNetwork },
): Promise<unknown> {
  const { result: r, wrote } = await runReadOnly(
    argv,
    `${JSON.stringify(request)}\n`,
    { cwd, timeoutMs },
    sandbox,
  );
  if (wrote.length > 0)
    throw new HandoffError(
      'protocol_error',
      `${argv[0]} wrote in the project (discarded by the sandbox): ${wrote.slice(0, 5).join(', ')}`,
    );
  return parsedAnswer(argv, r);
}

/**
 * Options of {@link commandDiagnostics}.
 *
 * @example
 * ```ts
 * const o: CommandDiagnosticsOptions = {
 *   sandbox: () => held.sandbox ?? null,
 *   bytesOf: (abs) => held.custody?.verified(abs),
 *   snapshotFiles: () => owned,
 * };
 * ```
 */
export interface CommandDiagnosticsOptions {
  /**
   * Run the checker in the sandbox (the run's decision and network policy; a getter is read at
   * each question; `cwd` a realpath): the project read-only, every write discarded. Default null:
   * contained only.
   */
  readonly sandbox?: CheckSandbox;
  /**
   * The runtime's snapshot of a file (absolute path): the verified bytes it accepted (null: the
   * worker deleted it), or undefined when it holds none. The checker must judge these bytes:
   * sandboxed they are placed in its layer; contained, a live file that differs from them around
   * the check is an error on that file (`ok: false`), named.
   */
  readonly bytesOf?: (abs: string) => { readonly bytes: Buffer | null } | undefined;
  /** Files (absolute) judged from the snapshot besides the request's `files` (e.g. the owned files). */
  readonly snapshotFiles?: () => readonly string[];
}

/**
 * The bytes a check must judge: the runtime's snapshot of `files` (project-relative) and of
 * `options.snapshotFiles`, where it holds one (absolute path → bytes; null: deleted). Shared by
 * {@link commandDiagnostics} and the Lean JSON adapter.
 *
 * @example
 * ```ts
 * const snap = checkSnapshot(['A.lean'], '/repo', { bytesOf: (abs) => held.get(abs) });
 * await runOnSnapshot(argv, '', { cwd: '/repo', timeoutMs, sandbox: null, snapshot: snap });
 * ```
 */
export function checkSnapshot(
  files: readonly string[],
  cwd: string,
  options: CommandDiagnosticsOptions,
): Map<string, Buffer | null> {
  const snapshot = new Map<string, Buffer | null>();
  for (const abs of [...files.map((f) => resolve(cwd, f)), ...(options.snapshotFiles?.() ?? [])]) {
    const held = options.bytesOf?.(abs);
    if (held !== undefined) snapshot.set(abs, held.bytes);
  }
  return snapshot;
}

/**
 * A diagnostics port that runs `argv` once per question with
 * `{ question, tier, maxTier, files, project_root }` on stdin (`question`: discover | edit |
 * checkpoint; `tier`: file-fast | file-deps | module | project, the ladder's choice) and expects
 * `{ targets: [{id, file, line, goal}], errors: [...], ok?, inconclusive? }` on stdout;
 * `inconclusive: true` makes the runtime ask the next heavier tier (up to `maxTier`). With
 * `options` the checker judges the runtime's snapshot (see {@link CommandDiagnosticsOptions}).
 *
 * @example
 * ```ts
 * const d = commandDiagnostics(['lake-check'], '/repo', 600_000, { sandbox: { network: 'deny' } });
 * ```
 */
export function commandDiagnostics(
  argv: readonly string[],
  cwd: string,
  timeoutMs: number,
  options: CommandDiagnosticsOptions = {},
): DiagnosticsPort {
  return {
    async diagnose(input) {
      const snapshot = checkSnapshot(input.files, cwd, options);
      const { result, drift } = await runOnSnapshot(
        argv,
        `${JSON.stringify({ ...input, project_root: cwd })}\n`,
        {
          cwd,
          timeoutMs,
          sandbox: checkSandboxNow(options.sandbox),
          snapshot,
        },
      );
      const raw = parsedAnswer(argv, result);
      const r = DiagnosticsResponseSchema.safeParse(raw);
      if (!r.success)
        throw new HandoffError('protocol_error', `diagnostics response: ${r.error.issues[0]?.message}`);
      // a checker that may have read other bytes than the accepted ones judged nothing
      const errors = [
        ...r.data.errors,
        ...drift.map((f) => `${f}:0:the check did not judge the accepted bytes: changed on disk around it`),
      ];
      return {
        tier: input.tier,
        targets: r.data.targets,
        errors,
        ok: drift.length === 0 && (r.data.ok ?? r.data.errors.length === 0),
        ...(r.data.inconclusive === undefined ? {} : { inconclusive: r.data.inconclusive }),
      };
    },
  };
}

/** Options of {@link commandReviewer}. */
export interface CommandReviewerOptions {
  /**
   * Run the reviewer in the sandbox (decide with `probeSandbox` first; `cwd` a realpath): the
   * project read-only, every write discarded; a reviewer that wrote in the project is refused
   * (`protocol_error` naming the paths).
   */
  readonly sandbox?: { readonly network: SandboxNetwork } | null;
}

/**
 * A reviewer port that runs `argv` with the review request on stdin and expects
 * `{ primary_blocker, top_blockers, evidence, falsification, next_action, suggestions }`.
 *
 * @example
 * ```ts
 * const r = commandReviewer(['python3', 'review.py'], '/repo', 600_000, { sandbox: { network: 'deny' } });
 * ```
 */
export function commandReviewer(
  argv: readonly string[],
  cwd: string,
  timeoutMs: number,
  options: CommandReviewerOptions = {},
): ReviewerPort {
  return {
    async review(input) {
      const raw =
        options.sandbox == null
          ? await callJson(argv, cwd, input, timeoutMs)
          : await callJsonReadOnly(argv, cwd, input, timeoutMs, options.sandbox);
      const r = ReviewResponseSchema.safeParse(raw);
      if (!r.success)
        throw new HandoffError('protocol_error', `review response: ${r.error.issues[0]?.message}`);
      return {
        mode: input.mode,
        primaryBlocker: r.data.primary_blocker,
        topBlockers: r.data.top_blockers.slice(0, 3),
        evidence: r.data.evidence,
        falsification: r.data.falsification,
        nextAction: r.data.next_action,
        suggestions: r.data.suggestions,
      };
    },
  };
}
