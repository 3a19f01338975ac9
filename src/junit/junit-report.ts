/**
 * JUnit XML test reports as test cases (layer 1, pure): the format node:test
 * (`--test-reporter=junit`), vitest (`--reporter=junit`), jest (jest-junit) and pytest
 * (`--junitxml`) write. Each `<testcase>` becomes one {@link TestCase} with its status and, for a
 * failure, the message and where it points: the `file`/`line` attributes when the writer gives
 * them (pytest's `line` is 0-based, every other writer's 1-based), else the first stack frame of
 * the failure text that lies inside the project (not in `node_modules`, not a runtime internal).
 * A report that is not well-formed XML, or has no `<testsuites>`/`<testsuite>` root, is a
 * structured error, never a throw: a missing or malformed report is an operational error for the
 * run, not "no failing tests".
 */
import { readXml, textOf, type XmlElement } from './xml-tree.js';

/** One test case of a report. */
export interface TestCase {
  /** The enclosing `<testsuite>`'s name ('' for a case directly under `<testsuites>`). */
  readonly suite: string;
  readonly classname: string;
  readonly name: string;
  readonly status: 'passed' | 'failed' | 'error' | 'skipped';
  /** The failure's or error's `message` (or the first line of its text); null when it passed or was skipped. */
  readonly message: string | null;
  /** The failure's whole text (stack, diff), null when none. */
  readonly detail: string | null;
  /**
   * Where the case is, project-relative with `/`: the writer's `file`/`line` attributes, else the
   * failure's first frame in that file, else its first frame in the project; null when nothing
   * says (a passing case of a writer that gives no `file`). `line` is null when only the file is known.
   */
  readonly location: { readonly file: string; readonly line: number | null } | null;
  /** Where the failure points (its first stack frame inside the project), null when none. */
  readonly failureAt: { readonly file: string; readonly line: number } | null;
}

/** What {@link parseJunitReport} returns. */
export type JunitRead =
  | { readonly ok: true; readonly cases: readonly TestCase[] }
  | { readonly ok: false; readonly error: string };

/** Options of {@link parseJunitReport}. */
export interface JunitOptions {
  /** The project root the report's absolute paths are made relative to (a POSIX absolute path). */
  readonly projectRoot: string;
}

const FRAME =
  /(?:file:\/\/)?((?:\/|\.{0,2}\/)?[^\s():'"`]+\.(?:[cm]?[jt]sx?|py|go|rb|java|kt|rs)):(\d+)(?::\d+)?/g;

/**
 * A project-relative path for `path` (absolute under `root`, or already relative), or null when it
 * lies outside the project, in `node_modules`, or is a runtime internal (`node:`…).
 *
 * @example
 * ```ts
 * projectPath('/p/src/a.ts', '/p'); // 'src/a.ts'
 * projectPath('/p/node_modules/x/y.js', '/p'); // null
 * ```
 */
export function projectPath(path: string, root: string): string | null {
  let rel: string;
  if (path.startsWith('/')) {
    const base = root.endsWith('/') ? root : `${root}/`;
    if (!path.startsWith(base)) return null;
    rel = path.slice(base.length);
  } else rel = path.replace(/^\.\//, '');
  const parts = rel.split('/');
  if (rel === '' || parts.includes('..') || parts.includes('node_modules') || parts.includes('')) return null;
  return rel;
}

/**
 * The first stack frame of `text` that lies inside the project, or null.
 *
 * @example
 * ```ts
 * firstProjectFrame('at x (file:///p/src/a.test.js:5:9)', '/p'); // { file: 'src/a.test.js', line: 5 }
 * ```
 */
export function firstProjectFrame(text: string, root: string): { file: string; line: number } | null {
  for (const m of text.matchAll(FRAME)) {
    const file = projectPath(m[1] as string, root);
    const line = Number(m[2]);
    if (file !== null && line > 0) return { file, line };
  }
  return null;
}

function caseOf(el: XmlElement, suite: string, zeroBasedLine: boolean, root: string): TestCase {
  const outcome = el.children.find(
    (c): c is XmlElement =>
      typeof c !== 'string' && (c.name === 'failure' || c.name === 'error' || c.name === 'skipped'),
  );
  const status: TestCase['status'] =
    outcome === undefined
      ? 'passed'
      : outcome.name === 'failure'
        ? 'failed'
        : outcome.name === 'error'
          ? 'error'
          : 'skipped';
  const failing = status === 'failed' || status === 'error';
  const detail = failing && outcome !== undefined ? textOf(outcome).trim() || null : null;
  const message = failing
    ? (outcome?.attrs.message ?? detail?.split('\n').find((l) => l.trim() !== '') ?? '').trim() || null
    : null;
  const attrFile = el.attrs.file === undefined ? null : projectPath(el.attrs.file, root);
  const attrLine = el.attrs.line === undefined ? Number.NaN : Number(el.attrs.line) + (zeroBasedLine ? 1 : 0);
  const failureAt = failing && detail !== null ? firstProjectFrame(detail, root) : null;
  const sameFile =
    attrFile === null || detail === null
      ? null
      : (firstProjectFrame(
          detail
            .split('\n')
            .filter((l) => l.includes(attrFile))
            .join('\n'),
          root,
        ) ?? null);
  const location =
    attrFile !== null && Number.isInteger(attrLine) && attrLine > 0
      ? { file: attrFile, line: attrLine }
      : attrFile !== null
        ? { file: attrFile, line: sameFile !== null && sameFile.file === attrFile ? sameFile.line : null }
        : failureAt;
  return {
    suite,
    classname: el.attrs.classname ?? '',
    name: el.attrs.name ?? '',
    status,
    message,
    detail,
    location,
    failureAt,
  };
}

/**
 * Reads a JUnit XML report into its test cases, in document order.
 *
 * @example
 * ```ts
 * const r = parseJunitReport(xml, { projectRoot: '/repo' });
 * if (r.ok) r.cases.filter((c) => c.status === 'failed');
 * ```
 */
export function parseJunitReport(xml: string, o: JunitOptions): JunitRead {
  const read = readXml(xml);
  if (!read.ok)
    return { ok: false, error: `not a well-formed XML report: ${read.error} at offset ${read.offset}` };
  const root = read.root;
  if (root.name !== 'testsuites' && root.name !== 'testsuite')
    return { ok: false, error: `not a JUnit report: the root element is <${root.name}>, not <testsuites>` };
  const cases: TestCase[] = [];
  const walk = (el: XmlElement, suite: string, zeroBased: boolean, depth: number) => {
    for (const c of el.children) {
      if (typeof c === 'string') continue;
      if (c.name === 'testsuite' && depth < 16) {
        const name = c.attrs.name ?? '';
        // pytest names its suite "pytest" and writes 0-based line numbers
        walk(c, name, zeroBased || name === 'pytest', depth + 1);
      } else if (c.name === 'testcase') cases.push(caseOf(c, suite, zeroBased, o.projectRoot));
    }
  };
  if (root.name === 'testsuite') walk({ name: 'testsuites', attrs: {}, children: [root] }, '', false, 0);
  else walk(root, '', false, 0);
  return { ok: true, cases };
}
