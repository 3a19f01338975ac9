/**
 * Batches (src/runtime/batch-worker.ts) with real child-process workers on real files and git:
 * dispatches with disjoint owned files run at the same time (a rendezvous only concurrent workers
 * pass) and neither mistakes the other's writes to its own files for a custody violation;
 * dispatches sharing a file, or beyond `maxDelegates`, never overlap in time; a worker writing
 * outside every owned file is still refused; a watched run store makes the batch sequential.
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkerInput, WorkOutcome } from '../../src/cycle/types.js';
import { runBatch } from '../../src/runtime/batch-worker.js';
import { createVerifiedCustody } from '../../src/runtime/verified-custody.js';
import { gitDirsOf } from '../../src/runtime/workspace-watch.js';
import {
  createRoleProject,
  distUrl,
  type RoleProject,
  roleWorker,
  roleWorkerInput,
} from '../helpers/role-project.js';

const dist = distUrl;

/** `worker.mjs <behaviour> <aside> <expected>`: logs start/end, optionally waits for `expected` starts. */
const WORKER = `
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { advanceBaseline } from '${dist('baseline/index.js')}';
import { handoffFor } from '${dist('contract/index.js')}';
const [what, aside, expected] = process.argv.slice(2);
const d = JSON.parse(readFileSync(0, 'utf8'));
const tag = d.target.replace(/[^A-Za-z0-9]/g, '_');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
appendFileSync(join(aside, 'log'), 'start ' + d.target + '\\n');
writeFileSync(join(aside, tag + '.started'), '');
const a = d.owned_files[0];
if (what === 'rendezvous') {
  // passes only when every expected dispatch has started: they run at the same time
  const want = expected.split(',');
  for (let i = 0; i < 200 && !want.every((t) => existsSync(join(aside, t.replace(/[^A-Za-z0-9]/g, '_') + '.started'))); i++) await sleep(50);
  if (!want.every((t) => existsSync(join(aside, t.replace(/[^A-Za-z0-9]/g, '_') + '.started')))) process.exit(7);
  writeFileSync(a, readFileSync(a, 'utf8').replace('sorry', 'rfl'));
  await sleep(300); // the sibling's watch is still open while this file changes
  process.stdout.write(JSON.stringify({ ...handoffFor(d), files_changed: [a], file_baseline: await advanceBaseline(d.file_baseline, [a]) }) + '\\n');
} else if (what === 'outside') {
  writeFileSync(a, readFileSync(a, 'utf8').replace('sorry', 'rfl'));
  writeFileSync(join(process.env.HANDOFF_PROJECT_ROOT, 'notes.txt'), 'scribbled\\n');
  process.stdout.write(JSON.stringify({ ...handoffFor(d), files_changed: [a], file_baseline: await advanceBaseline(d.file_baseline, [a]) }) + '\\n');
} else {
  await sleep(300);
  process.stdout.write(JSON.stringify(handoffFor(d)) + '\\n');
}
appendFileSync(join(aside, 'log'), 'end ' + d.target + '\\n');
`;

let project: RoleProject;
let dir: string;
let aside: string;
beforeEach(async () => {
  project = await createRoleProject({
    name: 'batch',
    files: {
      'A.lean': 'theorem a : 1 = 1 := by\n  sorry\n\ntheorem a2 : 2 = 2 := by\n  sorry\n',
      'B.lean': 'theorem b : 3 = 3 := by\n  sorry\n',
      'notes.txt': 'unrelated\n',
    },
    worker: WORKER,
  });
  ({ dir, aside } = project);
});
afterEach(async () => {
  await project.cleanup();
});

const input = (file: string, line: number): Promise<WorkerInput> =>
  roleWorkerInput(dir, { file, line, goal: '' });

async function worker(behaviour: string, expected = '', storeRoot: string | null = null) {
  const custody = createVerifiedCustody({ projectRoot: dir, gitDirs: await gitDirsOf(dir), storeRoot });
  return roleWorker(project, [behaviour, aside, expected], custody);
}

/** [start, end] index pairs of each target in the log, in log order. */
async function intervals(): Promise<Map<string, [number, number]>> {
  const lines = (await readFile(join(aside, 'log'), 'utf8')).trim().split('\n');
  const out = new Map<string, [number, number]>();
  lines.forEach((l, i) => {
    const [ev, t] = l.split(' ') as [string, string];
    const cur = out.get(t) ?? [-1, -1];
    if (ev === 'start') cur[0] = i;
    else cur[1] = i;
    out.set(t, cur);
  });
  return out;
}

describe('runBatch', () => {
  it('disjoint dispatches run together, and neither is charged with the other’s writes to its own file', async () => {
    const w = await worker('rendezvous', 'A.lean:2,B.lean:2');
    const out = (await runBatch(w, [await input('A.lean', 2), await input('B.lean', 2)], {
      projectRoot: dir,
      maxDelegates: 2,
    })) as WorkOutcome[];
    expect(out.map((o) => o.kind)).toEqual(['handoff', 'handoff']);
    expect(await readFile(join(dir, 'A.lean'), 'utf8')).toContain('rfl');
    expect(await readFile(join(dir, 'B.lean'), 'utf8')).toBe('theorem b : 3 = 3 := by\n  rfl\n');
  });

  it('without the joint watch the same concurrent pair would be refused (the control)', async () => {
    const w = await worker('rendezvous', 'A.lean:2,B.lean:2');
    const [a, b] = await Promise.all([
      w.work(await input('A.lean', 2), new AbortController().signal),
      w.work(await input('B.lean', 2), new AbortController().signal),
    ]);
    expect([a?.kind, b?.kind]).toContain('custody-violation');
  });

  it('dispatches sharing an owned file never overlap in time and keep their order', async () => {
    const w = await worker('slow');
    const out = await runBatch(
      w,
      [await input('A.lean', 2), await input('A.lean', 5), await input('B.lean', 2)],
      {
        projectRoot: dir,
        maxDelegates: 2,
      },
    );
    expect(out.map((o) => o.kind)).toEqual(['handoff', 'handoff', 'handoff']);
    const iv = await intervals();
    const a2 = iv.get('A.lean:2') as [number, number];
    const a5 = iv.get('A.lean:5') as [number, number];
    expect(a2[1]).toBeLessThan(a5[0]);
  });

  it('maxDelegates 1, or a watched run store, runs disjoint dispatches one at a time', async () => {
    const store = join(dir, '.handoff');
    await mkdir(store);
    for (const [cap, root] of [
      [1, null],
      [2, store],
    ] as const) {
      await rm(join(aside, 'log'), { force: true });
      const w = await worker('slow', '', root);
      await runBatch(w, [await input('A.lean', 2), await input('B.lean', 2)], {
        projectRoot: dir,
        maxDelegates: cap,
      });
      const iv = await intervals();
      const a = iv.get('A.lean:2') as [number, number];
      const b = iv.get('B.lean:2') as [number, number];
      expect(a[1], `cap ${cap}, store ${root}`).toBeLessThan(b[0]);
    }
  });

  it('a concurrent worker writing outside every owned file is still refused', async () => {
    const w = await worker('outside');
    const out = await runBatch(w, [await input('A.lean', 2), await input('B.lean', 2)], {
      projectRoot: dir,
      maxDelegates: 2,
    });
    for (const o of out) {
      expect(o.kind).toBe('custody-violation');
      expect((o as { detail: string }).detail).toMatch(
        /the worker wrote outside its owned files: notes\.txt/,
      );
    }
    expect(await readFile(join(dir, 'A.lean'), 'utf8')).toContain('sorry');
    expect(await readFile(join(dir, 'B.lean'), 'utf8')).toContain('sorry');
  });
});
