/**
 * The HTML viewer in a real browser: headless Chromium renders each machine's page (and one with
 * a path overlay); the DOM must hold one state group per state and one edge group per
 * transition, the overlay classes must be there, and a screenshot must be a real picture.
 * Chromium is required (CI installs it): when it is missing this test FAILS, it does not skip.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { chainMachine, cycleMachine, gateMachine, synthesisMachine } from '../../machines/index.js';
import {
  type MachineGraph,
  machineGraph,
  overlayPath,
  type PathOverlay,
  toHtml,
} from '../../src/viz/index.js';
import { CHROMIUM, CHROMIUM_MISSING, runChromium } from '../helpers/chromium.js';

let dir: string;

/** Minimal PNG reading: IHDR size and the inflated image data (for a variety check). */
function readPng(buf: Buffer): { width: number; height: number; data: Buffer } {
  expect(buf.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  let off = 8;
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.subarray(off + 4, off + 8).toString('latin1');
    const body = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
    } else if (type === 'IDAT') idat.push(body);
    off += 12 + len;
  }
  return { width, height, data: inflateSync(Buffer.concat(idat)) };
}

const CASES: { name: string; graph: MachineGraph; overlay: PathOverlay | null }[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'viz-browser-'));
  const chain = machineGraph(chainMachine as unknown as AnyStateMachine);
  CASES.push(
    { name: 'cycle', graph: machineGraph(cycleMachine as unknown as AnyStateMachine), overlay: null },
    { name: 'chain', graph: chain, overlay: null },
    { name: 'gate', graph: machineGraph(gateMachine as unknown as AnyStateMachine), overlay: null },
    { name: 'synthesis', graph: machineGraph(synthesisMachine as unknown as AnyStateMachine), overlay: null },
    {
      name: 'chain-path',
      graph: chain,
      overlay: overlayPath(chain, [
        { state: 'ready' },
        { state: 'running', event: 'START' },
        { state: 'validating' },
        { state: 'failed' },
        { state: 'running', event: 'RETRY' },
        { state: 'validating' },
        { state: 'committed' },
        { state: 'accepted' },
      ]),
    },
  );
  for (const c of CASES)
    await writeFile(join(dir, `${c.name}.html`), toHtml(c.graph, { overlay: c.overlay }));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('HTML viewer in headless Chromium', () => {
  it('chromium is installed (apt-get install -y chromium; CI installs it)', () => {
    expect(CHROMIUM, CHROMIUM_MISSING).not.toBeNull();
  });

  for (const name of ['cycle', 'chain', 'gate', 'synthesis', 'chain-path']) {
    it(`${name}: the rendered DOM has one state per state node and one edge per transition`, {
      timeout: 120_000,
    }, async () => {
      const c = CASES.find((x) => x.name === name);
      if (c === undefined) throw new Error(name);
      const profile = await mkdtemp(join(dir, 'profile-'));
      const { stdout } = await runChromium(
        ['--dump-dom', pathToFileURL(join(dir, `${name}.html`)).href],
        profile,
      );
      expect(stdout).toContain('<svg id="machine"');
      const states = stdout.match(/<g class="node state [^"]*" data-id="[^"]*"/g) ?? [];
      expect(states.length).toBe(c.graph.nodes.length - 1);
      const ids = new Set(states.map((s) => /data-id="([^"]*)"/.exec(s)?.[1]));
      for (const n of c.graph.nodes) if (n.parent !== null) expect(ids.has(n.id)).toBe(true);
      const edges = stdout.match(/<g class="edge [^"]*" data-id="e\d+"/g) ?? [];
      expect(edges.length).toBe(c.graph.edges.length);
      expect(stdout.match(/<path d="M/g)?.length ?? 0).toBeGreaterThanOrEqual(c.graph.edges.length);
      if (c.overlay !== null) {
        const visitedEdges = stdout.match(/<g class="edge [^"]*visited[^"]*"/g) ?? [];
        expect(visitedEdges.length).toBe(Object.keys(c.overlay.edgeVisits).length);
        expect(stdout).toMatch(/<g class="node state [^"]*visited current" data-id="chain\.accepted"/);
        expect(stdout).toMatch(/data-id="chain\.running" data-visits="2"/);
        expect(stdout).toContain('<section class="path">');
      } else {
        expect(stdout).not.toMatch(/class="[^"]*\bvisited\b/);
      }
    });
  }

  for (const name of ['cycle', 'chain-path']) {
    it(`${name}: a 1400×1000 screenshot is a real, varied picture`, { timeout: 120_000 }, async () => {
      const profile = await mkdtemp(join(dir, 'profile-'));
      const png = join(dir, `${name}.png`);
      await runChromium(
        [
          '--screenshot=' + png,
          '--window-size=1400,1000',
          '--hide-scrollbars',
          pathToFileURL(join(dir, `${name}.html`)).href,
        ],
        profile,
      );
      const size = (await stat(png)).size;
      expect(size).toBeGreaterThan(10_000);
      const { width, height, data } = readPng(await readFile(png));
      expect([width, height]).toEqual([1400, 1000]);
      const seen = new Set<number>();
      for (let i = 0; i < data.length; i += 7) seen.add(data[i] as number);
      expect(seen.size).toBeGreaterThan(64);
    });
  }
});
