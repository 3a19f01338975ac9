/**
 * The HTTP evaluator port (issue 29, item 2) against a tiny HTTP server this test runs on
 * 127.0.0.1: one POST of the gate-evaluator-request/v1 JSON per packet, one deadline, no retries,
 * no redirects followed; every failure mode mapped as the subprocess evaluator maps it (timeout,
 * non-2xx, invalid body, no-key — in the body or a token variable that is unset — and no server at
 * all); the bearer token is sent in the Authorization header and appears in no output, error or
 * record (through `handoff gate evaluate` in-process).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildEvaluatorRequest,
  GATE_EVALUATOR_REQUEST_SCHEMA,
  httpEvaluator,
  runEvaluator,
} from '../../src/gate/index.js';
import { cliMain } from '../helpers/cli-main.js';
import { contract, packet, rm, T0, tempDir } from './fixtures.js';

const c = contract();
const p = packet(c);
const request = buildEvaluatorRequest(c, p);
const now = () => T0;
const TOKEN = 'tok-3f9a1c-secret-value';
const good = {
  claims: [{ criterion_id: 'reload-idempotent', raw_label: 'CONFIRMED', distribution: { CONFIRMED: 1 } }],
};

/** What the server saw: one entry per request (path, headers, parsed body). */
const seen: { path: string; authorization: string | undefined; body: unknown }[] = [];
let server: Server;
let base = '';
let dead = '';
const side = tempDir('gate-http-eval-');

function answer(req: IncomingMessage, body: string, res: ServerResponse): void {
  const path = req.url ?? '/';
  seen.push({ path, authorization: req.headers.authorization, body: body === '' ? null : JSON.parse(body) });
  const json = (status: number, v: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(v));
  };
  if (path === '/ok') return void json(200, good);
  if (path === '/slow') return; // never answers: the deadline ends it
  if (path === '/500') {
    res.writeHead(500, { 'content-type': 'text/plain' });
    return void res.end('internal error');
  }
  if (path === '/garbage') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    return void res.end('<html>not json</html>');
  }
  if (path === '/nokey')
    return void json(401, { error: { kind: 'no-key', detail: 'no API key for this model' } });
  if (path === '/huge') return void json(200, { claims: [], pad: 'x'.repeat(4096) });
  if (path === '/echo') {
    // a careless server that echoes the credentials it got back in its error
    res.writeHead(502, { 'content-type': 'text/plain' });
    return void res.end(`upstream refused ${req.headers.authorization ?? ''}`);
  }
  if (path === '/redirect') {
    res.writeHead(302, { location: `${base}/ok` });
    return void res.end();
  }
  json(404, { error: { kind: 'unavailable', detail: 'no such path' } });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => {
      body += d;
    });
    req.on('end', () => answer(req, body, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // a port nothing listens on: a server opened and closed again
  const gone = createServer();
  await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
  dead = `http://127.0.0.1:${(gone.address() as AddressInfo).port}/ok`;
  await new Promise<void>((r) => gone.close(() => r()));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  rm(side);
});

const env = { EVAL_TOKEN: TOKEN };
const evaluate = (path: string, deadlineMs = 2000, options: Parameters<typeof httpEvaluator>[1] = {}) =>
  runEvaluator({
    port: httpEvaluator(`${base}${path}`, { tokenEnv: 'EVAL_TOKEN', env, ...options }),
    request,
    deadlineMs,
    now,
  });
const count = (path: string) => seen.filter((s) => s.path === path).length;

describe('httpEvaluator', () => {
  it('POSTs the request once with the bearer token and records the evaluated answer', async () => {
    const a = await evaluate('/ok');
    expect(a).toMatchObject({ status: 'EVALUATED', failure: null });
    expect(a.claims[0]).toMatchObject({ criterion_id: 'reload-idempotent', raw_label: 'CONFIRMED' });
    const hit = seen.filter((s) => s.path === '/ok');
    expect(hit).toHaveLength(1);
    expect(hit[0]?.authorization).toBe(`Bearer ${TOKEN}`);
    expect(hit[0]?.body).toMatchObject({ schema: GATE_EVALUATOR_REQUEST_SCHEMA, packet_id: p.packet_id });
    expect(JSON.stringify(a)).not.toContain(TOKEN);
    // the port's id names the endpoint without its query
    expect(httpEvaluator(`${base}/ok?key=abc`).id).toBe(`http:${base}/ok`);
  });

  it.each([
    ['/slow', 'NOT_EVALUATED', 'timeout'],
    ['/500', 'NOT_EVALUATED', 'unavailable'],
    ['/garbage', 'INVALID', 'invalid-data'],
    ['/nokey', 'NOT_EVALUATED', 'no-key'],
    ['/redirect', 'NOT_EVALUATED', 'unavailable'],
  ] as const)('%s: %s (%s), one request, no retry', async (path, status, kind) => {
    const before = count(path);
    const t = Date.now();
    const a = await evaluate(path, path === '/slow' ? 150 : 2000);
    expect(a.status).toBe(status);
    expect(a.failure?.kind).toBe(kind);
    expect(count(path) - before).toBe(1);
    expect(Date.now() - t).toBeLessThan(5000);
  });

  it('its own timeoutMs is a deadline too (AbortSignal.timeout), before the runner gives up', async () => {
    const a = await evaluate('/slow', 5000, { timeoutMs: 100 });
    expect(a.failure).toMatchObject({ kind: 'timeout' });
  });

  it('an answer over the size limit is invalid data', async () => {
    const a = await evaluate('/huge', 2000, { maxOutputBytes: 1024 });
    expect(a).toMatchObject({ status: 'INVALID', failure: { kind: 'invalid-data' } });
  });

  it('no server at all is unavailable', async () => {
    const a = await runEvaluator({ port: httpEvaluator(dead), request, deadlineMs: 2000, now });
    expect(a).toMatchObject({ status: 'NOT_EVALUATED', failure: { kind: 'unavailable' } });
    expect(a.failure?.detail).toContain('cannot reach evaluator');
  });

  it('a token variable that is unset or empty is no-key, and no request is made', async () => {
    const before = seen.length;
    for (const e of [{}, { EVAL_TOKEN: '' }]) {
      const a = await runEvaluator({
        port: httpEvaluator(`${base}/ok`, { tokenEnv: 'EVAL_TOKEN', env: e }),
        request,
        deadlineMs: 2000,
        now,
      });
      expect(a.failure).toMatchObject({ kind: 'no-key' });
      expect(a.failure?.detail).toContain('EVAL_TOKEN');
    }
    expect(seen.length).toBe(before);
  });

  it('a server that echoes the token back: the failure detail has it redacted', async () => {
    const a = await evaluate('/echo');
    expect(a.failure?.kind).toBe('unavailable');
    expect(a.failure?.detail).toContain('HTTP 502');
    expect(a.failure?.detail).toContain('[redacted]');
    expect(JSON.stringify(a)).not.toContain(TOKEN);
  });

  it('refuses URLs that are not http(s), carry credentials, and token names that are not variables', () => {
    expect(() => httpEvaluator('ftp://x/')).toThrow(TypeError);
    expect(() => httpEvaluator('http://user:pw@127.0.0.1/')).toThrow(/credentials/);
    expect(() => httpEvaluator(`${base}/ok`, { tokenEnv: 'A B' })).toThrow(TypeError);
  });
});

describe('handoff gate evaluate --evaluator URL --evaluator-token-env NAME', () => {
  it('evaluates over HTTP with the token in the header only: not in stdout, stderr, or the stored records', async () => {
    const cfile = join(side, 'contract.json');
    const pfile = join(side, 'packet.json');
    writeFileSync(cfile, JSON.stringify(c));
    writeFileSync(pfile, JSON.stringify(p));
    const store = join(side, 'store');
    const args = (path: string, storeDir: string) => [
      'gate',
      'evaluate',
      '--contract',
      cfile,
      '--packet',
      pfile,
      '--evaluator',
      `${base}${path}`,
      '--evaluator-token-env',
      'EVAL_TOKEN',
      '--store',
      storeDir,
    ];
    const before = count('/ok');
    const ok = await cliMain(args('/ok', store), side, env);
    expect(ok.code, ok.err).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ status: 'EVALUATED', evaluator_id: `http:${base}/ok` });
    expect(count('/ok') - before).toBe(1);
    expect(seen.filter((s) => s.path === '/ok').at(-1)?.authorization).toBe(`Bearer ${TOKEN}`);
    // the one request per packet holds across invocations: the stored answer, no second POST
    const again = await cliMain(args('/ok', store), side, env);
    expect(again.code).toBe(0);
    expect(count('/ok') - before).toBe(1);
    // a failure whose body echoes the token: exit 6, and the token is nowhere
    const echoStore = join(side, 'store-echo');
    const echo = await cliMain(args('/echo', echoStore), side, env);
    expect(echo.code).toBe(6);
    // an unset variable: no-key (exit 6), nothing sent
    const unset = await cliMain(args('/ok', join(side, 'store-unset')), side, {});
    expect(unset.code).toBe(6);
    expect(JSON.parse(unset.out)).toMatchObject({ failure: { kind: 'no-key' } });
    const records = [store, echoStore].flatMap((d) =>
      readdirSync(d, { recursive: true, withFileTypes: true })
        .filter((f) => f.isFile())
        .map((f) => readFileSync(join(f.parentPath, f.name), 'utf8')),
    );
    expect(records.length).toBeGreaterThan(0);
    for (const text of [ok.out, ok.err, again.out, echo.out, echo.err, unset.out, unset.err, ...records])
      expect(text).not.toContain(TOKEN);
    // --evaluator-token-env belongs to an HTTP evaluator
    const bad = await cliMain(
      [
        'gate',
        'evaluate',
        '--contract',
        cfile,
        '--packet',
        pfile,
        '--evaluator',
        'node',
        '--evaluator-token-env',
        'X',
      ],
      side,
    );
    expect(bad.code).toBe(2);
  });
});
