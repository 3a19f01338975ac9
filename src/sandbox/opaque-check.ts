/**
 * Which directories of a finished layer are opaque (layer 3, effects). Node cannot read the
 * `user.overlay.opaque` extended attribute, so the overlay itself answers: the layer is mounted
 * read-only over the project in a fresh user+mount namespace, and a project entry the layer does
 * not shadow (the witness) that is no longer seen means its directory was replaced as a whole.
 */
import { join } from 'node:path';
import { runContained } from '../process/index.js';
import { namespaceShell } from './argv.js';
import type { OpaqueCandidate } from './layer-reader.js';

/**
 * The fixed script: `$1` upper (as the top lower layer), `$2` the project, `$3` the mount point;
 * then one path per candidate; prints the 1-based index of each path that is not seen.
 */
const CHECK_SCRIPT =
  'mount -t overlay overlay -o userxattr,ro,lowerdir="$1":"$2" "$3" || exit 90; shift 3; i=0; for p; do i=$((i+1)); if [ ! -e "$p" ] && [ ! -L "$p" ]; then echo "$i"; fi; done';

/**
 * The opaque directories among `candidates` (project-relative), mounting at the empty directory
 * `mountPoint`.
 *
 * @example
 * ```ts
 * await opaqueDirectories({ upper, project: '/repo', mountPoint }, [{ dir: 'src', witness: 'a.ts' }]);
 * // Set { 'src' }
 * ```
 * @throws Error when the check cannot run (the caller reports the layer as unreadable).
 */
export async function opaqueDirectories(
  at: { readonly upper: string; readonly project: string; readonly mountPoint: string },
  candidates: readonly OpaqueCandidate[],
): Promise<ReadonlySet<string>> {
  const paths = candidates.map((c) => join(at.mountPoint, c.dir, c.witness));
  const r = await runContained(
    [...namespaceShell(CHECK_SCRIPT), at.upper, at.project, at.mountPoint, ...paths],
    '',
    { cwd: '/', timeoutMs: 30_000, inheritEnv: false, env: { PATH: process.env.PATH } },
  );
  if (r.code !== 0) {
    throw new Error(
      `cannot read the layer's opaque directories: ${r.spawnError ?? (r.stderr.trim() || `exit ${r.code ?? r.signal}`)}`,
    );
  }
  const out = new Set<string>();
  for (const line of r.stdout.split('\n')) {
    const c = candidates[Number(line) - 1];
    if (line !== '' && c !== undefined) out.add(c.dir);
  }
  return out;
}
