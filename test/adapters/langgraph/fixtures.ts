/**
 * Shared fixtures of the LangGraph adapter tests: a real git project with one owned file and a
 * bystander, a deterministic store, and a three-stage chain (intent → route → pay) whose stages
 * each test can swap.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { advanceBaseline } from '../../../src/baseline/index.js';
import {
  createChain,
  createTaskContract,
  factRule,
  type HandoffChain,
  type StageFn,
  stageDelta,
} from '../../../src/chain/index.js';
import { type Dispatch, handoffFor } from '../../../src/contract/index.js';
import { createFsStore, createMemoryStore } from '../../../src/store/index.js';

/** The owned file's bytes before any worker ran. */
export const GREETING = "export const greeting = 'TODO(agent)';\n";
/** What the well-behaved worker writes. */
export const SOLVED = "export const greeting = 'hello';\n";
/** The fixed clock of the deterministic stores. */
export const NOW = new Date('2026-11-30T10:00:00Z');
/** The run id the deterministic stores give their first run. */
export const RUN_ID = '20261130T100000Z-0a1b2c3d';

/** A temp git project: `src/greeting.ts` (owned by the tests), `README.md` (a bystander). */
export interface Project {
  readonly dir: string;
  readonly owned: string;
  cleanup(): Promise<void>;
}

/** Creates and commits the project (under its real path). */
export async function makeProject(): Promise<Project> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-langgraph-')));
  const git = (args: readonly string[]) => execFileSync('git', [...args], { cwd: dir, stdio: 'ignore' });
  await mkdir(join(dir, 'src'));
  await writeFile(join(dir, 'src', 'greeting.ts'), GREETING);
  await writeFile(join(dir, 'README.md'), 'bystander\n');
  git(['init', '-q']);
  git(['add', '-A']);
  git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init']);
  return {
    dir,
    owned: join(dir, 'src', 'greeting.ts'),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The well-behaved worker: edits its owned file, advances the baseline, reports the change. */
export async function solve(d: Dispatch) {
  const f = d.owned_files[0] as string;
  await writeFile(f, SOLVED);
  const file_baseline = await advanceBaseline(d.file_baseline, [f]);
  return handoffFor(d, { files_changed: [f], file_baseline });
}

/** An in-memory store with a fixed clock and run id. */
export function memoryStore() {
  return createMemoryStore({ now: () => NOW, runIdSuffix: () => '0a1b2c3d' });
}

/** An fs store at `root` with a fixed clock and run id. */
export function fsStore(root: string) {
  return createFsStore({ root, now: () => NOW, runIdSuffix: () => '0a1b2c3d' });
}

/** The trip contract: three attempts per stage. */
export const tripContract = createTaskContract({
  contract_id: 'trip',
  version: 1,
  objective: 'be in Shanghai tomorrow afternoon',
  output_schema: 'trip-booking/v1',
  accountable_owner: 'travel-desk',
  budget: { max_attempts: 3 },
});

/** The trip stages; each test swaps the ones it needs. */
export interface TripStages {
  intent: StageFn;
  route: StageFn;
  pay: StageFn;
}

/** Well-behaved stages; `calls` records the `stage_run_id` of every stage call. */
export function goodStages(calls: string[] = []): TripStages {
  return {
    intent: (view) => {
      calls.push(view.stage_run_id);
      return stageDelta({
        city: { value: 'Shanghai', evidence: ['chat://msg/1'] },
        latest: { value: '20:00', evidence: ['policy://travel/v3'] },
      });
    },
    route: (view) => {
      calls.push(view.stage_run_id);
      return stageDelta({ depart_by: { value: '18:00', evidence: ['maps://route/42'] } });
    },
    pay: (view) => {
      calls.push(view.stage_run_id);
      return stageDelta({
        payment_id: { value: `pay-${view.stage_run_id.length}`, evidence: ['bank://tx/1'] },
      });
    },
  };
}

/** The trip chain over `stages`. */
export function tripChain(stages: TripStages = goodStages()): HandoffChain {
  return createChain({
    chain_id: 'trip',
    contract: tripContract,
    initial_keys: ['request_id'],
    stages: [
      { spec: { name: 'intent', provides: ['city', 'latest'] }, run: stages.intent },
      { spec: { name: 'route', requires: ['city', 'latest'], provides: ['depart_by'] }, run: stages.route },
      { spec: { name: 'pay', requires: ['depart_by'], provides: ['payment_id'] }, run: stages.pay },
    ],
    rules: [
      factRule({ key: 'request_id', producer_stage: '__input__', type: z.string().min(1) }),
      factRule({ key: 'city', producer_stage: 'intent', type: z.string() }),
      factRule({ key: 'latest', producer_stage: 'intent', type: z.string().regex(/^\d\d:\d\d$/) }),
      factRule({
        key: 'depart_by',
        producer_stage: 'route',
        type: z.string().regex(/^\d\d:\d\d$/),
        validator: (v, view) =>
          v <= String(view.facts.latest) ? null : `departure ${v} is later than ${String(view.facts.latest)}`,
        describe: 'departure within the travel policy',
      }),
      factRule({ key: 'payment_id', producer_stage: 'pay', type: z.string() }),
    ],
  });
}

/** A fresh trip baton. */
export function tripBaton(chain: HandoffChain, id = 'trip-1') {
  return chain.newBaton({
    baton_id: id,
    intent: 'be in Shanghai tomorrow afternoon',
    facts: { request_id: { value: 'req-7', evidence: ['chat://msg/0'] } },
  });
}
