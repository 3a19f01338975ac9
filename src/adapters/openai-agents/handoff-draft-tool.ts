/**
 * The handoff-draft tool for a checked sub-agent (layer 3, adapter): a model cannot hash files,
 * so this tool writes the run-contract/v1 handoff of the current dispatch for the files the model
 * says it changed — their baseline advanced from the bytes on disk. The checks after the run still
 * verify every claim: a changed file left out, or one changed elsewhere, is refused.
 */
import type { FunctionTool } from '@openai/agents';
import { z } from 'zod';
import { advanceBaseline } from '../../baseline/index.js';
import { type Dispatch, handoffFor } from '../../contract/index.js';
import { describeThrown } from '../../delegate/describe-thrown.js';
import { currentDispatch } from './current-dispatch.js';
import { matchOwned } from './owned-match.js';
import { openaiAgents } from './sdk.js';

/** The last refusal `handoff_draft` answered in a checked run, by its dispatch. */
const refusals = new WeakMap<Dispatch, string>();

/**
 * What `handoff_draft` last refused in the checked run of `d` (a sub-agent that then answers in
 * prose gets this reason in its refusal), or undefined.
 *
 * @example
 * ```ts
 * lastDraftRefusal(dispatch); // 'refused: README.md is not an owned file; files_changed may name only /repo/src/a.ts'
 * ```
 */
export function lastDraftRefusal(d: Dispatch): string | undefined {
  return refusals.get(d);
}

async function draft(filesChanged: readonly string[]): Promise<string> {
  const d = currentDispatch();
  if (d === undefined) return 'refused: no checked sub-agent run is current';
  const refuse = (why: string) => {
    refusals.set(d, why);
    return why;
  };
  const changed: string[] = [];
  for (const f of filesChanged) {
    const m = matchOwned(d.owned_files, f);
    if (!m.ok) return refuse(`refused: ${m.detail}; files_changed may name only ${d.owned_files.join(', ')}`);
    if (!changed.includes(m.path)) changed.push(m.path);
  }
  try {
    const file_baseline =
      changed.length === 0 ? d.file_baseline : await advanceBaseline(d.file_baseline, changed);
    refusals.delete(d);
    return JSON.stringify(handoffFor(d, { files_changed: changed, file_baseline }));
  } catch (e) {
    return refuse(`could not advance the baseline: ${describeThrown(e)}`);
  }
}

/**
 * `handoff_draft({ files_changed })`: the `solved` run-contract/v1 handoff of the current dispatch
 * with `files_changed` (owned files only, as `ownedFileTools` name them) and their baseline
 * advanced from the disk, as JSON — the answer a sub-agent returns as its final output, or edits
 * first (status `stuck` with the blocker fields). Refusals come back as text; it never throws.
 *
 * @example
 * ```ts
 * const fixer = new Agent({ name: 'fixer', instructions: 'Edit, then answer with handoff_draft’s JSON.',
 *   tools: [...ownedFileTools(), handoffDraftTool()] });
 * ```
 */
export function handoffDraftTool(): FunctionTool<unknown, z.ZodObject> {
  return openaiAgents.tool({
    name: 'handoff_draft',
    description:
      'Get the handoff JSON for your task, given the files you changed. Answer with it as your final output.',
    parameters: z.object({ files_changed: z.array(z.string()) }),
    execute: ({ files_changed }) => draft(files_changed),
  }) as unknown as FunctionTool<unknown, z.ZodObject>;
}
