/**
 * The cycle machine's HTML viewer measured in a real browser: headless Chromium (driven over the
 * DevTools protocol on a pipe, no extra packages) loads the page, and the DOM's
 * getBoundingClientRect of every visible edge label and error badge is checked against every
 * state box — no label over a leaf, over a compound's title strip or across a compound's border,
 * no two labels over each other, every label's text inside its background. The error/stop edges
 * start collapsed (badges and one lane); clicking the toggle's label draws all of them, and
 * the same checks hold; clicking again hides them. Chromium is required: without it this FAILS.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { cycleMachine } from '../../machines/index.js';
import { machineGraph, toHtml } from '../../src/viz/index.js';
import { CHROMIUM, CHROMIUM_MISSING, headlessArgs } from '../helpers/chromium.js';

const graph = machineGraph(cycleMachine as unknown as AnyStateMachine);
/** The cycle's error/stop edges (into its stopped state) and the states they leave. */
const STOPS = graph.edges.filter(
  (e) => e.targets.length > 0 && e.targets.every((t) => t === 'cycle.stopped'),
);
const STOP_SOURCES = new Set(STOPS.map((e) => e.source)).size;
const LEAVES = graph.nodes.filter((n) => n.children.length === 0).length;

/** A minimal DevTools-protocol client over --remote-debugging-pipe (fd 3 in, fd 4 out). */
class Cdp {
  private next = 1;
  private buf = '';
  private readonly waiting = new Map<number, { ok: (v: unknown) => void; fail: (e: Error) => void }>();
  constructor(private readonly proc: ChildProcess) {
    const out = proc.stdio[4] as Readable;
    out.setEncoding('utf8');
    out.on('data', (chunk: string) => {
      this.buf += chunk;
      for (let i = this.buf.indexOf('\0'); i >= 0; i = this.buf.indexOf('\0')) {
        const msg = JSON.parse(this.buf.slice(0, i)) as {
          id?: number;
          result?: unknown;
          error?: { message: string };
        };
        this.buf = this.buf.slice(i + 1);
        const w = msg.id === undefined ? undefined : this.waiting.get(msg.id);
        if (w === undefined) continue;
        this.waiting.delete(msg.id as number);
        if (msg.error) w.fail(new Error(msg.error.message));
        else w.ok(msg.result);
      }
    });
  }
  send<T>(method: string, params: object = {}, sessionId?: string): Promise<T> {
    const id = this.next++;
    return new Promise<T>((ok, fail) => {
      this.waiting.set(id, { ok: ok as (v: unknown) => void, fail });
      (this.proc.stdio[3] as Writable).write(
        `${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`,
      );
    });
  }
}

interface Rect {
  readonly id: string;
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

/** What the page reports: visible labels (text and background), badges, states, lane edges. */
interface Measure {
  readonly checked: boolean;
  readonly scale: number;
  readonly labels: { id: string; text: Rect; bg: Rect }[];
  readonly badges: Rect[];
  readonly leaves: Rect[];
  readonly compounds: Rect[];
  readonly laneEdgesShown: number;
  readonly laneEdges: number;
  readonly laneShown: boolean;
}

const MEASURE = `(() => {
  const r = (el, id) => { const b = el.getBoundingClientRect(); return { id, x: b.x, y: b.y, w: b.width, h: b.height }; };
  const shown = (el) => getComputedStyle(el).display !== 'none' && el.getBoundingClientRect().width > 0;
  const svg = document.querySelector('svg#machine');
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const labels = [...document.querySelectorAll('g.edge-label')].filter(shown).map((g) => ({
    id: g.dataset.edge, text: r(g.querySelector('text'), g.dataset.edge), bg: r(g.querySelector('rect'), g.dataset.edge) }));
  const badges = [...document.querySelectorAll('g.error-badge')].filter(shown).map((g) => r(g.querySelector('rect'), 'badge:' + g.dataset.source));
  const leaves = [...document.querySelectorAll('g.state.leaf, g.pseudo')].map((g) => r(g.querySelector('rect'), g.dataset.id));
  const compounds = [...document.querySelectorAll('g.state.compound')].map((g) => r(g.querySelector('rect'), g.dataset.id));
  const lane = [...document.querySelectorAll('g.edge.lane')];
  return { checked: document.getElementById('expand-errors').checked, scale, labels, badges, leaves, compounds,
    laneEdges: lane.length, laneEdgesShown: lane.filter(shown).length,
    laneShown: shown(document.querySelector('g.error-lane')) };
})()`;

const overlap = (a: Rect, b: Rect): boolean =>
  a.x < b.x + b.w - 0.5 && b.x < a.x + a.w - 0.5 && a.y < b.y + b.h - 0.5 && b.y < a.y + a.h - 0.5;
const inside = (a: Rect, b: Rect): boolean =>
  a.x >= b.x - 0.5 && a.y >= b.y - 0.5 && a.x + a.w <= b.x + b.w + 0.5 && a.y + a.h <= b.y + b.h + 0.5;

/** Every overlap the page shows, as readable strings (empty when legible). */
function problems(m: Measure): string[] {
  const out: string[] = [];
  const header = 24 * m.scale;
  const marks = [...m.labels.flatMap((l) => [l.text, l.bg]), ...m.badges];
  for (const a of marks) {
    for (const b of m.leaves)
      if (overlap(a, b) && a.id !== `badge:${b.id}`) out.push(`${a.id} over state ${b.id}`);
    for (const c of m.compounds) {
      if (overlap(a, { ...c, h: header })) out.push(`${a.id} over the title of ${c.id}`);
      else if (overlap(a, c) && !inside(a, c)) out.push(`${a.id} across the border of ${c.id}`);
    }
  }
  const own = [...m.labels.map((l) => l.bg), ...m.badges];
  for (let i = 0; i < own.length; i++)
    for (let j = i + 1; j < own.length; j++)
      if (overlap(own[i] as Rect, own[j] as Rect)) out.push(`${own[i]?.id} over ${own[j]?.id}`);
  for (const l of m.labels) if (!inside(l.text, l.bg)) out.push(`${l.id}: text wider than its label`);
  return out;
}

let dir: string;
let proc: ChildProcess | null = null;
let cdp: Cdp;
let session: string;

async function evaluate<T>(expression: string): Promise<T> {
  const r = await cdp.send<{ result: { value: T }; exceptionDetails?: unknown }>(
    'Runtime.evaluate',
    { expression, awaitPromise: true, returnByValue: true },
    session,
  );
  if (r.exceptionDetails !== undefined) throw new Error(JSON.stringify(r.exceptionDetails));
  return r.result.value;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'viz-layout-'));
  if (CHROMIUM === null) return;
  const page = join(dir, 'cycle.html');
  await writeFile(page, toHtml(graph));
  proc = spawn(CHROMIUM, headlessArgs(join(dir, 'profile'), '--remote-debugging-pipe', 'about:blank'), {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
  });
  cdp = new Cdp(proc);
  const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
  ({ sessionId: session } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', {
    targetId,
    flatten: true,
  }));
  await cdp.send(
    'Emulation.setDeviceMetricsOverride',
    { width: 1600, height: 1400, deviceScaleFactor: 1, mobile: false },
    session,
  );
  await cdp.send('Page.enable', {}, session);
  await cdp.send('Page.navigate', { url: pathToFileURL(page).href }, session);
  await evaluate(
    `new Promise((ok) => { const f = () => document.readyState === 'complete' && document.getElementById('expand-errors') ? ok(1) : setTimeout(f, 20); f(); })`,
  );
}, 120_000);

afterAll(async () => {
  const p = proc;
  if (p !== null && p.exitCode === null) {
    const exited = new Promise((ok) => p.once('exit', ok));
    await cdp.send('Browser.close').catch(() => undefined);
    const timer = setTimeout(() => p.kill(), 10_000);
    await exited;
    clearTimeout(timer);
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('cycle viewer in headless Chromium: labels, boxes and the error toggle', () => {
  it('chromium is installed (apt-get install -y chromium; CI installs it)', () => {
    expect(CHROMIUM, CHROMIUM_MISSING).not.toBeNull();
  });

  it('opens collapsed: a badge per state with error/stop exits and the lane, no error edge drawn, nothing overlaps', {
    timeout: 60_000,
  }, async () => {
    const m = await evaluate<Measure>(MEASURE);
    expect(m.checked).toBe(false);
    expect(STOPS.length).toBeGreaterThan(40);
    expect(m.laneEdges).toBe(STOPS.length);
    expect(m.laneEdgesShown).toBe(0);
    expect(m.laneShown).toBe(true);
    expect(m.badges).toHaveLength(STOP_SOURCES);
    expect(m.leaves).toHaveLength(LEAVES);
    expect(m.labels.length).toBeGreaterThan(20);
    expect(problems(m)).toEqual([]);
  });

  it('the toggle draws all error/stop edges and their labels, still without overlaps; again hides them', {
    timeout: 60_000,
  }, async () => {
    const before = await evaluate<Measure>(MEASURE);
    await evaluate(`document.querySelector('label[for="expand-errors"]').click()`);
    const m = await evaluate<Measure>(MEASURE);
    expect(m.checked).toBe(true);
    expect(m.laneEdgesShown).toBe(STOPS.length);
    expect(m.labels.length).toBeGreaterThan(before.labels.length);
    expect(problems(m)).toEqual([]);
    await evaluate(`document.querySelector('label[for="expand-errors"]').click()`);
    const again = await evaluate<Measure>(MEASURE);
    expect(again.checked).toBe(false);
    expect(again.laneEdgesShown).toBe(0);
    expect(again.labels.length).toBe(before.labels.length);
  });

  it('the check sees a planted overlap (a label moved onto a state)', { timeout: 60_000 }, async () => {
    await evaluate(`(() => {
      const s = document.querySelector('g.state.leaf rect');
      const g = document.querySelector('g.edge-label:not(.lane)');
      g.querySelector('rect').setAttribute('x', s.getAttribute('x'));
      g.querySelector('rect').setAttribute('y', s.getAttribute('y'));
      g.querySelector('text').setAttribute('x', String(Number(s.getAttribute('x')) + 20));
      g.querySelector('text').setAttribute('y', String(Number(s.getAttribute('y')) + 10));
    })()`);
    const m = await evaluate<Measure>(MEASURE);
    expect(problems(m).some((p) => p.includes(' over state '))).toBe(true);
  });
});
