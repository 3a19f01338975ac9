import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { exitCodeFor, progressPrinter } from '../../src/cli/run.js';
import { describeProgress } from '../../src/runtime/worker-framing.js';

const io = (isTTY: boolean): CliIo => ({
  out: () => {},
  err: () => {},
  readStdin: async () => Buffer.alloc(0),
  env: {},
  cwd: '/',
  isTTY,
});
const p = {
  phase: 'work.dispatching',
  cycle: 2,
  maxCycles: 20,
  open: 3,
  consecutiveStuck: 1,
  elapsedMs: 65_000,
};

describe('handoff run output', () => {
  it('rewrites one status line on a TTY and prints plain log lines otherwise', () => {
    let tty = '';
    progressPrinter(io(true), (t) => {
      tty += t;
    })({ ...p, newLog: ['work: A.lean:2 → solved'] });
    expect(tty).toBe(
      '\r\x1b[2K  work: A.lean:2 → solved\n[work.dispatching] cycle 2/20 · open 3 · stuck 1 · 1m05s',
    );
    let plain = '';
    const show = progressPrinter(io(false), (t) => {
      plain += t;
    });
    show({ ...p, newLog: ['work: A.lean:2 → solved'] });
    show({ ...p, newLog: [] });
    expect(plain).toBe('work: A.lean:2 → solved\n');
  });
  it('prints worker progress lines above the status line (TTY) or as plain lines', () => {
    let tty = '';
    const show = progressPrinter(io(true), (t) => {
      tty += t;
    });
    show({ ...p, newLog: [] });
    tty = '';
    show.line(describeProgress({ schema: 'run-persist-progress/v1', attempted_tools: ['simp'] }, 'A.lean:2'));
    expect(tty).toBe(
      '\r\x1b[2K  progress A.lean:2: tools simp\n[work.dispatching] cycle 2/20 · open 3 · stuck 1 · 1m05s',
    );
    let plain = '';
    progressPrinter(io(false), (t) => {
      plain += t;
    }).line('progress A.lean:2: working');
    expect(plain).toBe('progress A.lean:2: working\n');
    expect(
      describeProgress(
        {
          schema: 'run-persist-progress/v1',
          files_changed: ['/p/A.lean'],
          best_candidates: [{ candidate: 'rfl', outcome: 'pass' }],
          evidence: { queries: ['a', 'b'] },
        },
        'A.lean:2',
      ),
    ).toBe('progress A.lean:2: changed A.lean · 1 candidate · 2 queries');
  });
  it('maps final handoffs to exit codes', () => {
    expect(exitCodeFor({ status: 'solved', stop_reason: null })).toBe(0);
    expect(exitCodeFor({ status: 'stuck', stop_reason: null })).toBe(3);
    expect(exitCodeFor({ status: 'stopped', stop_reason: 'max-stuck' })).toBe(3);
    expect(exitCodeFor({ status: 'stopped', stop_reason: 'max-cycles' })).toBe(1);
    expect(exitCodeFor({ status: 'stopped', stop_reason: 'user-stop' })).toBe(1);
    expect(exitCodeFor({ status: 'stopped', stop_reason: 'protocol-error' })).toBe(4);
    expect(exitCodeFor({ status: 'stopped', stop_reason: 'operational-error' })).toBe(4);
  });
});
