/**
 * `handoff validate --kind dispatch|handoff|baseline <FILE|->`: prints
 * `{ ok, kind, issues, warnings }`; exit 0 valid, 3 invalid, 2 usage (unknown kind, unreadable
 * file). Warnings (unknown keys, kept) never make a record invalid.
 */
import { validateBaseline, validateDispatch, validateHandoff } from '../contract/index.js';
import { HandoffError } from '../errors/index.js';
import { integralFloatIssue, type ValidationResult } from '../validation/index.js';
import { parseVerbArgs, requireString } from './args.js';
import type { CliCommand } from './command.js';
import { printJson, readJsonInput } from './io.js';

const VALIDATORS: Record<string, (x: unknown) => ValidationResult<unknown>> = {
  dispatch: validateDispatch,
  handoff: validateHandoff,
  baseline: validateBaseline,
};

/**
 * The kind of record `value` says it is, when it says so plainly: a run-contract/v1 record names
 * itself (`record: dispatch|handoff`); a file-baseline/v1 record is its schema. Null otherwise.
 *
 * @example
 * ```ts
 * recordKindOf({ schema: 'run-contract/v1', record: 'handoff' }); // 'handoff'
 * recordKindOf({ schema: 'file-baseline/v1', files: [] }); // 'baseline'
 * recordKindOf([1, 2]); // null
 * ```
 */
export function recordKindOf(value: unknown): 'dispatch' | 'handoff' | 'baseline' | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  if (v.schema === 'file-baseline/v1') return 'baseline';
  if (v.schema === 'run-contract/v1' && (v.record === 'dispatch' || v.record === 'handoff')) return v.record;
  return null;
}

/** Exit code of an invalid record. */
export const EXIT_INVALID = 3;

/** The `validate` verb. */
export const command: CliCommand = {
  verbs: [],
  help: [
    'usage: handoff validate --kind dispatch|handoff|baseline <FILE|->',
    '',
    'Validates one record and prints {"ok", "kind", "issues": [{path, code, message}], "warnings": […]}.',
    'Unknown keys at the root, in context/evidence and in a baseline are accepted (as by the',
    'reference validator) and listed as unknown_key warnings; a baseline path may be POSIX, Windows',
    '(C:\\…) or UNC (\\\\server\\…) — only local paths can be checked or advanced.',
    'Exit: 0 valid, 3 invalid (including text that is not JSON), 2 usage.',
  ].join('\n'),
  async run(argv, io) {
    const { values, positionals, rest } = parseVerbArgs(argv, { kind: { type: 'string' } });
    const kind = requireString(values, 'kind');
    const validator = VALIDATORS[kind];
    if (validator === undefined || !Object.hasOwn(VALIDATORS, kind)) {
      throw new HandoffError('usage', `unknown --kind ${kind} (dispatch, handoff or baseline)`);
    }
    const sources = [...positionals, ...rest];
    if (sources.length !== 1) throw new HandoffError('usage', 'validate takes exactly one FILE or -');
    const parsed = await readJsonInput(io, sources[0] as string);
    if (!parsed.ok) {
      printJson(io, {
        ok: false,
        kind,
        issues: [{ path: '', code: 'not_json', message: parsed.error }],
        warnings: [],
      });
      return EXIT_INVALID;
    }
    const r = validator(parsed.value);
    const other = r.ok ? null : recordKindOf(parsed.value);
    if (other !== null && other !== kind) {
      // a record of another kind: one issue naming it, not one per field of the wrong schema
      const message = `this looks like a ${other} record (use --kind ${other})`;
      printJson(io, { ok: false, kind, issues: [{ path: '', code: 'wrong_kind', message }], warnings: [] });
      io.err(`handoff validate: ${message}\n`);
      return EXIT_INVALID;
    }
    // an integral float in an integer field (`max_cycles: 20.0`) is invalid, as for the reference
    const float = r.ok ? integralFloatIssue(parsed.text, parsed.value, (v) => validator(v).ok) : null;
    if (float !== null) {
      printJson(io, { ok: false, kind, issues: [float], warnings: r.warnings ?? [] });
      return EXIT_INVALID;
    }
    printJson(io, { ok: r.ok, kind, issues: r.ok ? [] : r.issues, warnings: r.warnings ?? [] });
    return r.ok ? 0 : EXIT_INVALID;
  },
};
