/**
 * One line on a test child's standard output, written synchronously (so it is in the pipe before
 * the child's next step starts, and before a SIGKILL can land): `writeSync` in a loop that retries
 * a non-blocking pipe momentarily full (`EAGAIN`) and finishes a short write. Shared by the
 * child-process scripts of the store and persist crash tests.
 */
import { writeSync } from 'node:fs';

/**
 * Writes `line` and a newline to fd 1, completely, before returning.
 *
 * @example
 * ```js
 * import { say } from '../../helpers/child-say.mjs';
 * say(`ack ${r.seq}`); // in the pipe before the next append starts
 * ```
 * @param {string} line
 */
export function say(line) {
  const data = Buffer.from(`${line}\n`);
  let off = 0;
  while (off < data.length) {
    try {
      off += writeSync(1, data, off);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e; // non-blocking pipe momentarily full: retry
    }
  }
}
