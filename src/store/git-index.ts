/**
 * The `git_tracked` guard of create (effects: runs git with argument arrays). A run store must
 * not live where Git tracks it: ignore rules never untrack a file, so a journal under a tracked
 * `runs/` would be committed with the project. The check asks the repository that contains the
 * runs directory (whichever one that is, not necessarily the project's) for indexed paths under
 * it. No Git, no repository, or a runs directory outside the work tree: nothing is tracked.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runGitSync } from '../git/index.js';

/** Hardened git; null when git is absent, not a repository, or failed: nothing provably tracked. */
function git(args: readonly string[]): Buffer | null {
  return runGitSync(process.cwd(), args);
}

/**
 * Paths under `runsDir` that are in the Git index of the repository containing it (relative to
 * that repository's top level); empty when none, or when Git or a repository is absent.
 *
 * @example
 * ```ts
 * gitTrackedUnder('/repo/.handoff/runs'); // [] normally; ['.handoff/runs/x.json'] if someone `git add -f`'d it
 * ```
 */
export function gitTrackedUnder(runsDir: string): string[] {
  // the nearest existing directory at or above runsDir anchors the repository lookup
  let anchor = path.resolve(runsDir);
  const rest: string[] = [];
  for (;;) {
    try {
      if (fs.statSync(anchor).isDirectory()) break;
    } catch {
      // absent: go up
    }
    const up = path.dirname(anchor);
    if (up === anchor) return [];
    rest.unshift(path.basename(anchor));
    anchor = up;
  }
  const top = git(['-C', anchor, 'rev-parse', '--show-toplevel']);
  if (top === null) return [];
  const toplevel = top.toString('utf8').replace(/\n$/, '');
  if (toplevel === '') return [];
  let rel: string;
  try {
    rel = path.relative(fs.realpathSync(toplevel), path.join(fs.realpathSync(anchor), ...rest));
  } catch {
    return [];
  }
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return [];
  const out = git(['-C', toplevel, 'ls-files', '-z', '--', rel === '' ? '.' : rel]);
  if (out === null) return [];
  return out
    .toString('utf8')
    .split('\0')
    .filter((p) => p !== '');
}
