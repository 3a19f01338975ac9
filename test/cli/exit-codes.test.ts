/**
 * The CLI's one code → exit table (src/cli/exit-codes.ts): it decides about every code of the
 * catalogue, keeps each command's spec exit statuses, and is the only place an exit status comes
 * from — no library error puts `exit_code` into its details.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_ERROR_EXIT, ERROR_EXIT, errorExitCode } from '../../src/cli/exit-codes.js';
import { GROUPS } from '../../src/cli/main.js';
import { ERROR_CODES, type HandoffErrorCode } from '../../src/errors/index.js';

describe('the code → exit table', () => {
  it('has an exit status for every code of the catalogue and for nothing else', () => {
    expect(Object.keys(ERROR_EXIT).sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) expect(Number.isInteger(ERROR_EXIT[code]), code).toBe(true);
  });

  it('command columns name real commands; usage is 2 under every command', () => {
    for (const command of Object.keys(COMMAND_ERROR_EXIT)) expect(Object.keys(GROUPS)).toContain(command);
    for (const command of [...Object.keys(GROUPS), undefined])
      expect(errorExitCode('usage', command)).toBe(2);
  });

  it.each<[string, HandoffErrorCode, number]>([
    // baseline (file-baseline/v1): 2 input, 3 drift, 4 operational
    ['baseline', 'invalid_record', 2],
    ['baseline', 'unknown_path', 2],
    ['baseline', 'duplicate_path', 2],
    ['baseline', 'io_error', 4],
    ['baseline', 'drift', 3],
    ['baseline', 'custody_violation', 4],
    // gate: 3 invalid input record, 4 git/ledger I/O or damage, 5 the enforcer's refusals
    ['gate', 'invalid_input', 3],
    ['gate', 'git_failed', 4],
    ['gate', 'ledger_damaged', 4],
    ['gate', 'ledger_contention', 4],
    ['gate', 'ledger_unavailable', 4],
    ['gate', 'history_missing', 5],
    ['gate', 'no_such_grant', 5],
    ['gate', 'grant_state', 5],
    ['gate', 'attempt_not_authorized', 5],
    ['gate', 'base_mismatch', 5],
    ['gate', 'internal', 4],
    // tracker: 2 for usage, a missing session, a corrupt state — and anything else
    ['tracker', 'no_session', 2],
    ['tracker', 'corrupt_state', 2],
    ['tracker', 'claim_state', 2],
    ['tracker', 'io_error', 2],
    // envelope build: 3 refused input, whatever the cause
    ['envelope', 'envelope_invalid_repo', 3],
    ['envelope', 'settings_invalid', 3],
    ['envelope', 'canonical_unsupported', 3],
    // run: 3 the rerun guard's refusals and an unknown prior run, 4 what needs reconciliation
    ['run', 'rerun_forbidden', 3],
    ['run', 'blocker_cleared', 3],
    ['run', 'justification_required', 3],
    ['run', 'bad_prior_run', 3],
    ['run', 'drift_unreconciled', 4],
    ['run', 'drift_unapproved', 4],
    ['run', 'prior_run_active', 4],
    ['run', 'incomplete_run', 4],
    ['run', 'persist_stop', 4],
    ['run', 'invalid_progress', 4],
    ['run', 'protocol_error', 4],
    // a malformed run id: 3 in every command that takes one
    ['run', 'bad_run_id', 3],
    ['inspect', 'bad_run_id', 3],
    ['store', 'bad_run_id', 3],
    // a well-formed run id the store does not hold: 3 in every command that takes one
    ['inspect', 'no_such_run', 3],
    ['inspect', 'no_runs_dir', 3],
    ['store', 'no_such_run', 3],
    ['inspect', 'io_error', 4],
    // chain: 3 a seam refusal, 4 a store that refuses or fails a commit
    ['chain', 'missing_required_fact', 3],
    ['chain', 'fact_semantic_violation', 3],
    ['chain', 'busy', 4],
    ['chain', 'store_indeterminate', 4],
    ['chain', 'journal_conflict', 4],
    // persist: a startup refusal
    ['persist', 'unsupported_platform', 3],
    ['viz', 'io_error', 4],
    ['conformance', 'io_error', 4],
  ])('%s: %s exits %i', (command, code, exit) => {
    expect(errorExitCode(code, command)).toBe(exit);
  });
});

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

describe('no library error names an exit status', () => {
  it('outside src/cli, no HandoffError details hold exit_code', () => {
    const root = join(process.cwd(), 'src');
    const offenders = sources(root)
      .map((f) => relative(root, f))
      .filter((f) => !f.startsWith('cli/'))
      .filter((f) => /details:\s*\{[^}]*\bexit_code\b/.test(readFileSync(join(root, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
