/**
 * A checked delegation as an OpenAI Agents SDK function tool (layer 3, adapter): the model calls
 * the tool, the call's arguments become a dispatch whose owned files are contained, the rerun
 * guard is asked, the worker runs under `delegate` with every custody check, and the tool's result
 * is the checked handoff — also when the call is refused or the worker fails.
 */
import { resolve } from 'node:path';
import type { FunctionTool } from '@openai/agents';
import type { z } from 'zod';
import type { Dispatch } from '../../contract/index.js';
import { protocolErrorHandoff } from '../../contract/protocol-error.js';
import { watchedStoreRoot } from '../../delegate/before.js';
import { createDispatch } from '../../delegate/create-dispatch.js';
import { delegate } from '../../delegate/delegate.js';
import { describeThrown } from '../../delegate/describe-thrown.js';
import type { CreateDispatchInput } from '../../delegate/dispatch-record.js';
import { operationalErrorHandoff, stoppedHandoff } from '../../delegate/refusal-handoff.js';
import type { DelegateWorker } from '../../delegate/run-worker.js';
import { HandoffError } from '../../errors/index.js';
import type { FenceResolver } from '../../runtime/statement-fence.js';
import type { Store } from '../../store/index.js';
import { containOwnedFiles } from './owned-scope.js';
import { createRelaunchMemory } from './relaunch-memory.js';
import { issueResult } from './run-results.js';
import { openaiAgents } from './sdk.js';
import type { CheckedToolResult } from './tool-result.js';

/**
 * A zod object schema of a tool's arguments (the SDK's strict function-tool parameters).
 *
 * @example
 * ```ts
 * const p: ToolParameters = z.object({ file: z.string(), instruction: z.string() });
 * ```
 */
export type ToolParameters = z.ZodObject;

/**
 * What every checked tool is configured with: its name and description for the model, its
 * arguments, how they become a task, and where and how the task is checked.
 *
 * @example
 * ```ts
 * const o: CheckedToolOptions<typeof params> = {
 *   name: 'edit_file', description: 'Edit one source file', parameters: params,
 *   dispatch: (a) => ({ target: `${a.file}:1`, scope: 'file', mode: 'autoprove', ownedFiles: [a.file] }),
 *   projectRoot: '/repo', store,
 * };
 * ```
 */
export interface CheckedToolOptions<P extends ToolParameters> {
  /** The tool's name, as the model calls it. */
  readonly name: string;
  /** What the tool does and when to use it, for the model. */
  readonly description: string;
  /** The tool's arguments (a zod object; the SDK validates a call's arguments against it). */
  readonly parameters: P;
  /**
   * The task of one call: a `createDispatch` input built from the (untrusted) arguments. Relative
   * `ownedFiles` resolve against `projectRoot`; every one is contained before anything runs. Put
   * the caller's instruction in `context.goal_state` to hand it to the worker with the dispatch.
   */
  readonly dispatch: (args: z.infer<P>) => CreateDispatchInput | Promise<CreateDispatchInput>;
  /**
   * The project: owned files must be inside it, and everything else in it is watched (default:
   * the working directory when the tool is created).
   */
  readonly projectRoot?: string;
  /** Narrows the files a call may own: called with each root-relative path (`/` separators). */
  readonly allow?: (relativePath: string) => boolean;
  /** The run store: each dispatched call is a journaled run, its handoff cited `<run_id>#<seq>`. */
  readonly store?: Store;
  /** Milliseconds a worker may take (default: no limit). */
  readonly timeoutMs?: number;
  /** The statement fence's header extractor per file (default: Lean headers for `.lean`). */
  readonly fence?: FenceResolver;
}

/**
 * The options of {@link delegateTool}: a checked tool and the worker it runs.
 *
 * @example
 * ```ts
 * const o: DelegateToolOptions<typeof params> = { ...checked, worker: async (d) => mySubagent(d) };
 * ```
 */
export interface DelegateToolOptions<P extends ToolParameters> extends CheckedToolOptions<P> {
  /** The worker `delegate` runs on each dispatch: its answer is checked, not believed. */
  readonly worker: DelegateWorker;
}

const MAX_TIMEOUT = 2 ** 31 - 1;

function checkOptions(o: DelegateToolOptions<ToolParameters>): void {
  if (typeof o !== 'object' || o === null)
    throw new HandoffError('usage', 'delegateTool needs an options object');
  if (typeof o.name !== 'string' || o.name.trim() === '')
    throw new HandoffError('usage', 'delegateTool needs a name');
  if (typeof o.dispatch !== 'function')
    throw new HandoffError('usage', 'delegateTool needs dispatch: (args) => a createDispatch input');
  const w = o.worker as unknown;
  const runnable =
    typeof w === 'function' ||
    (typeof w === 'object' && w !== null && typeof (w as { run?: unknown }).run === 'function');
  if (!runnable)
    throw new HandoffError('usage', 'delegateTool needs a worker: a function or an object with run');
  const t = o.timeoutMs;
  if (t !== undefined && !(Number.isInteger(t) && t >= 1 && t <= MAX_TIMEOUT)) {
    throw new HandoffError(
      'usage',
      `timeoutMs must be an integer from 1 to ${MAX_TIMEOUT}, got ${String(t)}`,
    );
  }
  if (o.allow !== undefined && typeof o.allow !== 'function')
    throw new HandoffError('usage', 'allow must be a function');
}

function identityOf(input: unknown): Record<string, unknown> {
  if (typeof input !== 'object' || input === null) return {};
  const get = (k: string): unknown => {
    try {
      return Object.hasOwn(input, k) ? (input as Record<string, unknown>)[k] : undefined;
    } catch {
      return undefined;
    }
  };
  return { target: get('target'), scope: get('scope'), mode: get('mode') };
}

function refusedArguments(input: unknown, detail: string): CheckedToolResult {
  const why = `the tool call was refused before dispatch: ${detail}`;
  return issueResult({
    outcome: 'refused',
    handoff: protocolErrorHandoff(identityOf(input), why),
    violations: [{ check: 'arguments', detail }],
    cite: null,
  });
}

/**
 * Runs one call of a checked tool; never throws.
 *
 * @example
 * ```ts
 * const r = await runCheckedCall(options, memory, args, signal);
 * ```
 */
async function runCheckedCall<P extends ToolParameters>(
  o: DelegateToolOptions<P>,
  projectRoot: string,
  memory: ReturnType<typeof createRelaunchMemory>,
  args: z.infer<P>,
  signal: AbortSignal | undefined,
): Promise<CheckedToolResult> {
  let input: CreateDispatchInput;
  try {
    input = await o.dispatch(args);
  } catch (e) {
    return refusedArguments(undefined, `the arguments do not make a task: ${describeThrown(e)}`);
  }
  const forbidden = await watchedStoreRoot(o.store).catch(() => null);
  const owned = await containOwnedFiles(identityOwned(input), {
    root: projectRoot,
    ...(forbidden === null ? {} : { forbidden: [forbidden] }),
    ...(o.allow === undefined ? {} : { allow: o.allow }),
  });
  if (!owned.ok) return refusedArguments(input, owned.detail);
  let dispatch: Dispatch;
  try {
    dispatch = await createDispatch({ ...input, ownedFiles: owned.paths, cwd: projectRoot });
  } catch (e) {
    return refusedArguments(input, describeThrown(e));
  }
  const verdict = memory.verdict(dispatch);
  if (!verdict.allowed) {
    const detail = `rerun guard: ${verdict.reason}; a relaunch needs ${verdict.required_evidence ?? 'new evidence'}`;
    return issueResult({
      outcome: 'refused',
      handoff: stoppedHandoff(dispatch, 'protocol-error', detail),
      violations: [{ check: 'rerun_guard', detail }],
      cite: null,
    });
  }
  try {
    const r = await delegate(dispatch, o.worker, {
      projectRoot,
      ...(o.store === undefined ? {} : { store: o.store }),
      ...(o.timeoutMs === undefined ? {} : { timeoutMs: o.timeoutMs }),
      ...(o.fence === undefined ? {} : { fence: o.fence }),
      ...(signal instanceof AbortSignal ? { signal } : {}),
    });
    memory.remember(r.handoff);
    return issueResult({
      outcome: r.outcome,
      handoff: r.handoff,
      violations: r.violations,
      cite: r.cite ?? null,
    });
  } catch (e) {
    const handoff = operationalErrorHandoff(dispatch, `the delegation could not run: ${describeThrown(e)}`);
    memory.remember(handoff);
    return issueResult({ outcome: 'failed', handoff, violations: [], cite: null });
  }
}

/**
 * A call's raw argument text read against the tool's schema: JSON, then the zod object.
 *
 * @example
 * ```ts
 * readArguments(z.object({ file: z.string() }), '{"file": 1}').ok; // false
 * ```
 */
function readArguments(
  schema: ToolParameters,
  input: unknown,
): { ok: true; value: unknown } | { ok: false; detail: string } {
  if (typeof input !== 'string') return { ok: false, detail: 'no argument text' };
  let value: unknown;
  try {
    value = JSON.parse(input === '' ? '{}' : input) as unknown;
  } catch (e) {
    return { ok: false, detail: `not JSON (${describeThrown(e, 200)})` };
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
  return { ok: false, detail: issues };
}

function identityOwned(input: unknown): unknown {
  if (typeof input !== 'object' || input === null) return undefined;
  try {
    return (input as { ownedFiles?: unknown }).ownedFiles;
  } catch {
    return undefined;
  }
}

/**
 * An SDK function tool whose every call is one checked delegation, answering the model with a
 * {@link CheckedToolResult}. Unlike the SDK's `handoff()` — which passes the conversation to
 * another agent and returns nothing to the caller — the calling agent gets a validated
 * run-contract/v1 handoff back and keeps the turn.
 *
 * One call: the arguments (checked by the SDK against `parameters`; malformed JSON becomes a
 * refused result, not an exception) become a task through `dispatch`; its owned files are
 * contained inside `projectRoot` (no `..`, no absolute path elsewhere, no symbolic link on the way,
 * nothing under `.git` or the run store, only files `allow` accepts); the task is recorded as a
 * dispatch; the rerun guard refuses the same task after a refusal or a blocker without new
 * evidence (`evidence_delta`); then `delegate` runs `worker` with every check of `DELEGATE_CHECKS`
 * and journals the attempt to `store`. Calls of one tool that share a project take turns.
 *
 * @example
 * ```ts
 * const params = z.object({ file: z.string(), instruction: z.string(), evidence: z.array(z.string()) });
 * const editFile = delegateTool({
 *   name: 'edit_file',
 *   description: 'Have a worker edit one file of the project; answers with a checked handoff.',
 *   parameters: params,
 *   dispatch: (a) => ({ target: `${a.file}:1`, scope: 'file', mode: 'autoprove', ownedFiles: [a.file],
 *     context: { goal_state: a.instruction }, evidenceDelta: a.evidence }),
 *   worker: async (d) => myWorker(d),
 *   projectRoot: '/repo',
 *   store: createFsStore({ projectRoot: '/repo' }),
 * });
 * const lead = new Agent({ name: 'lead', instructions: '…', tools: [editFile] });
 * ```
 * @throws HandoffError `usage` for invalid options (no name, no `dispatch`, no worker, a bad
 * `timeoutMs`); nothing a model or worker does makes a call throw.
 */
export function delegateTool<P extends ToolParameters>(
  options: DelegateToolOptions<P>,
): FunctionTool<unknown, P, CheckedToolResult> {
  checkOptions(options as unknown as DelegateToolOptions<ToolParameters>);
  const projectRoot = resolve(options.projectRoot ?? process.cwd());
  const memory = createRelaunchMemory();
  const sdkTool = openaiAgents.tool({
    name: options.name,
    description: options.description,
    parameters: options.parameters as ToolParameters,
    strict: true,
    execute: () => '',
  });
  // The tool reads its own arguments: the SDK would answer arguments that are not JSON, or not the
  // schema, with a message of its own; here they are a refused call with a valid handoff like any
  // other refusal. (`invoke` is the FunctionTool member the runner calls with the raw text.)
  const invoke = async (_context: unknown, input: string, details?: { readonly signal?: AbortSignal }) => {
    const args = readArguments(options.parameters, input);
    if (!args.ok)
      return refusedArguments(undefined, `the arguments are not valid for this tool: ${args.detail}`);
    return runCheckedCall(options, projectRoot, memory, args.value as z.infer<P>, details?.signal);
  };
  const t = { ...sdkTool, invoke };
  return t as unknown as FunctionTool<unknown, P, CheckedToolResult>;
}
