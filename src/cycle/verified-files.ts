/**
 * Which files a worker's edit is verified on (layer 1, pure; seed 002 § Build Target Policy):
 * every file changed this cycle, not only the target's.
 */
import type { Handoff } from '../contract/index.js';
import type { CycleContext, TargetInfo } from './types.js';

/**
 * The project root implied by the target's file and an accepted path that ends with it (accepted
 * paths are what custody recorded: absolute or project-relative), or null.
 *
 * @example
 * ```ts
 * projectRootOf('A.lean', ['/p/A.lean']); // '/p/'
 * ```
 */
export function projectRootOf(targetFile: string, accepted: readonly string[]): string | null {
  for (const a of accepted) {
    if (a === targetFile) return '';
    if (a.endsWith(`/${targetFile}`)) return a.slice(0, a.length - targetFile.length);
  }
  return null;
}

/**
 * The project-relative files to verify after an edit: the target's file first, then every file
 * accepted this cycle (relative to the root the target's file implies; paths outside it are
 * kept as recorded), then the file of each batch sibling's target whose handoff claims `solved`
 * (a claim that changed nothing is still checked against its own file: not scanned, its target
 * would read as gone), each once.
 *
 * @example
 * ```ts
 * verifiedFiles({ current: T1, accepted: ['/p/A.lean', '/p/B.lean'] }); // ['A.lean', 'B.lean']
 * ```
 */
export function verifiedFiles(
  c: Pick<CycleContext, 'current' | 'accepted'> & Partial<Pick<CycleContext, 'lastWork' | 'targets'>>,
): string[] {
  const t = c.current;
  if (t === null) return [];
  const root = projectRootOf(t.file, c.accepted);
  const rel = c.accepted.map((a) =>
    root !== null && root !== '' && a.startsWith(root) ? a.slice(root.length) : a,
  );
  const siblings = siblingClaims(c)
    .filter(([, claimed]) => claimed === 'solved')
    .map(([st]) => st.file);
  return [...new Set([t.file, ...rel, ...siblings])];
}

/**
 * Each batch sibling's handoff of the last work as `[its target, its claimed status]`, for the
 * siblings whose target the cycle knows (a sibling is attributed by its dispatch, never by the
 * worker's echo); empty when the last work was no handoff or no batch.
 *
 * @example
 * ```ts
 * siblingClaims(ctx); // [[{ id: 'B.lean:2', file: 'B.lean', … }, 'solved']]
 * ```
 */
export function siblingClaims(
  c: Partial<Pick<CycleContext, 'lastWork' | 'targets'>>,
): [TargetInfo, Handoff['status']][] {
  const w = c.lastWork;
  if (w?.kind !== 'handoff') return [];
  const out: [TargetInfo, Handoff['status']][] = [];
  for (const sib of w.batch ?? []) {
    if (sib.kind !== 'handoff') continue;
    const st = c.targets?.find((x) => x.id === sib.dispatch.target);
    if (st !== undefined) out.push([st, sib.handoff.status]);
  }
  return out;
}
