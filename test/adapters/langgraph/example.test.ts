/**
 * examples/langgraph end to end: the demo project is created; in the fix graph the honest
 * subagent's handoff is solved and routed to ship with a cite, the overreaching one is refused,
 * routed to triage and its owned edit put back; the trip chain runs as a graph, retries the failed
 * route stage under the same stage_run_id, commits every baton to the run store; and the
 * `handoff inspect` command the example prints draws the chain run.
 */
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { main } from '../../../examples/langgraph/run.js';
import { main as cli } from '../../../src/cli/main.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'langgraph-example-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('runs the LangGraph example end to end', async () => {
  const lines: string[] = [];
  const report = await main([dir], (l) => lines.push(l));

  expect(report.honest).toMatchObject({ verdict: 'solved', path: ['ship'], violations: [], detail: null });
  expect(report.honest.cite).toMatch(/^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}#1$/);
  expect(await readFile(join(dir, 'src', 'greeting.ts'), 'utf8')).toBe("export const greeting = 'hello';\n");

  expect(report.overreach).toMatchObject({
    verdict: 'refused',
    path: ['triage'],
    violations: ['outside_owned'],
  });
  expect(report.overreach.detail).toBe(
    'the worker wrote outside its owned files: README.md; owned files restored to their pre-dispatch bytes; restored outside the owned files: README.md',
  );
  expect(await readFile(join(dir, 'src', 'farewell.ts'), 'utf8')).toBe(
    "export const farewell = 'TODO(agent)';\n",
  );

  const trip = report.trip;
  expect(trip.outcome.status).toBe('accepted');
  expect(trip.outcome.baton?.trace).toEqual(['intent', 'route', 'pay']);
  expect(trip.retried).toEqual([
    expect.stringMatching(
      /^stage_failed route \(trip-1::route::r1::[0-9a-f]{16}\): Error: the maps service answered 503$/,
    ),
  ]);
  const routeRecord = trip.outcome.baton?.records.find((r) => r.key === 'depart_by');
  expect(trip.retried[0]).toContain(routeRecord?.stage_run_id);
  const runId = trip.run_id ?? '';
  expect(trip.outcome.commits.map((c) => c.cite)).toEqual([
    `${runId}#manifest`,
    `${runId}#1`,
    `${runId}#2`,
    `${runId}#3`,
  ]);

  expect(lines[0]).toBe(`project: ${dir}`);
  expect(lines).toContain(`  ${runId}#2  route  r2`);
  expect(lines.at(-1)).toBe(`inspect it: npx handoff inspect ${runId} --project ${dir}`);

  // the command the example prints
  let out = '';
  let err = '';
  const code = await cli(['inspect', runId, '--project', dir], {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    readStdin: async () => Buffer.alloc(0),
    env: {},
    cwd: dir,
    isTTY: false,
  });
  expect([code, err]).toEqual([0, '']);
  expect(out).toContain(`chain run ${runId}`);
  expect(out).toContain('chain trip · baton trip-1');
  expect(out).toMatch(/#2 \S+ baton-commit route r1->r2 produced \[depart_by\]/);
  expect(out).toContain(`[${runId}#3]`);
});
