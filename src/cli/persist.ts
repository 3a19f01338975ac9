/**
 * `handoff persist …` — the run-persistence helper: start, note, review, replan, dispatch,
 * handoff, progress, finish, status, plus the read-only `reuse` preview and `custody`.
 * One JSON result (run-persist-result/v1, or the reuse/custody records) on stdout.
 * Exit: 0 ok / done stored / status / preview / custody; 2 usage; 3 startup-error; 5 stop / done not stored.
 */
import { resolve } from 'node:path';
import { validateDispatch } from '../contract/validate.js';
import { HandoffError } from '../errors/index.js';
import { PersistController } from '../persist/controller.js';
import { exitCodeOf } from '../persist/failure-policy.js';
import { type PersistResult, persistResult } from '../persist/result.js';
import { deriveCustody, preparePriorStart, type ReuseRefusal, reusePreview } from '../persist/reuse.js';
import { resolveStoreRoot } from '../store/fs-layout.js';
import type { Store } from '../store/store.js';
import { type OptionSpec, optionalString, parseVerbArgs, requireString } from './args.js';
import type { CliCommand } from './command.js';
import { didYouMean } from './did-you-mean.js';
import { type CliIo, printJson, readInput, readJsonInput } from './io.js';

/** Environment variable naming the invocation state file. */
export const PERSIST_STATE_ENV = 'HANDOFF_RUN_PERSIST_STATE';

const COMMON: OptionSpec = {
  state: { type: 'string' },
  root: { type: 'string' },
  'run-store': { type: 'string' },
  'project-root': { type: 'string' },
};

const VERB_OPTIONS: Record<string, OptionSpec> = {
  start: {
    dispatch: { type: 'string' },
    'tracker-session-id': { type: 'string' },
    'prior-run': { type: 'string' },
    'reuse-report': { type: 'string' },
    approve: { type: 'string' },
    'evidence-justification': { type: 'string' },
    now: { type: 'string' },
  },
  note: { kind: { type: 'string' }, text: { type: 'string' }, lean: { type: 'string' } },
  review: { payload: { type: 'string' } },
  replan: { payload: { type: 'string' } },
  dispatch: { payload: { type: 'string' } },
  handoff: { payload: { type: 'string' } },
  progress: { payload: { type: 'string' } },
  finish: { payload: { type: 'string' } },
  status: {},
  reuse: {
    'prior-run': { type: 'string' },
    target: { type: 'string' },
    scope: { type: 'string' },
    mode: { type: 'string' },
    'owned-file': { type: 'string', multiple: true },
  },
  custody: {
    report: { type: 'string' },
    'owned-file': { type: 'string', multiple: true },
    approve: { type: 'string' },
  },
};

const HELP = [
  'usage: handoff persist <verb> [options]',
  '',
  'verbs:',
  '  start --dispatch F|- [--tracker-session-id ID] [--now TS]',
  '        [--prior-run ID --reuse-report F [--approve TOKEN] [--evidence-justification TEXT]]',
  '  note --kind KIND --text TEXT [--lean FILE]',
  '  review|replan|dispatch|handoff|progress --payload F|-',
  '  finish --payload F|-            terminal; read `stored`',
  '  status',
  '  reuse --prior-run ID --target T --scope S --mode M --owned-file P...   (read-only preview)',
  '  custody --report F --owned-file P... [--approve TOKEN]',
  '',
  'common: --state FILE (default $HANDOFF_RUN_PERSIST_STATE; not used by reuse/custody),',
  '        --root DIR | --run-store DIR (default $HANDOFF_RUN_STORE, else <project>/.handoff), --project-root DIR',
  '',
  'Prints one JSON result (run-persist-result/v1; reuse prints run-persist-reuse/v1, custody run-persist-custody/v1).',
  'Exit codes: 0 continue / done stored / status / preview / custody; 2 usage; 3 startup-error (also invalid_progress);',
  '5 stop / done not stored.',
].join('\n');

async function openFsStore(root: string): Promise<Store> {
  const mod = (await import('../store/index.js')) as Record<string, unknown>;
  const create = mod.createFsStore as ((o: { root: string }) => Store | Promise<Store>) | undefined;
  if (typeof create !== 'function') {
    throw new HandoffError('unsupported_platform', 'the file-system store is not available in this build');
  }
  return create({ root });
}

function refusal(verb: string, r: ReuseRefusal): PersistResult {
  return persistResult(verb, 'startup-error', {
    code: r.code,
    message: r.message,
    ...(r.details === undefined ? {} : { details: r.details }),
    ...(r.handoff === undefined ? {} : { handoff: r.handoff }),
  });
}

function emit(io: CliIo, r: PersistResult): number {
  printJson(io, r);
  return exitCodeOf(r);
}

async function jsonArg(io: CliIo, source: string, what: string): Promise<unknown> {
  const j = await readJsonInput(io, source);
  if (!j.ok) throw new HandoffError('usage', `${what}: ${j.error}`);
  return j.value;
}

/** The `persist` verb group. */
export const command: CliCommand = {
  verbs: Object.keys(VERB_OPTIONS),
  verbOptions: Object.fromEntries(Object.entries(VERB_OPTIONS).map(([v, o]) => [v, { ...COMMON, ...o }])),
  help: HELP,
  async run(argv, io) {
    const [verb, ...rest] = argv;
    if (verb === undefined || !Object.hasOwn(VERB_OPTIONS, verb)) {
      throw new HandoffError(
        'usage',
        verb === undefined
          ? `missing verb (verbs: ${Object.keys(VERB_OPTIONS).join(', ')})`
          : `unknown persist verb ${JSON.stringify(verb)}${didYouMean(verb, Object.keys(VERB_OPTIONS))}`,
      );
    }
    const { values, positionals } = parseVerbArgs(
      rest,
      { ...COMMON, ...(VERB_OPTIONS[verb] as OptionSpec) },
      false,
    );
    if (positionals.length > 0)
      throw new HandoffError('usage', `unexpected arguments: ${positionals.join(' ')}`);
    const explicitRoot = optionalString(values, 'root') ?? optionalString(values, 'run-store');
    const projectRoot = resolve(io.cwd, optionalString(values, 'project-root') ?? '.');
    const storageRoot = resolveStoreRoot({ root: explicitRoot, projectRoot, env: io.env, cwd: io.cwd });

    if (verb === 'reuse' || verb === 'custody') {
      const store = await openFsStore(storageRoot);
      const owned = (values['owned-file'] as string[] | undefined) ?? [];
      if (verb === 'reuse') {
        const r = await reusePreview(
          { store, projectRoot },
          {
            priorRun: requireString(values, 'prior-run'),
            target: requireString(values, 'target'),
            scope: requireString(values, 'scope'),
            mode: requireString(values, 'mode'),
            ownedFiles: owned,
          },
        );
        if (!r.ok) return emit(io, refusal(verb, r));
        printJson(io, r.value);
        return 0;
      }
      const report = await jsonArg(io, requireString(values, 'report'), '--report');
      const c = await deriveCustody(
        { store, projectRoot },
        { report, ownedFiles: owned, approve: optionalString(values, 'approve') },
      );
      if (!c.ok) return emit(io, refusal(verb, c));
      printJson(io, c.value.custody);
      return 0;
    }

    const statePath = optionalString(values, 'state') ?? io.env[PERSIST_STATE_ENV];
    if (statePath === undefined || statePath === '') {
      throw new HandoffError('usage', `no invocation state: pass --state or set ${PERSIST_STATE_ENV}`);
    }
    const c = new PersistController({
      statePath: resolve(io.cwd, statePath),
      openStore: openFsStore,
      storageRoot,
      requestedRoot: explicitRoot === undefined ? null : resolve(io.cwd, explicitRoot),
      projectRoot,
    });
    switch (verb) {
      case 'start': {
        const dispatch = await jsonArg(io, requireString(values, 'dispatch'), '--dispatch');
        const priorRun = optionalString(values, 'prior-run');
        const input = {
          dispatch,
          trackerSessionId: optionalString(values, 'tracker-session-id') ?? null,
          ...(optionalString(values, 'now') === undefined
            ? {}
            : { now: optionalString(values, 'now') as string }),
        };
        if (priorRun === undefined) {
          for (const flag of ['reuse-report', 'approve', 'evidence-justification']) {
            if (optionalString(values, flag) !== undefined) {
              throw new HandoffError('usage', `--${flag} needs --prior-run`);
            }
          }
          return emit(io, await c.start(input));
        }
        const reportSrc = optionalString(values, 'reuse-report');
        if (reportSrc === undefined) {
          return emit(io, persistResult(verb, 'startup-error', { code: 'reuse_report_required' }));
        }
        let report: unknown;
        try {
          report = JSON.parse((await readInput(io, reportSrc)).toString('utf8'));
        } catch {
          return emit(
            io,
            persistResult(verb, 'startup-error', { code: 'bad_reuse_report', message: 'not JSON' }),
          );
        }
        const d = validateDispatch(dispatch);
        if (!d.ok)
          return emit(
            io,
            persistResult(verb, 'startup-error', { code: 'invalid_dispatch', errors: d.issues }),
          );
        const store = await openFsStore(storageRoot);
        const p = await preparePriorStart(
          { store, projectRoot },
          {
            priorRun,
            report,
            dispatch: d.value,
            approve: optionalString(values, 'approve'),
            evidenceJustification: optionalString(values, 'evidence-justification'),
          },
        );
        if (!p.ok) return emit(io, refusal(verb, p));
        return emit(io, await c.startPrepared(input, p.value));
      }
      case 'note': {
        const leanFile = optionalString(values, 'lean');
        const lean = leanFile === undefined ? null : (await readInput(io, leanFile)).toString('utf8');
        return emit(
          io,
          await c.note({ kind: requireString(values, 'kind'), text: requireString(values, 'text'), lean }),
        );
      }
      case 'status':
        return emit(io, await c.status());
      default: {
        const payload = await jsonArg(io, requireString(values, 'payload'), '--payload');
        const fn = {
          review: c.review,
          replan: c.replan,
          dispatch: c.dispatch,
          handoff: c.handoff,
          progress: c.progress,
          finish: c.finish,
        }[verb as 'review'];
        return emit(io, await fn.call(c, payload));
      }
    }
  },
};
