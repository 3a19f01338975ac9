/**
 * Puts a sandboxed worker's owned-file changes on the host (layer 3, effects): each taken file is
 * published with src/durable's `publishFile` (an exclusive temp beside it, renamed over it: a link
 * at the path is replaced, never written through), each removed one is unlinked. Only the owned
 * files of {@link SandboxRunResult.files} ever reach the host.
 */
import { lstat, mkdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { nodeFsLayer, publishFile } from '../durable/index.js';
import { randomHex } from '../ids/index.js';
import type { LayerOwnedFile } from './run-sandboxed.js';

const fsl = nodeFsLayer();

/**
 * Applies the owned files' layer outcome to the host; resolves to the paths it could not write.
 *
 * @example
 * ```ts
 * const r = await runSandboxed(argv, stdin, { projectRoot, owned, timeoutMs });
 * if (r.layerError === null) await applyLayerFiles(r.files); // []
 * ```
 */
export async function applyLayerFiles(files: ReadonlyMap<string, LayerOwnedFile>): Promise<string[]> {
  const failed: string[] = [];
  for (const [file, f] of files) {
    try {
      if (f === null) {
        if ((await lstat(file).catch(() => null)) !== null) await rm(file, { force: true });
        continue;
      }
      await mkdir(dirname(file), { recursive: true });
      publishFile(fsl, file, f.bytes, {
        label: 'sandbox_apply',
        tmpPath: join(dirname(file), `.${basename(file)}.handoff-sandbox-${randomHex(8)}`),
        mode: f.mode,
        exactMode: true,
        sync: 'none',
      });
    } catch {
      failed.push(file);
    }
  }
  return failed;
}
