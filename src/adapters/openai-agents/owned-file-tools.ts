/**
 * File tools for a checked sub-agent (layer 3, adapter): read and write the owned files of the
 * current dispatch and nothing else. Whatever path the model names — `../`, an absolute path
 * elsewhere, a link it planted — the tools refuse it before touching the disk, and they never
 * follow a symbolic link. (The checks after the run catch what other tools do.)
 */
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { FunctionTool } from '@openai/agents';
import { z } from 'zod';
import { describeThrown } from '../../delegate/describe-thrown.js';
import { currentDispatch } from './current-dispatch.js';
import { matchOwned } from './owned-match.js';
import { openaiAgents } from './sdk.js';

/**
 * The longest owned file `read_owned_file` returns, in bytes (256 KiB).
 *
 * @example
 * ```ts
 * MAX_READ_BYTES; // 262144
 * ```
 */
export const MAX_READ_BYTES = 256 * 1024;

const NOT_IN_RUN = 'refused: no checked sub-agent run is current, so no file is owned';

/** The owned file `path` names, checked to be a regular file (or absent) in its own real folder. */
async function ownedTarget(
  path: unknown,
): Promise<{ ok: true; path: string } | { ok: false; detail: string }> {
  const d = currentDispatch();
  if (d === undefined) return { ok: false, detail: NOT_IN_RUN };
  const m = matchOwned(d.owned_files, path);
  if (!m.ok) return { ok: false, detail: `refused: ${m.detail}; you own ${d.owned_files.join(', ')}` };
  const folder = await realpath(dirname(m.path)).catch(() => null);
  if (folder !== dirname(m.path))
    return { ok: false, detail: `refused: the folder of ${m.path} is not what it was` };
  return { ok: true, path: m.path };
}

async function readOwned(path: string): Promise<string> {
  const t = await ownedTarget(path);
  if (!t.ok) return t.detail;
  try {
    const fh = await open(t.path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const st = await fh.stat();
      if (!st.isFile()) return `refused: ${t.path} is not a regular file`;
      if (st.size > MAX_READ_BYTES)
        return `refused: ${t.path} is ${st.size} bytes; the limit is ${MAX_READ_BYTES}`;
      return (await fh.readFile()).toString('utf8');
    } finally {
      await fh.close();
    }
  } catch (e) {
    return `could not read ${t.path}: ${describeThrown(e)}`;
  }
}

async function writeOwned(path: string, content: string): Promise<string> {
  const t = await ownedTarget(path);
  if (!t.ok) return t.detail;
  try {
    const fh = await open(t.path, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
    try {
      if (!(await fh.stat()).isFile()) return `refused: ${t.path} is not a regular file`;
      await fh.truncate(0);
      await fh.writeFile(content, 'utf8');
    } finally {
      await fh.close();
    }
    return `wrote ${Buffer.byteLength(content, 'utf8')} bytes to ${t.path}`;
  } catch (e) {
    return `could not write ${t.path}: ${describeThrown(e)}`;
  }
}

/**
 * Two function tools for a sub-agent run by `agentWorker` / `checkedAgentTool`:
 * `read_owned_file({ path })` and `write_owned_file({ path, content })`. A path names an owned file
 * of the current dispatch by its absolute path or a relative suffix (`src/greeting.ts`); any other
 * path, a folder that is no longer its real self, or a link in place of the file is refused with a
 * message the model reads (the tools never throw). Reads stop at {@link MAX_READ_BYTES}.
 *
 * @example
 * ```ts
 * const fixer = new Agent({ name: 'fixer', instructions: '…', tools: [...ownedFileTools(), handoffDraftTool()] });
 * ```
 */
export function ownedFileTools(): [FunctionTool<unknown, z.ZodObject>, FunctionTool<unknown, z.ZodObject>] {
  const read = openaiAgents.tool({
    name: 'read_owned_file',
    description: 'Read one of the files you own (path: as listed in your task).',
    parameters: z.object({ path: z.string() }),
    execute: ({ path }) => readOwned(path),
  });
  const write = openaiAgents.tool({
    name: 'write_owned_file',
    description: 'Replace the whole content of one of the files you own.',
    parameters: z.object({ path: z.string(), content: z.string() }),
    execute: ({ path, content }) => writeOwned(path, content),
  });
  return [read, write] as [FunctionTool<unknown, z.ZodObject>, FunctionTool<unknown, z.ZodObject>];
}
