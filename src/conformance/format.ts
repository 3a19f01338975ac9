/**
 * Human-readable rendering of a conformance-report/v1 record (layer 1, pure).
 */
import { DEFECT_DESCRIPTIONS } from './defects.js';
import type { ConformanceReport } from './report-schema.js';

/**
 * The text summary: one line per case, every failed check with its detail, and a verdict.
 *
 * @example
 * ```ts
 * io.out(formatReport(report));
 * // worker: python3 w.py (seed 0, 25 cases)   — `, role repair` appended in a repair run
 * // ok   case-01 valid                          solved
 * // FAIL case-02 malformed not-json             framing: …
 * ```
 */
export function formatReport(r: ConformanceReport): string {
  const role = r.role === undefined ? '' : `, role ${r.role}`;
  const lines: string[] = [`worker: ${r.worker.join(' ')} (seed ${r.seed}, ${r.runs} cases${role})`, ''];
  for (const c of r.cases) {
    const label = `${c.kind}${c.defect === undefined ? '' : ` ${c.defect}`}`.padEnd(32);
    const outcome =
      c.status === null ? '' : `${c.status}${c.stop_reason === null ? '' : ` (${c.stop_reason})`}`;
    lines.push(`${c.passed ? 'ok  ' : 'FAIL'} ${c.case_id} ${label} ${outcome}`.trimEnd());
    for (const f of r.findings) {
      if (f.case_id === c.case_id && !f.passed) lines.push(`       ✗ ${f.check}: ${f.detail}`);
    }
  }
  const failedCases = r.cases.filter((c) => !c.passed).length;
  const failedChecks = [...new Set(r.findings.filter((f) => !f.passed).map((f) => f.check))];
  lines.push('');
  lines.push(
    `${r.passed} checks passed, ${r.failed} failed; ${r.runs - failedCases}/${r.runs} cases conform.`,
  );
  if (failedChecks.length > 0) lines.push(`failing checks: ${failedChecks.join(', ')}`);
  if (r.not_applicable !== undefined && r.not_applicable.length > 0) {
    lines.push(
      `not applicable to ${r.worker_kind === 'in-process' ? 'an in-process worker' : 'a worker command'} (not rated, not counted):`,
    );
    for (const n of r.not_applicable) lines.push(`  ${n.check}: ${n.reason}`);
  }
  const defects = [...new Set(r.cases.flatMap((c) => (c.defect === undefined ? [] : [c.defect])))];
  if (defects.length > 0) {
    lines.push('malformed dispatches sent:');
    for (const d of defects) lines.push(`  ${d}: ${DEFECT_DESCRIPTIONS[d]}`);
  }
  lines.push(r.failed === 0 ? 'verdict: the worker conforms' : 'verdict: the worker does NOT conform');
  return `${lines.join('\n')}\n`;
}
