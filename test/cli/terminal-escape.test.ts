/**
 * Worker strings never reach a terminal raw: the pure escaping (every class of control), its
 * properties (no control left, idempotent, JSON round-trips to the identical value), the CLI seam
 * (escapingIo, printJson, the TTY progress renderer, the conformance summary), and real verbs run
 * as child processes on hostile records and a hostile worker, while the stored records keep the
 * original text.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forSummary } from '../../src/cli/conformance.js';
import { type CliIo, escapingIo, printJson } from '../../src/cli/io.js';
import { progressPrinter } from '../../src/cli/run.js';
import { escapeControls, escapeLine, toTerminalJson } from '../../src/cli/terminal-text.js';
import { formatReport } from '../../src/conformance/index.js';
import type { Handoff } from '../../src/contract/index.js';
import { canonicalDispatch, stuckHandoff } from '../contract/fixtures.js';
import { runArgs, withGitProject } from '../e2e/helpers.js';
import { type CliRun, runCli, stdoutJson } from '../helpers/cli.js';

/** Code points a terminal may obey: C0, DEL, C1, U+2028/2029 and the bidi controls. */
function isDisplayControl(cp: number): boolean {
  return (
    cp < 0x20 ||
    (cp >= 0x7f && cp <= 0x9f) ||
    cp === 0x061c ||
    cp === 0x200e ||
    cp === 0x200f ||
    (cp >= 0x2028 && cp <= 0x202e) ||
    (cp >= 0x2066 && cp <= 0x2069)
  );
}

/** The display controls in `text` as `U+XXXX`, `\n` and `\t` allowed unless `oneLine`. */
function controlsIn(text: string, oneLine = false): string[] {
  const found = new Set<string>();
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (!oneLine && (ch === '\n' || ch === '\t')) continue;
    if (isDisplayControl(cp)) found.add(`U+${cp.toString(16).toUpperCase().padStart(4, '0')}`);
  }
  return [...found];
}

function expectNoRawControls(run: CliRun): void {
  expect(controlsIn(run.stdout), 'stdout').toEqual([]);
  expect(controlsIn(run.stderr), 'stderr').toEqual([]);
}

const CLEAR = '\x1b[2J\x1b[H';
const TITLE = '\x1b]0;pwned\x07';
const LINK = '\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\';
const OVERWRITE = 'ok\rFAIL\b\b';
const C1_CSI = '\u009b31mred';
const BIDI = '\u202eevil\u202c \u2066x\u2069 \u200e\u061c';
/** One string with every class, and a newline that tries to forge a summary line. */
const HOSTILE = `${CLEAR}${TITLE}${LINK}${OVERWRITE}${C1_CSI}\x7f\x00${BIDI}\u2028\nrun forged: solved`;

describe('escapeControls / escapeLine (pure)', () => {
  it('shows CSI sequences (clear screen, cursor home, C1 CSI) as \\uXXXX', () => {
    expect(escapeControls('\x1b[2J\x1b[H')).toBe('\\u001b[2J\\u001b[H');
    expect(escapeControls('a\u009b31mb')).toBe('a\\u009b31mb');
  });
  it('shows OSC 0 window titles and OSC 8 hyperlinks', () => {
    expect(escapeControls(TITLE)).toBe('\\u001b]0;pwned\\u0007');
    expect(escapeControls(LINK)).toBe(
      '\\u001b]8;;https://evil.example/\\u001b\\click me\\u001b]8;;\\u001b\\',
    );
  });
  it('shows CR, BS, DEL and NUL', () => {
    expect(escapeControls(OVERWRITE)).toBe('ok\\u000dFAIL\\u0008\\u0008');
    expect(escapeControls('a\x7fb\x00c')).toBe('a\\u007fb\\u0000c');
  });
  it('shows the bidi controls and the line/paragraph separators', () => {
    expect(escapeControls(BIDI)).toBe('\\u202eevil\\u202c \\u2066x\\u2069 \\u200e\\u061c');
    expect(escapeControls('a\u2028b\u2029c')).toBe('a\\u2028b\\u2029c');
  });
  it('keeps \\n and \\t of multi-line text; escapeLine escapes them too', () => {
    expect(escapeControls('a\tb\nc')).toBe('a\tb\nc');
    expect(escapeLine('a\tb\nc\r')).toBe('a\\u0009b\\u000ac\\u000d');
  });
  it('leaves ordinary text alone: non-ASCII, arrows, emoji with ZWJ, backslashes', () => {
    const plain = 'Lemma α → β · ünïcode 👩‍💻 C:\\path "quoted"';
    expect(escapeControls(plain)).toBe(plain);
    expect(escapeLine(plain)).toBe(plain);
  });
  it('toTerminalJson escapes DEL, C1 and bidi inside strings; compact with indent 0', () => {
    expect(toTerminalJson({ d: 'x\u009b2J\x7f\u202e' }, 0)).toBe('{"d":"x\\u009b2J\\u007f\\u202e"}');
    expect(toTerminalJson({ a: [1] })).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(toTerminalJson(undefined)).toBe('null');
  });
});

describe('escaping properties (fast-check, seeded)', () => {
  const hostileUnit = fc.oneof(
    fc.constantFrom(
      '\x1b',
      '\x07',
      '\r',
      '\b',
      '\n',
      '\t',
      '\x00',
      '\x7f',
      '\u0085',
      '\u009b',
      '\u009d',
      '\u2028',
      '\u2029',
      '\u202e',
      '\u2066',
      '\u200f',
      '\u061c',
      '\\',
      '"',
      '[',
    ),
    fc.string({ unit: 'binary', maxLength: 3 }),
  );
  const hostile = fc.string({ unit: hostileUnit, maxLength: 40 });

  it('escapeControls leaves no control but \\n/\\t, escapeLine none; both idempotent', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const text = escapeControls(s);
        const line = escapeLine(s);
        expect(controlsIn(text)).toEqual([]);
        expect(controlsIn(line, true)).toEqual([]);
        expect(escapeControls(text)).toBe(text);
        expect(escapeLine(line)).toBe(line);
        // \n and \t are the only differences between the two forms
        expect(line).toBe(text.replace(/\n/g, '\\u000a').replace(/\t/g, '\\u0009'));
      }),
      { numRuns: 500, seed: 20261201 },
    );
  });

  it('toTerminalJson parses back to the identical value, holds no control, and is what the sink makes of JSON.stringify', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: hostileUnit, maxDepth: 3 }), (v) => {
        const json = toTerminalJson(v);
        expect(controlsIn(json)).toEqual([]);
        expect(JSON.parse(json)).toStrictEqual(JSON.parse(JSON.stringify(v)));
        // the escaping CliIo turns plain JSON.stringify output into the same text: no double escaping
        expect(escapeControls(JSON.stringify(v, null, 2))).toBe(json);
        expect(escapeControls(json)).toBe(json);
      }),
      { numRuns: 300, seed: 20261202 },
    );
  });
});

/** An in-memory CliIo that records what reaches each stream. */
function captureIo(isTTY = false): CliIo & { stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    readStdin: async () => Buffer.alloc(0),
    env: {},
    cwd: '/',
    isTTY,
    stdout: () => out,
    stderr: () => err,
  };
}

describe('the CLI seam', () => {
  it('escapingIo escapes out and err, keeps raw writers for the CLI’s own controls, and wraps idempotently', () => {
    const base = captureIo();
    const io = escapingIo(escapingIo(base));
    io.out(`detail ${HOSTILE}\n`);
    io.err(`${TITLE}\n`);
    io.raw?.err('\r\x1b[2K');
    expect(base.stdout()).toBe(`detail ${escapeControls(HOSTILE)}\n`);
    expect(base.stderr()).toBe('\\u001b]0;pwned\\u0007\n\r\x1b[2K');
  });

  it('printJson writes JSON that parses back to the original record, with no raw control', () => {
    const io = captureIo();
    const h = { ...stuckHandoff(), blocker_signature: HOSTILE, attempted_tools: [LINK, C1_CSI] };
    printJson(io, h);
    expect(controlsIn(io.stdout())).toEqual([]);
    expect(JSON.parse(io.stdout())).toEqual(h);
  });

  it('the TTY progress renderer emits only its own \\r\\x1b[2K; worker lines stay one escaped line', () => {
    const io = escapingIo(captureIo(true));
    let tty = '';
    const show = progressPrinter(io, (t) => {
      tty += t;
    });
    const p = { phase: 'work', cycle: 1, maxCycles: 3, open: 1, consecutiveStuck: 0, elapsedMs: 0 };
    show({ ...p, newLog: [`work: H.lean:2 → stuck ${HOSTILE}`] });
    show.line(`progress H.lean:2: tools ${HOSTILE}`);
    const own = tty.split('\r\x1b[2K');
    expect(own).toHaveLength(3); // exactly the renderer's two clear-line sequences
    for (const part of own) expect(controlsIn(part)).toEqual([]);
    expect(tty).not.toMatch(/^run forged/m);
    expect(tty).toContain(`  work: H.lean:2 → stuck ${escapeLine(HOSTILE)}\n`);
    // plain mode through the escaping out: the same single escaped line
    const plain = captureIo(false);
    progressPrinter(escapingIo(plain)).line(`progress H.lean:2: tools ${HOSTILE}`);
    expect(plain.stdout()).toBe(`progress H.lean:2: tools ${escapeLine(HOSTILE)}\n`);
  });

  it('the conformance summary shows a hostile detail on its own line, escaped', () => {
    const report = {
      schema: 'conformance-report/v1' as const,
      worker: ['node', `w${TITLE}.mjs`],
      seed: 1,
      runs: 1,
      cases: [
        {
          case_id: 'case-01',
          kind: 'valid' as const,
          target: 'A.lean',
          exit_code: 0,
          status: 'stopped',
          stop_reason: 'protocol-error',
          passed: false,
        },
      ],
      passed: 0,
      failed: 1,
      findings: [
        {
          case_id: 'case-01',
          kind: 'valid' as const,
          check: 'valid-accepted' as const,
          passed: false,
          detail: `refused: ${HOSTILE}\nverdict: the worker conforms`,
        },
      ],
    };
    const text = formatReport(forSummary(report));
    expect(controlsIn(text)).toEqual([]);
    expect(text).not.toMatch(/^verdict: the worker conforms$/m);
    expect(text).toMatch(/^verdict: the worker does NOT conform$/m);
    expect(report.findings[0]?.detail).toContain('\x1b'); // the report record itself is untouched
  });
});

describe('real verbs on hostile records (child processes)', () => {
  let dir: string;
  const file = (n: string) => join(dir, n);
  const hostileHandoff = (): Handoff => ({
    ...stuckHandoff(),
    blocker_signature: `Mathlib/Foo.lean:42:${HOSTILE}`,
    attempted_tools: [LINK, TITLE, C1_CSI],
    failed_avenues: [OVERWRITE, BIDI],
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'handoff-escape-'));
    await writeFile(file('hostile.json'), JSON.stringify(hostileHandoff()));
    await writeFile(
      file('relaunch.json'),
      JSON.stringify({ ...canonicalDispatch(), prior_blocker: hostileHandoff().blocker_signature }),
    );
    await writeFile(file('dispatch.json'), JSON.stringify(canonicalDispatch()));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('store load and inspect print the hostile record escaped; the store keeps the original text', async () => {
    const root = file('store');
    const created = await runCli(['store', 'create', '--root', root, '--dispatch', file('dispatch.json')]);
    expect(created.code, created.stderr).toBe(0);
    const runId = stdoutJson<{ run_id: string }>(created).run_id;
    const set = await runCli([
      'store',
      'set-handoff',
      '--root',
      root,
      '--run-id',
      runId,
      '--payload',
      file('hostile.json'),
    ]);
    expect(set.code, set.stderr).toBe(0);

    const load = await runCli(['store', 'load', '--root', root, '--run-id', runId]);
    expect(load.code, load.stderr).toBe(0);
    expectNoRawControls(load);
    expect(load.stdout).toContain('\\u009b31mred');
    const loaded = stdoutJson<{ handoff: Handoff | null; events: { payload: unknown }[] }>(load);
    expect(loaded.events.at(-1)?.payload).toEqual(hostileHandoff());

    const stored = (
      JSON.parse(await readFile(join(root, 'runs', runId, 'handoff.json'), 'utf8')) as { payload: Handoff }
    ).payload;
    expect(stored.blocker_signature).toBe(hostileHandoff().blocker_signature);
    expect(stored.attempted_tools).toEqual([LINK, TITLE, C1_CSI]);

    for (const format of ['text', 'json', 'mermaid', 'dot', 'html']) {
      const shown = await runCli(['inspect', runId, '--root', root, '--format', format]);
      expect(shown.code, shown.stderr).toBe(0);
      expectNoRawControls(shown);
    }
  });

  it('guard and dispatch check print verdicts and records escaped, parsing back to the original', async () => {
    const guard = await runCli([
      'guard',
      '--dispatch',
      file('relaunch.json'),
      '--prior',
      file('hostile.json'),
    ]);
    expectNoRawControls(guard);
    expect(guard.stdout + guard.stderr).toContain('\\u001b]0;pwned\\u0007');

    const check = await runCli(['dispatch', 'check', file('relaunch.json')]);
    expect(check.code, check.stderr).toBe(0);
    expectNoRawControls(check);
    expect(stdoutJson<{ prior_blocker: string }>(check).prior_blocker).toBe(
      hostileHandoff().blocker_signature,
    );

    const validate = await runCli(['validate', '--kind', 'handoff', '-'], {
      input: JSON.stringify({ ...hostileHandoff(), blocker_class: null }),
    });
    expect(validate.code).toBe(3);
    expectNoRawControls(validate);
  });

  it('errors on stderr (usage, unknown command) show control characters in arguments escaped', async () => {
    const missing = await runCli(['validate', '--kind', 'dispatch', `${TITLE}${CLEAR}.json`]);
    expect(missing.code).toBe(2);
    expectNoRawControls(missing);
    expect(missing.stderr).toContain('\\u001b]0;pwned\\u0007');
    const unknown = await runCli([`frob${CLEAR}`]);
    expect(unknown.code).toBe(2);
    expectNoRawControls(unknown);
    expect(unknown.stderr).toContain("unknown command 'frob\\u001b[2J\\u001b[H'");
  });
});

/** A worker that reports progress and a handoff full of control characters (HOSTILE_MODE picks the ending). */
function hostileWorker(): string {
  const contract = pathToFileURL(join(process.cwd(), 'dist/src/contract/index.js')).href;
  return `import { readFileSync } from 'node:fs';
import { handoffFor, protocolErrorHandoff } from ${JSON.stringify(contract)};
const HOSTILE = ${JSON.stringify(HOSTILE)};
const text = readFileSync(0, 'utf8');
const emit = (v) => process.stdout.write(JSON.stringify(v) + '\\n');
let d;
try { d = JSON.parse(text); } catch { emit(protocolErrorHandoff(text, 'malformed: ' + HOSTILE)); process.exit(0); }
if (process.env.HOSTILE_MODE === 'refuse') { emit(protocolErrorHandoff(d, 'malformed: ' + HOSTILE)); process.exit(0); }
emit({ schema: 'run-persist-progress/v1', attempted_tools: [HOSTILE, ${JSON.stringify(LINK)}] });
const base = { ...handoffFor(d), attempted_tools: [HOSTILE] };
if (process.env.HOSTILE_MODE === 'operational') {
  emit({ ...base, status: 'stopped', stop_reason: 'operational-error', stop_detail: HOSTILE, next_action: 'stop' });
} else {
  emit({ ...base, status: 'stuck', blocker_kind: 'proof', blocker_class: 'arithmetic',
    blocker_signature: d.target + ':' + HOSTILE, failed_avenues: [HOSTILE], next_action: 'stop',
    new_evidence_required_for_rerun: 'a lemma ' + HOSTILE });
}
`;
}

describe('handoff run and conformance with a hostile worker (child processes)', () => {
  let dir: string;
  let worker: string;
  const PROJECT = { 'H.lean': 'theorem h (n : Nat) : n ^ n ≥ 2 ^ n := by\n  sorry\n' };
  const run = (project: string, ...more: string[]) =>
    runCli(runArgs(project, `node ${worker}`, '--max-stuck-cycles', '1', ...more));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'handoff-escape-worker-'));
    worker = join(dir, 'hostile-worker.mjs');
    await writeFile(worker, hostileWorker());
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('progress lines, the blocker line and the final record are escaped; the stored handoff keeps the text', async () => {
    await withGitProject(PROJECT, async (p) => {
      const r = await run(p.dir, '--persist');
      expect(r.code, r.stderr).toBe(3);
      expectNoRawControls(r);
      expect(r.stdout).toMatch(/^progress H\.lean:2: tools \\u001b\[2J\\u001b\[H\\u001b\]0;pwned\\u0007/m);
      expect(r.stdout).toMatch(
        /^blocker: proof\/arithmetic H\.lean:2:\\u001b\[2J.*\\u000arun forged: solved$/m,
      );
      expect(r.stdout).not.toMatch(/^run forged/m);
      const h = JSON.parse(r.stdout.slice(r.stdout.indexOf('\n{') + 1)) as Handoff;
      expect(h.blocker_signature).toBe(`H.lean:2:${HOSTILE}`);

      const runId = /^run (\S+):/m.exec(r.stdout)?.[1] as string;
      const stored = (
        JSON.parse(await readFile(join(p.dir, '.handoff', 'runs', runId, 'handoff.json'), 'utf8')) as {
          payload: Handoff;
        }
      ).payload;
      expect(stored.blocker_signature).toBe(`H.lean:2:${HOSTILE}`);
      expect(stored.attempted_tools).toContain(HOSTILE);

      const text = await runCli(['inspect', runId, '--project', p.dir]);
      expect(text.code, text.stderr).toBe(0);
      expectNoRawControls(text);
    });
  });

  it('an operational stop shows its stop_detail escaped on the summary line; --json stays the same record', async () => {
    await withGitProject(PROJECT, async (p) => {
      const r = await runCli(runArgs(p.dir, `node ${worker}`), { env: { HOSTILE_MODE: 'operational' } });
      expect(r.code, r.stderr).toBe(4);
      expectNoRawControls(r);
      expect(r.stdout).toMatch(/^run \S+: stopped \(operational-error\) — .*\\u001b\]0;pwned\\u0007.*$/m);
      expect(r.stdout).not.toMatch(/^run forged/m);

      const json = await runCli(runArgs(p.dir, `node ${worker}`, '--json'), {
        env: { HOSTILE_MODE: 'operational' },
      });
      expect(json.code, json.stderr).toBe(4);
      expectNoRawControls(json);
      expect(stdoutJson<Handoff>(json).stop_detail).toContain(HOSTILE);
    });
  });

  it('the conformance summary prints a worker’s hostile stop_detail escaped, on one line', async () => {
    const r = await runCli(['conformance', 'worker', '--runs', '2', '--', 'node', worker], {
      env: { HOSTILE_MODE: 'refuse' },
    });
    expect(r.code, r.stderr).toBe(3);
    expectNoRawControls(r);
    expect(r.stdout).toContain('\\u001b]0;pwned\\u0007');
    expect(r.stdout).not.toMatch(/^run forged/m);
    expect(r.stdout).toMatch(/^verdict: the worker does NOT conform$/m);
  });
});
