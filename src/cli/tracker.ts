/**
 * `handoff tracker …` — cycle budgets for autonomous runs: init, tick, can-deep, deep,
 * kw-search-can, kw-search, start-claim, reset-claim, status, stop. Output is `key=value` lines
 * on stdout; errors are `error=…` lines on stderr. Exit 0 ok, 1 limit reached or denied,
 * 2 usage, missing session or corrupt state.
 */
import { HandoffError, isHandoffError } from '../errors/index.js';
import {
  canDeepPairs,
  deleteSession,
  ENV_FILE_ENV,
  formatPairs,
  initTracker,
  kwSearchCanPairs,
  loadSession,
  newSessionId,
  persistEnvLine,
  recordDeep,
  recordKwSearch,
  resetClaim,
  SESSION_ID_ENV,
  type StatusPairs,
  saveSession,
  sessionDir,
  sessionPath,
  startClaim,
  type TrackerState,
  tick,
  tickPairs,
  trackerStatus,
  unpersistEnvLine,
} from '../tracker/index.js';
import { parseVerbArgs } from './args.js';
import type { CliCommand } from './command.js';
import { errorExitCode } from './exit-codes.js';
import type { CliIo } from './io.js';

const HELP = `usage: handoff tracker <verb> [options]

Cycle budgets, persisted per session in $HANDOFF_SESSION_DIR (default: the OS temp dir).
The session is chosen with --session ID or $HANDOFF_TRACKER_SESSION.

verbs:
  init --max-cycles=N --max-stuck=N [--max-runtime=D] [--max-deep-per-cycle=N]
       [--max-consecutive-deep=N] [--max-knowledge-search-per-cycle=N] [--session ID]
       aliases: --max-stuck-cycles, --max-total-runtime, --max-consecutive-deep-cycles
       defaults: deep-per-cycle 1, consecutive-deep 2, knowledge-search-per-cycle 3, runtime unlimited
       durations: digits + optional s|m|h (bare = minutes; empty or 0 = unlimited)
       prints the bare session id on stdout (also appended to $HANDOFF_ENV_FILE when set)
       and state_file=… on stderr
  tick --stuck=yes|no   one atomic cycle-boundary update; result=ok|LIMIT_REACHED (+ violation=…),
                        then cycles, consecutive_stuck, elapsed_seconds, elapsed_display,
                        deep_this_cycle, consecutive_deep_cycles, kw_search_this_cycle
  can-deep              result=ok|denied, reason=max-deep-per-cycle|max-consecutive-deep|max-runtime,
                        then deep_this_cycle, consecutive_deep_cycles, elapsed_seconds
  deep                  record one deep invocation
  kw-search-can         result=ok|denied, reason=max-knowledge-search-per-cycle|max-runtime,
                        then kw_search_this_cycle, elapsed_seconds
  kw-search             record one knowledge search
  start-claim           begin a claim (refused if one is active)
  reset-claim           end the active claim (refused if none)
  status                every counter and elapsed_display
  stop                  delete the session state

exit codes: 0 ok; 1 LIMIT_REACHED or denied; 2 usage, missing session or corrupt state.`;

const OPTIONS = {
  session: { type: 'string' },
  'max-cycles': { type: 'string' },
  'max-stuck': { type: 'string' },
  'max-stuck-cycles': { type: 'string' },
  'max-runtime': { type: 'string' },
  'max-total-runtime': { type: 'string' },
  'max-deep-per-cycle': { type: 'string' },
  'max-consecutive-deep': { type: 'string' },
  'max-consecutive-deep-cycles': { type: 'string' },
  'max-knowledge-search-per-cycle': { type: 'string' },
  stuck: { type: 'string' },
} as const;

const VERBS = new Set([
  'init',
  'tick',
  'can-deep',
  'deep',
  'kw-search-can',
  'kw-search',
  'start-claim',
  'reset-claim',
  'status',
  'stop',
]);

function nowMs(io: CliIo): number {
  const fixed = io.env.HANDOFF_TRACKER_NOW_MS;
  return fixed !== undefined && /^\d+$/.test(fixed) ? Number(fixed) : Date.now();
}

function pick(values: Record<string, unknown>, ...names: string[]): string | undefined {
  const given = names.filter((n) => typeof values[n] === 'string');
  if (given.length > 1) throw new HandoffError('usage', `give only one of --${given.join(', --')}`);
  const n = given[0];
  return n === undefined ? undefined : (values[n] as string);
}

async function execute(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals, rest } = parseVerbArgs(argv, OPTIONS);
  const [verb, ...extra] = [...positionals, ...rest];
  if (verb === undefined || !VERBS.has(verb)) {
    throw new HandoffError('usage', `unknown tracker verb '${verb ?? ''}' (see handoff tracker --help)`);
  }
  if (extra.length > 0) throw new HandoffError('usage', `unexpected argument '${extra[0]}'`);
  const dir = sessionDir(io.env);
  const now = nowMs(io);
  const out = (pairs: StatusPairs) => io.out(formatPairs(pairs));
  // a permission verdict with its counters: `result=ok` (exit 0) or `result=denied` + reason (exit 1)
  const permit = (pairs: StatusPairs): number => {
    out(pairs);
    return pairs[0]?.[1] === 'ok' ? 0 : 1;
  };

  if (verb === 'init') {
    const sid = pick(values, 'session') ?? newSessionId(now);
    const r = initTracker(
      {
        maxCycles: pick(values, 'max-cycles'),
        maxStuck: pick(values, 'max-stuck', 'max-stuck-cycles'),
        maxRuntime: pick(values, 'max-runtime', 'max-total-runtime'),
        maxDeepPerCycle: pick(values, 'max-deep-per-cycle'),
        maxConsecutiveDeep: pick(values, 'max-consecutive-deep', 'max-consecutive-deep-cycles'),
        maxKnowledgeSearchPerCycle: pick(values, 'max-knowledge-search-per-cycle'),
      },
      sid,
      now,
    );
    if (!r.ok) throw new HandoffError('usage', r.error);
    await saveSession(dir, r.state);
    const envFile = io.env[ENV_FILE_ENV];
    if (envFile !== undefined && envFile !== '') await persistEnvLine(envFile, sid);
    // stdout is the bare session id, as the reference's `SID=$(… init …)` expects; the state file
    // is a hint on stderr (the reference prints its session dir there when no env file is set)
    io.out(`${sid}\n`);
    io.err(`state_file=${sessionPath(dir, sid)}\n`);
    return 0;
  }

  const sid = pick(values, 'session') ?? io.env[SESSION_ID_ENV];
  if (sid === undefined || sid === '') {
    throw new HandoffError('usage', `no session: pass --session ID or set ${SESSION_ID_ENV}`);
  }
  for (const k of Object.keys(values)) {
    if (k !== 'session' && !(verb === 'tick' && k === 'stuck')) {
      throw new HandoffError('usage', `--${k} is not an option of tracker ${verb}`);
    }
  }
  const state = await loadSession(dir, sid);
  const save = (s: TrackerState) => saveSession(dir, s);

  switch (verb) {
    case 'tick': {
      const stuck = values.stuck;
      if (stuck !== 'yes' && stuck !== 'no') throw new HandoffError('usage', 'tick needs --stuck=yes|no');
      const t = tick(state, stuck === 'yes', now);
      await save(t.state);
      out([
        ['result', t.result],
        ...(t.violations.length > 0 ? [['violation', t.violations.join(',')] as const] : []),
        ...tickPairs(t.state, now),
      ]);
      return t.result === 'ok' ? 0 : 1;
    }
    case 'can-deep': {
      return permit(canDeepPairs(state, now));
    }
    case 'deep': {
      const next = recordDeep(state);
      await save(next);
      out([
        ['result', 'ok'],
        ['deep_this_cycle', `${next.deep_this_cycle}/${next.limits.max_deep_per_cycle}`],
        ['deep_total', String(next.deep_total)],
      ]);
      return 0;
    }
    case 'kw-search-can': {
      return permit(kwSearchCanPairs(state, now));
    }
    case 'kw-search': {
      const next = recordKwSearch(state);
      await save(next);
      out([
        ['result', 'ok'],
        [
          'kw_search_this_cycle',
          `${next.kw_search_this_cycle}/${next.limits.max_knowledge_search_per_cycle}`,
        ],
        ['kw_search_total', String(next.kw_search_total)],
      ]);
      return 0;
    }
    case 'start-claim':
    case 'reset-claim': {
      const r = verb === 'start-claim' ? startClaim(state) : resetClaim(state);
      if (!r.ok) throw new HandoffError('claim_state', r.error);
      await save(r.state);
      out([
        ['result', 'ok'],
        ['claim_active', String(r.state.claim_active)],
        ['claims_attempted', String(r.state.claims_attempted + (r.state.claim_active ? 1 : 0))],
      ]);
      return 0;
    }
    case 'status':
      out(trackerStatus(state, now));
      return 0;
    default: {
      // stop
      await deleteSession(dir, sid);
      const envFile = io.env[ENV_FILE_ENV];
      if (envFile !== undefined && envFile !== '') await unpersistEnvLine(envFile);
      out([
        ['result', 'ok'],
        ['stopped', sid],
      ]);
      return 0;
    }
  }
}

/** The `tracker` verb group. */
export const command: CliCommand = {
  verbs: [...VERBS],
  help: HELP,
  async run(argv, io) {
    try {
      return await execute(argv, io);
    } catch (e) {
      if (isHandoffError(e)) {
        io.err(`error=${e.message.replace(/\n/g, ' ')}\n`);
        return errorExitCode(e.code, 'tracker');
      }
      throw e;
    }
  },
};
