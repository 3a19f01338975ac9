/**
 * Durable append-only JSON-lines files (effects layer): one `write` per record followed by
 * `fsync`; a torn last line (a crash mid-write) is ignored on read and cut off before the next
 * append. Shared by the file journal and the file effect ledger.
 */
import { mkdir, open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { HandoffError } from '../errors/index.js';

async function syncDir(dir: string): Promise<void> {
  try {
    const fd = await open(dir, 'r');
    try {
      await fd.sync();
    } finally {
      await fd.close();
    }
  } catch {
    // directories cannot be fsync'd on every platform; the file itself was fsync'd
  }
}

/**
 * Appends `line` (without newline) plus `\n` durably. A torn tail left by a crash is truncated
 * first so it never merges with the new record.
 *
 * @example
 * ```ts
 * await appendLineDurably('/tmp/j/x.jsonl', JSON.stringify(record));
 * ```
 * @throws HandoffError `io_error` when the file cannot be written.
 */
export async function appendLineDurably(path: string, line: string): Promise<void> {
  if (line.includes('\n')) throw new HandoffError('internal', 'a journal line may not contain a newline');
  try {
    await mkdir(dirname(path), { recursive: true });
    const fd = await open(path, 'a+');
    let created = false;
    try {
      const { size } = await fd.stat();
      created = size === 0;
      if (size > 0) {
        const last = Buffer.alloc(1);
        await fd.read(last, 0, 1, size - 1);
        if (last[0] !== 0x0a) {
          const bytes = await readFile(path);
          await fd.truncate(bytes.lastIndexOf(0x0a) + 1);
        }
      }
      await fd.write(`${line}\n`);
      await fd.sync();
    } finally {
      await fd.close();
    }
    if (created) await syncDir(dirname(path));
  } catch (e) {
    if (e instanceof HandoffError) throw e;
    throw new HandoffError('io_error', `cannot append to ${path}: ${(e as Error).message}`, {
      details: { path },
      cause: e,
    });
  }
}

/**
 * Reads the complete lines of a JSON-lines file (a torn last line is dropped); `[]` when absent.
 *
 * @example
 * ```ts
 * for (const line of await readCompleteLines(path)) JSON.parse(line);
 * ```
 * @throws HandoffError `io_error` for read errors other than a missing file.
 */
export async function readCompleteLines(path: string): Promise<string[]> {
  let text: string;
  try {
    text = (await readFile(path)).toString('utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new HandoffError('io_error', `cannot read ${path}: ${(e as Error).message}`, {
      details: { path },
      cause: e,
    });
  }
  const end = text.lastIndexOf('\n');
  return end < 0 ? [] : text.slice(0, end).split('\n');
}
