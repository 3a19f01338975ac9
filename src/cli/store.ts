/**
 * `handoff store create|append|set-handoff|load|validate|list` — the run-store/v1 helper.
 * Prints `run-store-result/v1` JSON; exit 0 committed, 3 nothing_written, 5 journal_only,
 * 6 indeterminate, 2 usage. `load` prints `run-store-load/v1` (exit 0) or a refusal (exit 3);
 * `validate` prints `{schema, outcome: ok|invalid, kind, errors}` (exit 0/3; an unreadable FILE is a
 * `payload_unreadable` refusal, exit 3). `recover` prints `run-store-recover/v1` with `--json`, else
 * lines for a person (exit 0 recovered / nothing to do / planned, 3 refused, 6 incomplete).
 */
import { HandoffError } from '../errors/index.js';
import { recoverRun } from '../store/fs-recover.js';
import {
  BATON_COMMIT_KIND,
  type ChainRunStore,
  createFsStore,
  EventKindSchema,
  OUTCOME_EXIT_CODES,
  RECORD_KINDS,
  RESULT_SCHEMA,
  type RecordKind,
  refused,
  type StoreResult,
  validateRecord,
} from '../store/index.js';
import {
  PG_NOTHING_TO_RECOVER,
  RECOVER_EXIT_CODES,
  recoverResult,
  recoverText,
} from '../store/recover-rules.js';
import type { RecoverResult } from '../store/recover-schema.js';
import { isRunId } from '../store/run-id.js';
import { integralFloatIssue } from '../validation/index.js';
import { type OptionSpec, optionalString, type ParsedArgs, parseVerbArgs, requireString } from './args.js';
import type { CliCommand } from './command.js';
import { didYouMean } from './did-you-mean.js';
import { type CliIo, printJson, readInput } from './io.js';
import { loadPg, PG_URL_ENV, type PgModule } from './optional-peer.js';
import { verbOptionTable } from './verb-help.js';

const OPTIONS: OptionSpec = {
  root: { type: 'string' },
  'run-store': { type: 'string' },
  'project-root': { type: 'string' },
  dispatch: { type: 'string' },
  'tracker-session-id': { type: 'string' },
  'prior-run': { type: 'string' },
  now: { type: 'string' },
  'event-schema': { type: 'string' },
  'run-id': { type: 'string' },
  kind: { type: 'string' },
  payload: { type: 'string' },
  pg: { type: 'string' },
  'pg-schema': { type: 'string' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
};

const COMMON = ['root', 'run-store', 'project-root', 'pg', 'pg-schema'];
const VERB_OPTIONS: Record<string, readonly string[]> = {
  create: [...COMMON, 'dispatch', 'tracker-session-id', 'prior-run', 'now', 'event-schema'],
  append: [...COMMON, 'run-id', 'kind', 'payload'],
  'set-handoff': [...COMMON, 'run-id', 'payload'],
  load: [...COMMON, 'run-id'],
  list: COMMON,
  recover: [...COMMON, 'run-id', 'dry-run', 'json'],
  validate: [...COMMON, 'kind'], // the common options are accepted (validate touches no store)
};

const HELP = [
  'usage: handoff store <verb> [--root DIR | --project-root DIR] [options]',
  '',
  'verbs:',
  '  create --dispatch F|- [--tracker-session-id ID] [--prior-run RUN_ID] [--now YYYY-MM-DDTHH:MM:SSZ]',
  '         [--event-schema v1|v2]            create a run (manifest + empty journal)',
  '  append --run-id ID --kind dispatch|handoff|note|review|replan|baton-commit --payload F|-',
  "                                            (baton-commit: a chain run's {baton, receipt})",
  '  set-handoff --run-id ID --payload F|-    append a handoff event and refresh handoff.json',
  '  load --run-id ID                          print run-store-load/v1 (valid prefix, damage, cache);',
  '                                            a chain run (run-store-manifest/chain-v1) loads with',
  '                                            its baton-commit events and last_baton',
  '  list                                      print the run ids of the store',
  '  recover --run-id ID [--dry-run] [--json]  break a stale .lock (its pid gone on this host) and truncate a',
  '                                            torn tail, journaled as a note (prints its cite); never automatic',
  '  validate --kind manifest|event|dispatch|handoff|note|cache|review|replan|baton-commit FILE|-',
  '                                            (manifest and event also accept the chain kinds)',
  '',
  'Storage root: --root (alias --run-store) → $HANDOFF_RUN_STORE → <--project-root or cwd>/.handoff.',
  'PostgreSQL: --pg URL [--pg-schema NAME] (or $HANDOFF_PG_URL when no --root/--run-store/--project-root is',
  'given) keeps the store in PostgreSQL (schema handoff_store by default); fs stays the default.',
  'Exit: 0 committed, 3 nothing_written (refusal, with "code"), 5 journal_only (set-handoff: cache',
  'not confirmed), 6 indeterminate (write or fsync failed part-way; "step"), 2 usage.',
  'load: 0 loaded (see "damaged"), 3 refused. validate: 0 ok, 3 invalid or unreadable (payload_unreadable).',
  'recover: 0 recovered, nothing_to_do or planned (--dry-run), 3 refused (nothing changed), 6 incomplete.',
  'A create refuses a root whose runs/ has paths in a Git index (git_tracked).',
].join('\n');

/** PostgreSQL stores opened by this invocation (their pools are ended when the verb returns). */
const openedPg: { close(): Promise<void> }[] = [];

/** Where the verb's store is: PostgreSQL (URL, schema) or the file system (root options). */
type StoreTarget =
  | { readonly kind: 'pg'; readonly url: string; readonly schema: string | undefined }
  | { readonly kind: 'fs'; readonly root: string | undefined; readonly projectRoot: string | undefined };

function storeTarget(values: ParsedArgs['values'], io: CliIo): StoreTarget {
  const root = optionalString(values, 'root') ?? optionalString(values, 'run-store');
  const projectRoot = optionalString(values, 'project-root');
  const pgFlag = optionalString(values, 'pg');
  if (pgFlag !== undefined && (root !== undefined || projectRoot !== undefined))
    throw new HandoffError('usage', 'give --pg URL or a file-system root, not both');
  const envUrl = io.env[PG_URL_ENV];
  const pgUrl =
    pgFlag ??
    (root === undefined && projectRoot === undefined && envUrl !== undefined && envUrl !== ''
      ? envUrl
      : undefined);
  const pgSchema = optionalString(values, 'pg-schema');
  if (pgUrl === undefined && pgSchema !== undefined)
    throw new HandoffError('usage', '--pg-schema needs --pg URL (or $HANDOFF_PG_URL)');
  if (pgUrl !== undefined) return { kind: 'pg', url: pgUrl, schema: pgSchema };
  if (values.root !== undefined && values['run-store'] !== undefined) {
    throw new HandoffError('usage', '--root and --run-store are the same option; give one');
  }
  if (root !== undefined && projectRoot !== undefined) {
    throw new HandoffError('usage', 'give --root or --project-root, not both');
  }
  return { kind: 'fs', root, projectRoot };
}

async function storeFor(values: ParsedArgs['values'], io: CliIo): Promise<ChainRunStore> {
  const target = storeTarget(values, io);
  if (target.kind === 'pg') {
    const { createPgStore } = await loadPg('--pg');
    let store: ReturnType<PgModule['createPgStore']>;
    try {
      store = createPgStore({
        connectionString: target.url,
        maxConnections: 2,
        ...(target.schema === undefined ? {} : { schema: target.schema }),
      });
    } catch (e) {
      throw new HandoffError('usage', (e as Error).message);
    }
    openedPg.push(store);
    return store;
  }
  return createFsStore({ root: target.root, projectRoot: target.projectRoot, env: io.env, cwd: io.cwd });
}

/**
 * `store recover`: the fs store's {@link recoverRun}; a PostgreSQL store has no lock file and no
 * torn line, so an existing run there is `nothing_to_do` (a missing one refused as load refuses it).
 */
async function recover(values: ParsedArgs['values'], io: CliIo): Promise<number> {
  const runId = requireString(values, 'run-id');
  const dryRun = values['dry-run'] === true;
  const target = storeTarget(values, io);
  let result: RecoverResult;
  if (target.kind === 'fs') {
    result = await recoverRun({
      runId,
      dryRun,
      ...(target.root === undefined ? {} : { root: target.root }),
      ...(target.projectRoot === undefined ? {} : { projectRoot: target.projectRoot }),
      env: io.env,
      cwd: io.cwd,
    });
  } else if (!isRunId(runId)) {
    result = recoverResult('refused', null, dryRun, [], `not a run id: ${JSON.stringify(runId)}`, {
      code: 'bad_run_id',
    });
  } else {
    const loaded = await (await storeFor(values, io)).loadRun(runId);
    result = loaded.ok
      ? recoverResult('nothing_to_do', runId, dryRun, [], PG_NOTHING_TO_RECOVER)
      : recoverResult('refused', runId, dryRun, [], loaded.detail, { code: loaded.code });
  }
  if (values.json === true) printJson(io, result);
  else io.out(recoverText(result));
  return RECOVER_EXIT_CODES[result.outcome];
}

/**
 * Reads a `F|-` JSON payload; a refusal result when it cannot be read or parsed, or when it
 * holds an integral float in an integer field of `recordKind`.
 */
async function readPayload(
  io: CliIo,
  source: string,
  runId: string | null,
  notJsonCode: 'invalid_payload' | 'invalid_dispatch',
  recordKind: RecordKind,
): Promise<{ ok: true; value: unknown } | { ok: false; result: StoreResult }> {
  let bytes: Buffer;
  try {
    bytes = await readInput(io, source);
  } catch (e) {
    return { ok: false, result: refused(runId, 'payload_unreadable', (e as Error).message) };
  }
  const text = bytes.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, result: refused(runId, notJsonCode, `payload is not JSON: ${(e as Error).message}`) };
  }
  // an integral float in an integer field (`"cycle": 1.0`) is refused, as by the reference
  const float = integralFloatIssue(text, value, (v) => validateRecord(recordKind, v).length === 0);
  if (float !== null)
    return { ok: false, result: refused(runId, notJsonCode, `${float.path}: ${float.message}`) };
  return { ok: true, value };
}

function emit(io: CliIo, result: StoreResult): number {
  printJson(io, result);
  return OUTCOME_EXIT_CODES[result.outcome];
}

/** The `store` verb group. */
export const command: CliCommand = {
  verbs: Object.keys(VERB_OPTIONS),
  verbOptions: Object.fromEntries(
    Object.entries(VERB_OPTIONS).map(([v, names]) => [v, verbOptionTable(names, OPTIONS)]),
  ),
  help: HELP,
  async run(argv, io) {
    try {
      return await runVerb(argv, io);
    } finally {
      for (const s of openedPg.splice(0)) await s.close().catch(() => {});
    }
  },
};

async function runVerb(argv: readonly string[], io: CliIo): Promise<number> {
  {
    const { values, positionals, rest } = parseVerbArgs(argv, OPTIONS);
    const [verb, ...extra] = positionals;
    if (verb === undefined)
      throw new HandoffError(
        'usage',
        `missing verb (verbs: ${Object.keys(VERB_OPTIONS).join(', ')}; handoff store --help)`,
      );
    const allowed = VERB_OPTIONS[verb];
    if (allowed === undefined || !Object.hasOwn(VERB_OPTIONS, verb)) {
      throw new HandoffError(
        'usage',
        `unknown store verb '${verb}'${didYouMean(verb, Object.keys(VERB_OPTIONS))}`,
      );
    }
    for (const k of Object.keys(values)) {
      if (!allowed.includes(k)) throw new HandoffError('usage', `--${k} is not an option of store ${verb}`);
    }
    if (verb !== 'validate' && (extra.length > 0 || rest.length > 0)) {
      throw new HandoffError('usage', `unexpected argument ${[...extra, ...rest][0]}`);
    }
    switch (verb) {
      case 'create': {
        const store = await storeFor(values, io);
        const schema = optionalString(values, 'event-schema');
        if (schema !== undefined && schema !== 'v1' && schema !== 'v2') {
          throw new HandoffError('usage', '--event-schema must be v1 or v2');
        }
        const payload = await readPayload(
          io,
          requireString(values, 'dispatch'),
          null,
          'invalid_dispatch',
          'dispatch',
        );
        if (!payload.ok) return emit(io, payload.result);
        const now = optionalString(values, 'now');
        return emit(
          io,
          await store.createRun({
            dispatch: payload.value,
            trackerSessionId: optionalString(values, 'tracker-session-id') ?? null,
            priorRun: optionalString(values, 'prior-run') ?? null,
            ...(now === undefined ? {} : { now }),
            ...(schema === undefined ? {} : { eventSchema: schema }),
          }),
        );
      }
      case 'append':
      case 'set-handoff': {
        const store = await storeFor(values, io);
        const runId = requireString(values, 'run-id');
        let kind = 'handoff';
        if (verb === 'append') {
          kind = requireString(values, 'kind');
          // an unknown kind is a usage error, exit 2, as in the reference (its argparse choices);
          // a known kind the run does not support (a v2 kind in a v1 run) stays `kind_unsupported`
          if (kind !== BATON_COMMIT_KIND && !EventKindSchema.safeParse(kind).success) {
            throw new HandoffError(
              'usage',
              `unknown --kind ${kind} (${[...EventKindSchema.options, BATON_COMMIT_KIND].join(', ')})`,
            );
          }
        }
        const payload = await readPayload(
          io,
          requireString(values, 'payload'),
          runId,
          'invalid_payload',
          kind === BATON_COMMIT_KIND ? 'baton-commit' : (kind as RecordKind),
        );
        if (!payload.ok) return emit(io, payload.result);
        const result =
          verb === 'append'
            ? await store.append(runId, kind as 'note', payload.value)
            : await store.setHandoff(runId, payload.value);
        return emit(io, result);
      }
      case 'load': {
        const store = await storeFor(values, io);
        const runId = requireString(values, 'run-id');
        const r = await store.loadRun(runId);
        if (!r.ok) return emit(io, refused(r.run_id, r.code, r.detail));
        printJson(io, r.value);
        return 0;
      }
      case 'recover':
        return await recover(values, io);
      case 'list': {
        const store = await storeFor(values, io);
        printJson(io, { root: store.root, runs: await store.listRuns() });
        return 0;
      }
      default: {
        // validate
        const kind = requireString(values, 'kind');
        if (!(RECORD_KINDS as readonly string[]).includes(kind)) {
          throw new HandoffError('usage', `unknown --kind ${kind} (${RECORD_KINDS.join(', ')})`);
        }
        const sources = [...extra, ...rest];
        if (sources.length !== 1) throw new HandoffError('usage', 'validate takes exactly one FILE or -');
        let text: string;
        try {
          text = (await readInput(io, sources[0] as string)).toString('utf8');
        } catch (e) {
          return emit(io, refused(null, 'payload_unreadable', (e as Error).message));
        }
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch (e) {
          printJson(io, {
            schema: RESULT_SCHEMA,
            outcome: 'invalid',
            kind,
            errors: [{ path: '', code: 'not_json', message: (e as Error).message }],
          });
          return 3;
        }
        const errors = validateRecord(kind as RecordKind, value);
        if (errors.length === 0) {
          const float = integralFloatIssue(
            text,
            value,
            (v) => validateRecord(kind as RecordKind, v).length === 0,
          );
          if (float !== null) errors.push(float);
        }
        printJson(io, {
          schema: RESULT_SCHEMA,
          outcome: errors.length === 0 ? 'ok' : 'invalid',
          kind,
          errors,
        });
        return errors.length === 0 ? 0 : 3;
      }
    }
  }
}
