/**
 * Directory fsync: makes a created, renamed, linked or removed directory entry durable.
 */
import { type FsLayer, O } from './fs-layer.js';
import { StepFailure } from './step-failure.js';

/**
 * fsyncs a directory (so a created, renamed or removed entry is durable).
 *
 * @example
 * ```ts
 * fsyncDir(fsl, runDir, 'dir_fsync');
 * ```
 * @throws StepFailure(step) when the directory cannot be opened or fsync'd.
 */
export function fsyncDir(fsl: FsLayer, dir: string, step: string): void {
  let fd: number;
  try {
    fd = fsl.open(dir, O.O_RDONLY | O.O_DIRECTORY);
  } catch (e) {
    throw new StepFailure(step, e);
  }
  try {
    fsl.fsync(fd);
  } catch (e) {
    throw new StepFailure(step, e);
  } finally {
    try {
      fsl.close(fd);
    } catch {
      // directory descriptor: nothing to lose
    }
  }
}
