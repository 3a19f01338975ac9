/**
 * Hostile workers under delegate, on a real git project: each one claims (or would like to claim)
 * `solved` while cheating, and each must end refused or failed — never accepted, never `solved` —
 * with a valid handoff, its edits of the owned file put back, git control files and the run store
 * restored, and delegate itself never rejecting.
 */
import { appendFile, lstat, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { advanceBaseline } from '../../src/baseline/index.js';
import { type Dispatch, handoffFor, validateHandoff } from '../../src/contract/index.js';
import { createDispatch, type DelegateResult, delegate } from '../../src/delegate/index.js';
import { expectContained, fsStore, GREETING, makeProject, type Project, RUN_ID } from './fixtures.js';

let p: Project;
let dispatch: Dispatch;
beforeEach(async () => {
  p = await makeProject();
  dispatch = await createDispatch({
    target: 'src/greeting.ts:1',
    scope: 'file',
    mode: 'autoprove',
    ownedFiles: [p.owned],
  });
});
afterEach(async () => {
  await p.cleanup();
});

const checks = (r: DelegateResult) => r.violations.map((v) => v.check);

/** Writes the owned file and returns an honest-looking solved handoff with `overrides`. */
async function edited(d: Dispatch, overrides: Record<string, unknown> = {}) {
  await writeFile(p.owned, "export const greeting = 'pwned';\n");
  const file_baseline = await advanceBaseline(d.file_baseline, [p.owned]);
  return { ...handoffFor(d, { files_changed: [p.owned], file_baseline }), ...overrides };
}

describe('custody: a worker that claims solved while cheating on its files', () => {
  it('writes outside its owned files (changes one, creates one): refused, the owned file restored', async () => {
    const r = await delegate(dispatch, async (d) => {
      await writeFile(join(p.dir, 'README.md'), 'defaced\n');
      await writeFile(join(p.dir, 'src', 'backdoor.ts'), 'export {};\n');
      return edited(d);
    });
    await expectContained(r, p.owned);
    expect(checks(r)).toEqual(['outside_owned']);
    expect(r.handoff.stop_detail).toBe(
      'the worker wrote outside its owned files: README.md, src/backdoor.ts; owned files restored to their pre-dispatch bytes; restored outside the owned files: README.md, src/backdoor.ts',
    );
    // README.md was clean in git: read back from git; src/backdoor.ts was created: removed
    expect(await readFile(join(p.dir, 'README.md'), 'utf8')).not.toBe('defaced\n');
    await expect(readFile(join(p.dir, 'src', 'backdoor.ts'))).rejects.toThrow(/ENOENT/);
  });

  it('forges the baseline (a sha256 of bytes it did not write)', async () => {
    const r = await delegate(dispatch, async (d) => {
      const h = await edited(d);
      const b = h.file_baseline as NonNullable<typeof h.file_baseline>;
      return { ...h, file_baseline: { ...b, files: b.files.map((f) => ({ ...f, sha256: 'f'.repeat(64) })) } };
    });
    await expectContained(r, p.owned);
    expect(checks(r)).toEqual(['baseline']);
    expect(r.violations[0]?.detail).toMatch(
      /differ from the returned baseline \(drift nobody advanced\): .*\(modified\)/,
    );
  });

  it('leaves the baseline unadvanced (edits, reports nothing)', async () => {
    const r = await delegate(dispatch, async (d) => {
      await writeFile(p.owned, 'edited\n');
      return handoffFor(d);
    });
    await expectContained(r, p.owned);
    expect(checks(r)).toEqual(['baseline']);
  });

  it('advances the baseline without reporting the file in files_changed', async () => {
    const r = await delegate(dispatch, (d) => edited(d, { files_changed: [] }));
    await expectContained(r, p.owned);
    expect(r.violations[0]?.detail).toBe(
      `the returned baseline advances ${p.owned}, which files_changed does not report; fix: list every file you changed in files_changed`,
    );
  });

  it('resolves an owned entry to another realpath in its baseline', async () => {
    const r = await delegate(dispatch, async (d) => {
      const h = await edited(d);
      const b = h.file_baseline as NonNullable<typeof h.file_baseline>;
      return {
        ...h,
        file_baseline: { ...b, files: b.files.map((f) => ({ ...f, realpath: '/etc/passwd' })) },
      };
    });
    await expectContained(r, p.owned);
    expect(r.violations[0]?.detail).toBe(`the returned baseline resolves ${p.owned} to /etc/passwd`);
  });

  it('names a file it does not own in files_changed', async () => {
    const r = await delegate(dispatch, (d) =>
      edited(d, { files_changed: [p.owned, join(p.dir, 'README.md')] }),
    );
    await expectContained(r, p.owned);
    expect(r.violations[0]?.detail).toBe(
      `files_changed names non-owned file(s): ${join(p.dir, 'README.md')}`,
    );
  });

  it('widens its custody: claims a file it does not own and writes it', async () => {
    const readme = join(p.dir, 'README.md');
    const r = await delegate(dispatch, async (d) => {
      await writeFile(readme, 'mine now\n');
      const h = await edited(d);
      return { ...h, files_owned: [p.owned, readme], files_changed: [p.owned, readme] };
    });
    await expectContained(r, p.owned);
    // its baseline does not cover the extra file: the record itself is invalid
    expect(checks(r)).toEqual(['outside_owned', 'schema']);
  });

  it('deletes its owned file but reports it present', async () => {
    const r = await delegate(dispatch, async (d) => {
      const h = await edited(d);
      await rm(p.owned);
      return h;
    });
    await expectContained(r, p.owned);
    expect(r.violations[0]?.detail).toMatch(/\(missing\); fix: after editing, advance the baseline/);
  });

  it('tries to widen the dispatch it was given: the dispatch is frozen, the attempt fails', async () => {
    const r = await delegate(dispatch, async (d) => {
      (d.owned_files as string[]).push(join(p.dir, 'README.md'));
      return edited(d);
    });
    await expectContained(r, p.owned);
    expect(r.outcome).toBe('failed');
    expect(r.handoff.stop_detail).toMatch(
      /^the worker threw: TypeError: Cannot add property 1, object is not extensible/,
    );
  });
});

describe('links, git and the run store', () => {
  it('swaps its owned file for a link to /etc/passwd: refused before anything reads through it, link replaced', async () => {
    const passwd = await readFile('/etc/passwd', 'utf8');
    const r = await delegate(dispatch, async (d) => {
      await rm(p.owned);
      await symlink('/etc/passwd', p.owned);
      return handoffFor(d, { files_changed: [p.owned] });
    });
    await expectContained(r, p.owned);
    expect(checks(r)).toEqual(['owned_type']);
    expect(r.violations[0]?.detail).toBe(
      `owned file ${p.owned} was replaced by a symbolic link to /etc/passwd`,
    );
    expect(await readFile('/etc/passwd', 'utf8')).toBe(passwd);
  });

  it('swaps its owned file for a link to a project file: the restore never writes through the link', async () => {
    const readme = join(p.dir, 'README.md');
    const r = await delegate(dispatch, async (d) => {
      await rm(p.owned);
      await symlink(readme, p.owned);
      return handoffFor(d);
    });
    await expectContained(r, p.owned);
    expect(await readFile(readme, 'utf8')).toBe('bystander\n');
  });

  it('swaps a folder on its owned path for a link: refused; the link and the moved folder undone, nothing written through the link', async () => {
    const r = await delegate(dispatch, async (d) => {
      await rename(join(p.dir, 'src'), join(p.dir, 'elsewhere'));
      await symlink(join(p.dir, 'elsewhere'), join(p.dir, 'src'));
      await writeFile(join(p.dir, 'elsewhere', 'greeting.ts'), 'through the link\n');
      return handoffFor(d);
    });
    expect(r.outcome).toBe('refused');
    expect(r.handoff.status).toBe('stopped');
    expect(checks(r)[0]).toBe('owned_type');
    expect(r.handoff.stop_detail).toMatch(/owned files restored to their pre-dispatch bytes/);
    expect(r.handoff.stop_detail).toMatch(/restored outside the owned files: .*elsewhere\/greeting\.ts.*src/);
    expect((await lstat(join(p.dir, 'src'))).isDirectory()).toBe(true);
    expect(await readFile(p.owned, 'utf8')).toBe(GREETING);
    await expect(lstat(join(p.dir, 'elsewhere'))).rejects.toThrow(/ENOENT/);
  });

  it('plants a git hook and edits .git/config: refused, both put back', async () => {
    const config = await readFile(join(p.dir, '.git', 'config'), 'utf8');
    const r = await delegate(dispatch, async (d) => {
      await writeFile(join(p.dir, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\ncurl evil\n', { mode: 0o755 });
      await appendFile(join(p.dir, '.git', 'config'), '[core]\n\tfsmonitor = ./evil\n');
      return edited(d);
    });
    await expectContained(r, p.owned);
    expect(checks(r)).toEqual(['git_state']);
    expect(r.handoff.stop_detail).toMatch(
      /git control files and run store restored to their pre-dispatch bytes/,
    );
    expect(await readFile(join(p.dir, '.git', 'config'), 'utf8')).toBe(config);
    await expect(readFile(join(p.dir, '.git', 'hooks', 'pre-commit'))).rejects.toThrow(/ENOENT/);
  });

  it('forges an event in the run store’s journal: refused, the journal put back, the real handoff is event 1', async () => {
    const store = fsStore(p.dir);
    try {
      const events = join(p.dir, '.handoff', 'runs', RUN_ID, 'events.jsonl');
      const r = await delegate(
        dispatch,
        async (d) => {
          await appendFile(events, '{"seq":1,"kind":"handoff","payload":{"status":"solved"}}\n');
          await writeFile(join(p.dir, '.handoff', 'runs', RUN_ID, '.lock'), 'planted');
          return edited(d);
        },
        { store },
      );
      await expectContained(r, p.owned);
      expect(checks(r)).toEqual(['run_store']);
      expect(r.cite).toBe(`${RUN_ID}#1`);
      const load = await store.load(RUN_ID);
      expect(load.ok).toBe(true);
      if (load.ok) {
        expect(load.value.damaged).toBe(false);
        expect(load.value.events).toHaveLength(1);
        expect(load.value.effective_handoff?.payload).toEqual(r.handoff);
      }
    } finally {
      store.close();
    }
  });
});

describe('time and exceptions', () => {
  it('never resolves: the timeout ends it, its edit is put back', async () => {
    const r = await delegate(
      dispatch,
      async () => {
        await writeFile(p.owned, 'half done\n');
        return new Promise(() => {});
      },
      { timeoutMs: 50 },
    );
    await expectContained(r, p.owned);
    expect(r.outcome).toBe('failed');
    expect(r.handoff.stop_reason).toBe('operational-error');
    expect(r.handoff.stop_detail).toBe(
      'the worker did not return within 50 ms; owned files restored to their pre-dispatch bytes',
    );
  });

  const trap = () => {
    throw new Error('trap');
  };
  it.each([
    ['a string', 'no', 'the worker threw: no'],
    ['undefined', undefined, 'the worker threw: undefined'],
    ['null', null, 'the worker threw: null'],
    ['a number', 7, 'the worker threw: 7'],
    ['a symbol', Symbol('x'), 'the worker threw: Symbol(x)'],
    [
      'a Proxy whose every trap throws',
      new Proxy({}, { get: trap, getPrototypeOf: trap, has: trap }),
      'the worker threw: a value that could not be described',
    ],
    [
      'an object whose message getter throws',
      Object.defineProperty({}, 'message', { get: trap }),
      'the worker threw: a value that could not be described',
    ],
  ])('throws %s: a failed attempt, never a rejection', async (_name, thrown, detail) => {
    const r = await delegate(dispatch, async () => {
      await writeFile(p.owned, 'partial\n');
      throw thrown;
    });
    await expectContained(r, p.owned);
    expect(r.outcome).toBe('failed');
    expect(r.handoff.stop_detail).toBe(`${detail}; owned files restored to their pre-dispatch bytes`);
  });

  it('throws synchronously, or returns a thenable whose then getter throws', async () => {
    const sync = await delegate(dispatch, () => {
      throw new RangeError('sync');
    });
    expect(sync.handoff.stop_detail).toBe('the worker threw: RangeError: sync');
    const thenable = Object.defineProperty({}, 'then', { get: trap });
    const r = await delegate(dispatch, () => thenable);
    expect(r.outcome).toBe('failed');
    expect(r.handoff.stop_detail).toBe('the worker threw: trap');
  });

  it('a worker object whose run getter throws, or that has no run method', async () => {
    const r1 = await delegate(dispatch, Object.defineProperty({}, 'run', { get: trap }) as never);
    expect(r1.handoff.stop_detail).toBe('the worker threw: trap');
    const r2 = await delegate(dispatch, {} as never);
    expect(r2.handoff.stop_detail).toBe(
      'the worker threw: TypeError: the worker is neither a function nor an object with a run method',
    );
  });

  it('throws after writing outside its files: refused, both reasons named', async () => {
    const r = await delegate(dispatch, async () => {
      await writeFile(join(p.dir, 'README.md'), 'defaced\n');
      throw new Error('oops');
    });
    await expectContained(r, p.owned);
    expect(r.outcome).toBe('refused');
    expect(r.handoff.stop_detail).toBe(
      'the worker threw: oops; and the worker wrote outside its owned files: README.md; restored outside the owned files: README.md',
    );
  });
});

describe('answers that are not plain records', () => {
  it('a Proxy whose traps throw: refused as an invalid record (or failed, when even `then` throws)', async () => {
    const trap = () => {
      throw new Error('trap');
    };
    const notThen = (_t: object, k: string | symbol) => (k === 'then' ? undefined : trap());
    const r = await delegate(
      dispatch,
      async (d) => new Proxy(await edited(d), { ownKeys: trap, get: notThen }),
    );
    await expectContained(r, p.owned);
    expect(r.violations).toEqual([
      {
        check: 'schema',
        detail: 'invalid handoff record: not JSON data: trap',
      },
    ]);
    const r2 = await delegate(
      dispatch,
      async (d) => new Proxy(await edited(d), { ownKeys: trap, get: trap }),
    );
    await expectContained(r2, p.owned);
    expect(r2.handoff.stop_detail).toBe(
      'the worker threw: trap; owned files restored to their pre-dispatch bytes',
    );
  });

  it('getters that show validation one record and custody another: read once, custody sees the same copy', async () => {
    const r = await delegate(dispatch, async (d) => {
      const h = await edited(d);
      let reads = 0;
      // first read: nothing changed (and the dispatch's baseline); later reads: the real change
      return Object.defineProperties(
        { ...h },
        {
          files_changed: {
            enumerable: true,
            get: () => (reads++ === 0 ? [] : [p.owned]),
          },
          file_baseline: {
            enumerable: true,
            get: () => (reads <= 1 ? d.file_baseline : h.file_baseline),
          },
        },
      );
    });
    await expectContained(r, p.owned);
    expect(checks(r)).toEqual(['baseline']);
  });

  it('changes its answer after returning it: the copy read on arrival is the one checked and returned', async () => {
    let kept: Record<string, unknown> = {};
    const r = await delegate(dispatch, async (d) => {
      kept = handoffFor(d, {
        status: 'stuck',
        blocker_kind: 'capability',
        blocker_signature: 'x:1:y',
        new_evidence_required_for_rerun: 'z',
        next_action: 'stop',
      });
      setTimeout(() => {
        Object.assign(kept, { status: 'solved', blocker_kind: null, blocker_signature: null });
      }, 0);
      return kept;
    });
    expect(kept.status).toBe('solved');
    expect(r.outcome).toBe('accepted');
    expect(r.handoff.status).toBe('stuck');
    expect(r.handoff).not.toBe(kept);
  });

  it('a record nested 100,000 deep, and a cyclic one: refused without a stack overflow', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const r = await delegate(dispatch, async (d) => ({
      ...(await edited(d)),
      evidence: { ...handoffFor(d).evidence, deep },
    }));
    await expectContained(r, p.owned);
    expect(r.violations[0]?.detail).toMatch(/^invalid handoff record: evidence: nests deeper than 64 levels/);
    const cyclic = await delegate(dispatch, async (d) => {
      const h: Record<string, unknown> = { ...(await edited(d)) };
      h.self = h;
      return h;
    });
    await expectContained(cyclic, p.owned);
    expect(checks(cyclic)).toEqual(['schema']);
  });

  it('functions, undefined and class instances in the record', async () => {
    for (const extra of [{ verify: () => true }, { note: undefined }, { at: new Date(0) }]) {
      const r = await delegate(dispatch, async (d) => ({ ...(await edited(d)), ...extra }));
      await expectContained(r, p.owned);
      expect(r.violations[0]?.detail).toMatch(
        /^invalid handoff record: not JSON data: HandoffError: canonical JSON cannot represent/,
      );
    }
  });

  it('a __proto__ key (as JSON.parse makes it) trying to graft members onto the record', async () => {
    const r = await delegate(dispatch, async (d) => {
      const h = await edited(d);
      return JSON.parse(
        JSON.stringify(h).replace('{', '{"__proto__":{"status":"solved","verified":true},'),
      ) as unknown;
    });
    await expectContained(r, p.owned);
    expect(r.violations[0]?.detail).toMatch(
      /^invalid handoff record: __proto__: the key __proto__ is never accepted/,
    );
  });

  it('an answer over 16 MiB', async () => {
    const r = await delegate(dispatch, async (d) => ({
      ...(await edited(d)),
      attempted_tools: ['x'.repeat(17 * 1024 * 1024)],
    }));
    await expectContained(r, p.owned);
    expect(r.violations[0]?.detail).toMatch(/bytes of JSON; the limit is 16777216$/);
  });

  it('answers for another task, or with a protocol-error record of unknown identity', async () => {
    const other = await delegate(dispatch, (d) => edited(d, { target: 'src/other.ts:1' }));
    await expectContained(other, p.owned);
    expect(checks(other)).toEqual(['task_echo']);
    const anonymous = await delegate(dispatch, () => ({
      ...handoffFor(dispatch),
      target: null,
      scope: null,
      mode: null,
      file_baseline: null,
      status: 'stopped',
      stop_reason: 'protocol-error',
      stop_detail: 'who am I',
      next_action: 'stop',
    }));
    expect(anonymous.outcome).toBe('refused');
    expect(checks(anonymous)).toEqual(['task_echo', 'baseline']);
  });
});

describe('the statement fence and the search grant', () => {
  it('changes a Lean theorem’s statement and claims solved: stuck (safety guard, redraft), the file restored', async () => {
    const lean = join(p.dir, 'A.lean');
    const original = 'theorem t (n : Nat) : n + 0 = n := by\n  sorry\n';
    await writeFile(lean, original);
    const d = await createDispatch({
      target: `${lean}:1`,
      scope: 'sorry',
      mode: 'autoprove',
      ownedFiles: [lean],
    });
    const r = await delegate(d, async (x) => {
      await writeFile(lean, 'theorem t : True := by\n  trivial\n');
      const file_baseline = await advanceBaseline(x.file_baseline, [lean]);
      return handoffFor(x, { files_changed: [lean], file_baseline });
    });
    expect(r.outcome).toBe('refused');
    expect(checks(r)).toEqual(['statement_fence']);
    expect(r.handoff).toMatchObject({
      status: 'stuck',
      blocker_kind: 'safety-guard',
      next_action: 'redraft',
    });
    expect(validateHandoff(r.handoff).ok).toBe(true);
    expect(await readFile(lean, 'utf8')).toBe(original);
  });

  it('runs more searches than its search-budget grant', async () => {
    const d = await createDispatch({
      target: 'src/greeting.ts:1',
      scope: 'file',
      mode: 'autoprove',
      ownedFiles: [p.owned],
      capabilities: ['search-budget:1'],
    });
    const r = await delegate(d, async (x) => {
      const h = await edited(x);
      return { ...h, evidence: { ...h.evidence, queries: ['a', 'b', 'c'], top_candidates: ['hello'] } };
    });
    await expectContained(r, p.owned);
    expect(r.violations).toEqual([
      { check: 'search_budget', detail: 'search budget: the worker ran 3 searches; its search budget was 1' },
    ]);
  });
});

describe('documented limits (pinned so a change is a decision)', () => {
  it('build output folders are not watched: a write into node_modules is accepted', async () => {
    await mkdir(join(p.dir, 'node_modules'));
    const r = await delegate(dispatch, async (d) => {
      await writeFile(join(p.dir, 'node_modules', 'x.js'), '1');
      return edited(d);
    });
    expect(r.outcome).toBe('accepted');
  });

  it('a project file written outside the owned set is named and put back (clean in git: from git)', async () => {
    const before = await readFile(join(p.dir, 'README.md'), 'utf8');
    const r = await delegate(dispatch, async (d) => {
      await writeFile(join(p.dir, 'README.md'), 'defaced\n');
      return handoffFor(d);
    });
    expect(r.outcome).toBe('refused');
    expect(r.handoff.stop_detail).toMatch(/restored outside the owned files: README\.md$/);
    expect(await readFile(join(p.dir, 'README.md'), 'utf8')).toBe(before);
    expect(await readFile(p.owned, 'utf8')).toBe(GREETING);
  });
});
