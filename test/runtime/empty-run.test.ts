/**
 * An empty run as the library says it: `runProject` on a project with no open target ends
 * `stopped`/`queue-empty` with "no targets found" and `empty: true` (the CLI's exit 5 reads the
 * flag), unless `allowEmpty` keeps the cycle's `solved` — still flagged `empty`. A run that worked
 * is never empty.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { advanceBaseline } from '../../src/baseline/index.js';
import { type Dispatch, type Handoff, handoffFor } from '../../src/contract/index.js';
import { emptyRunVerdict, emptyWhy } from '../../src/runtime/empty-run.js';
import { runProject } from '../../src/runtime/project-run.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-empty-run-'));
  await writeFile(join(dir, 'Done.lean'), 'theorem a : 1 = 1 := rfl\n');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const never = async (d: Dispatch): Promise<{ handoff: Handoff }> => {
  throw new Error(`no worker may run on an empty run (got ${d.target})`);
};

describe('runProject on a project with no open target', () => {
  it('ends stopped/queue-empty with "no targets found: <why>" and empty: true', async () => {
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove', commit: 'never' },
      worker: { inProcess: never },
    });
    expect(r.empty).toBe(true);
    expect(r.handoff).toMatchObject({ status: 'stopped', stop_reason: 'queue-empty', next_action: 'stop' });
    expect(r.handoff.failed_avenues[0]).toBe(
      'no targets found: the lean profile found no sorry marker under . (--allow-empty accepts an empty run)',
    );
    expect(r.emptyWhy).toBe(emptyWhy('.', 'lean', ['sorry'], false));
  });

  it('allowEmpty keeps solved and still says empty', async () => {
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove', commit: 'never' },
      worker: { inProcess: never },
      allowEmpty: true,
    });
    expect(r.empty).toBe(true);
    expect(r.handoff.status).toBe('solved');
    expect(r.handoff.failed_avenues).toEqual([]);
  });

  it('a run that solved a target is not empty', async () => {
    await writeFile(join(dir, 'A.lean'), 'theorem b : 2 = 2 := by\n  sorry\n');
    const r = await runProject({
      projectRoot: dir,
      flags: { target: 'A.lean', scope: 'file', mode: 'autoprove', commit: 'never' },
      worker: {
        inProcess: async (d) => {
          const f = d.owned_files[0] as string;
          await writeFile(f, (await readFile(f, 'utf8')).replace('sorry', 'rfl'));
          const b = await advanceBaseline(d.file_baseline, [f]);
          return { handoff: handoffFor(d, { files_changed: [f], file_baseline: b }) };
        },
      },
    });
    expect(r.handoff.status).toBe('solved');
    expect(r.empty).toBe(false);
    expect(r.emptyWhy).toBeNull();
  });
});

describe('emptyRunVerdict (pure)', () => {
  const solved = {
    status: 'solved',
    stop_reason: null,
    next_action: 'stop',
    failed_avenues: [],
  } as unknown as Handoff;
  it('a stored final handoff is never empty', () => {
    const v = emptyRunVerdict(solved, { initialCount: 0, handoffs: [] }, 'R#3', {
      allowEmpty: false,
      why: 'w',
    });
    expect(v).toEqual({ empty: false, handoff: solved });
  });
  it('an unstored run with no target and no handoff is empty', () => {
    const v = emptyRunVerdict(solved, { initialCount: 0, handoffs: [] }, null, {
      allowEmpty: false,
      why: 'w',
    });
    expect(v.empty).toBe(true);
    expect(v.handoff.failed_avenues).toEqual(['no targets found: w']);
  });
});
