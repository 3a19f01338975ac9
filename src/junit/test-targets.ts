/**
 * Failing tests as targets (layer 1, pure): the code domain's queue comes from the project's own
 * test report, not from marker words. Each failing or erroring case with a location becomes one
 * target `file:line` (its name, message and the failure's location kept for the dispatch);
 * `narrow` keeps the cases in one file, one folder or with one exact name. A case with no
 * location cannot be dispatched: it is listed in `unlocated` (said, never dropped silently).
 * Comparing two reports of the same command tells a flaky case (failed, then passed with nothing
 * changed) from a fixed one.
 */
import type { TestCase } from './junit-report.js';

/** One failing test, as the cycle queues it. */
export interface TestTarget {
  /** `file:line` (or `file` when the report gives no line). */
  readonly target: string;
  readonly file: string;
  readonly line: number | null;
  /** The test's full name (`suite > case` as the writer names it). */
  readonly name: string;
  readonly message: string | null;
  readonly failureAt: { readonly file: string; readonly line: number } | null;
}

/** What {@link testTargets} returns. */
export interface TestTargets {
  readonly targets: readonly TestTarget[];
  /** Failing cases whose report says nowhere where they are. */
  readonly unlocated: readonly string[];
}

/** Keeps a file (`a.test.ts`), a folder (`test/` or `test`) or one test by its exact name. */
export type Narrowing =
  | { readonly kind: 'path'; readonly path: string }
  | { readonly kind: 'name'; readonly name: string };

/** A qualifier that adds nothing: empty, a file path, a writer's constant, or already in the name. */
function idle(q: string, name: string): boolean {
  return (
    q === '' ||
    q === 'test' ||
    q === 'pytest' ||
    q.includes('/') ||
    /\.[cm]?[jt]sx?$|\.py$/.test(q) ||
    name.startsWith(q)
  );
}

/**
 * A case's full name: its `name`, qualified by the writer's `classname` (jest's describe path,
 * pytest's module) or else its suite (node:test's describe), unless that qualifier is empty, a
 * file path (vitest), a writer's constant (node's `test`, pytest's `pytest`) or already in the name.
 *
 * @example
 * ```ts
 * testName({ suite: 'math', classname: 'test', name: 'adds', … }); // 'math > adds'
 * ```
 */
export function testName(c: TestCase): string {
  if (!idle(c.classname, c.name)) return `${c.classname} > ${c.name}`;
  if (!idle(c.suite, c.name)) return `${c.suite} > ${c.name}`;
  return c.name;
}

function inPath(file: string, path: string): boolean {
  const p = path.replace(/\/+$/, '').replace(/^\.\//, '');
  return p === '' || p === '.' || file === p || file.startsWith(`${p}/`);
}

/**
 * The targets of a report's failing cases, in report order, one per `file:line` (two cases on one
 * line — e.g. a parametrised test — share a target; the first name is kept).
 *
 * @example
 * ```ts
 * testTargets(cases).targets[0]; // { target: 'test/m.test.ts:4', name: 'math > subtracts', … }
 * testTargets(cases, { kind: 'path', path: 'test/' });
 * ```
 */
export function testTargets(cases: readonly TestCase[], narrow?: Narrowing): TestTargets {
  const targets: TestTarget[] = [];
  const unlocated: string[] = [];
  const seen = new Set<string>();
  for (const c of cases) {
    if (c.status !== 'failed' && c.status !== 'error') continue;
    const name = testName(c);
    if (narrow?.kind === 'name' && name !== narrow.name && c.name !== narrow.name) continue;
    if (c.location === null) {
      if (narrow?.kind !== 'path') unlocated.push(name);
      continue;
    }
    if (narrow?.kind === 'path' && !inPath(c.location.file, narrow.path)) continue;
    const target = c.location.line === null ? c.location.file : `${c.location.file}:${c.location.line}`;
    if (seen.has(target)) continue;
    seen.add(target);
    targets.push({
      target,
      file: c.location.file,
      line: c.location.line,
      name,
      message: c.message,
      failureAt: c.failureAt,
    });
  }
  return { targets, unlocated };
}

/**
 * The tests that failed in `first` and passed in `again` (the same command run twice over the same
 * bytes): flaky — a pass on rerun is never a fix by itself.
 *
 * @example
 * ```ts
 * flakyTests(firstRun, secondRun); // ['math > sometimes']
 * ```
 */
export function flakyTests(first: readonly TestCase[], again: readonly TestCase[]): string[] {
  const passed = new Set(again.filter((c) => c.status === 'passed').map(testName));
  return first
    .filter((c) => (c.status === 'failed' || c.status === 'error') && passed.has(testName(c)))
    .map(testName);
}
