/**
 * A persisted run's final handoff cites the journal events it rests on: each solved target's
 * accepted worker handoff in `evidence.attempts` (`solved: <run_id>#<seq>`), each refuted claim in
 * `failed_avenues` (`<run_id>#<seq>: <target> claimed solved; …`). Every cite resolves (the store's
 * `resolveCite`) to a `handoff` event of the same run whose payload says what the entry says.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { advanceBaseline } from '../../src/baseline/index.js';
import { type Dispatch, type Handoff, handoffFor } from '../../src/contract/index.js';
import { citeFinalHandoff, finalCites } from '../../src/runtime/final-cites.js';
import { createPersistRecorder } from '../../src/runtime/persist-recorder.js';
import { runProject } from '../../src/runtime/project-run.js';
import { createFsStore, parseCite, resolveCite } from '../../src/store/index.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-final-cites-'));
  await writeFile(join(dir, 'A.lean'), 'theorem a : 1 = 1 := by\n  sorry\n');
  await writeFile(join(dir, 'B.lean'), 'theorem b : 2 = 2 := by\n  sorry\n');
  await writeFile(join(dir, '.gitignore'), '.handoff/\n');
  execFileSync('git', ['init', '-q'], { cwd: dir });
  execFileSync('git', ['add', '-A'], { cwd: dir });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init'], {
    cwd: dir,
  });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Solves A at once; claims B solved without touching it first (refuted), then solves it. */
function worker() {
  let bTries = 0;
  return async (d: Dispatch): Promise<{ handoff: Handoff }> => {
    const f = d.owned_files[0] as string;
    if (f.endsWith('B.lean') && bTries++ === 0) return { handoff: handoffFor(d) };
    await writeFile(f, (await readFile(f, 'utf8')).replace('sorry', 'rfl'));
    const b = await advanceBaseline(d.file_baseline, [f]);
    return { handoff: handoffFor(d, { files_changed: [f], file_baseline: b }) };
  };
}

const CITE_IN = /[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}#[0-9]+/g;

describe('the final handoff of a persisted run cites its events', () => {
  it('solved targets and refuted claims, each cite resolving to a handoff event of this run', async () => {
    const recorder = await createPersistRecorder({ projectRoot: dir });
    let t = Date.parse('2026-12-06T12:00:00Z');
    let r: Awaited<ReturnType<typeof runProject>>;
    try {
      r = await runProject({
        projectRoot: dir,
        flags: { target: '.', scope: 'project', mode: 'autoprove' },
        worker: { inProcess: worker() },
        recorder,
        clock: () => (t += 1000),
      });
    } finally {
      await recorder.dispose();
    }
    expect(r.handoff.status).toBe('solved');
    const solvedEntries = r.handoff.evidence.attempts.filter((a) => a.result.startsWith('solved: '));
    expect(solvedEntries.map((a) => a.snippet).sort()).toEqual(['A.lean:2', 'B.lean:2']);
    const refuted = r.handoff.failed_avenues.filter((a) =>
      / B\.lean:2 claimed solved; the claim did not hold/.test(a),
    );
    expect(refuted).toHaveLength(1);

    const store = createFsStore({ root: recorder.storageRoot });
    const load = await store.load(r.runId);
    expect(load.ok).toBe(true);
    if (!load.ok) return;
    // the stored final handoff carries the same cites
    const stored = JSON.stringify(load.value.events.at(-1)?.payload);
    const cites = [
      ...solvedEntries.map((a) => a.result.slice('solved: '.length)),
      ...refuted.map((a) => (a.match(CITE_IN) ?? [])[0] as string),
    ];
    expect(cites).toHaveLength(3);
    for (const c of cites) {
      expect(parseCite(c)?.run_id).toBe(r.runId);
      expect(stored).toContain(c);
      const hit = resolveCite(load.value, c);
      expect(hit.ok && hit.kind === 'event' && hit.event.kind).toBe('handoff');
    }
    const payloadOf = (c: string) => {
      const hit = resolveCite(load.value, c);
      return hit.ok && hit.kind === 'event' ? (hit.event.payload as Handoff) : null;
    };
    for (const a of solvedEntries) {
      const p = payloadOf(a.result.slice('solved: '.length));
      expect(p?.target).toBe(a.snippet);
      expect(p?.files_changed.length).toBe(1);
    }
    const refutedPayload = payloadOf((refuted[0]?.match(CITE_IN) ?? [])[0] as string);
    expect(refutedPayload).toMatchObject({ target: 'B.lean:2', status: 'solved', files_changed: [] });
    // the Markdown stop summary beside the final handoff names the same cites
    expect(r.summaryPath).toBe(join(recorder.storageRoot, 'runs', r.runId, 'summary.md'));
    const md = await readFile(r.summaryPath as string, 'utf8');
    expect(md).toMatch(new RegExp(`^# Run ${r.runId}: solved\n`));
    for (const c of cites) expect(md).toContain(c);
    expect(md).toContain(`Final handoff: ${r.finalCite}.`);
    // every cite anywhere in the record resolves to an event of this run
    for (const c of JSON.stringify(r.handoff).match(CITE_IN) ?? [])
      expect(resolveCite(load.value, c).ok).toBe(true);
    store.close();
  });

  it('an unpersisted run cites nothing', async () => {
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove' },
      worker: { inProcess: worker() },
    });
    expect(JSON.stringify(r.handoff)).not.toMatch(CITE_IN);
    expect(r.summaryPath).toBeNull();
  });
});

describe('finalCites (pure)', () => {
  const d = {
    target: 'A.lean:2',
    scope: 'sorry',
    mode: 'autoprove',
    owned_files: ['/p/A.lean'],
    file_baseline: null,
  } as unknown as Dispatch;
  const att = (solved: boolean, signature: string | null = null) => ({
    cycle: 1,
    solved,
    signature,
    snippets: [],
    emptySearch: false,
  });
  it('matches handoffs with attempts in order; a stuck handoff is a failed avenue with its blocker', () => {
    const stuck = handoffFor(d, {
      status: 'stuck',
      blocker_kind: 'proof',
      blocker_class: 'missing-library-lemma',
      blocker_signature: 'A.lean:2:no lemma',
      next_action: 'redraft',
      new_evidence_required_for_rerun: 'x',
    });
    const out = finalCites(
      [
        { cite: 'R#2', handoff: handoffFor(d) },
        { cite: 'R#4', handoff: stuck },
        { cite: 'R#6', handoff: handoffFor(d) },
      ],
      { 'A.lean:2': [att(false, 'A.lean:2:not verified'), att(false), att(true)] },
    );
    expect(out.map((o) => [o.cite, o.solved])).toEqual([
      ['R#2', false],
      ['R#4', false],
      ['R#6', true],
    ]);
    expect(out[0]?.words).toBe(
      'R#2: A.lean:2 claimed solved; the claim did not hold (A.lean:2:not verified)',
    );
    expect(out[1]?.words).toBe('R#4: A.lean:2 stuck: A.lean:2:no lemma');
    const h = citeFinalHandoff(handoffFor(d), out);
    expect(h.evidence.attempts).toEqual([{ snippet: 'A.lean:2', result: 'solved: R#6' }]);
    expect(h.failed_avenues).toHaveLength(2);
    // idempotent: citing twice adds nothing
    expect(citeFinalHandoff(h, out)).toEqual(h);
  });
  it('without an attempt a solved claim is never cited as solved', () => {
    expect(finalCites([{ cite: 'R#2', handoff: handoffFor(d) }], {})[0]?.solved).toBe(false);
  });
});
