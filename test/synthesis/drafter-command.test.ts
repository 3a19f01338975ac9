/**
 * The command drafter with real child processes (node scripts): the request on stdin, one response
 * line, the block read from the temp path — and every hostile drafter refused: one that writes,
 * creates or swaps the target file (put back), emits `import`/`#eval`/`axiom` in its block, lies
 * about its names, links the temp path to another file, hangs (killed at a short injected
 * timeout), prints garbage or two lines, or crashes.
 */
import { lstat, mkdtemp, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  assembleDraft,
  commandDrafter,
  DRAFTER_PROTOCOL_VERSION,
  type DraftRequest,
} from '../../src/synthesis/index.js';

let dir = '';
let target = '';
let temp = '';
const ORIGINAL = 'import Mathlib.Tactic\n\ntheorem user_stmt : 1 + 1 = 2 := by norm_num\n';

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'drafter-'));
  target = join(dir, 'Basic.lean');
  temp = join(dir, 'tmp', 'draft.lean');
  await writeFile(target, ORIGINAL);
  await import('node:fs/promises').then((fs) => fs.mkdir(join(dir, 'tmp')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function request(over: Partial<DraftRequest> = {}): DraftRequest {
  return {
    schema: 'draft-request/v1',
    claim: {
      id: 'c1-abcd',
      text: 'Every n satisfies n + 0 = n.',
      title: null,
      name: 'add_zero_ex',
      kind: 'theorem',
    },
    target_file: target,
    temp_path: temp,
    policy: { statement_policy: 'rewrite-generated-only', caller: 'autoformalize' },
    mode: 'draft',
    prior: null,
    ...over,
  };
}

/** Writes a drafter script whose body runs after `req` (the parsed request) and `fs` are in scope. */
async function script(name: string, body: string): Promise<string[]> {
  const file = join(dir, `${name}.mjs`);
  await writeFile(
    file,
    `import * as fs from 'node:fs';\nconst req = JSON.parse(fs.readFileSync(0, 'utf8'));\n` +
      `const respond = (r) => process.stdout.write(JSON.stringify({ schema: 'draft-response/v1', ...r }) + '\\n');\n${body}\n`,
  );
  return [process.execPath, file];
}

const GOOD_BLOCK =
  '-- needs-import: Mathlib.Tactic\\n-- needs-import: Mathlib.Data.Nat.Basic\\n\\ntheorem add_zero_ex (n : Nat) : n + 0 = n := by\\n  sorry\\n';
const draftBlock = (block: string) => `fs.writeFileSync(req.temp_path, '${block}');\n`;

const signal = () => new AbortController().signal;
const opts = () => ({ cwd: dir, timeoutMs: 10_000 });

describe('a well-behaved drafter', () => {
  it('gets the request on stdin and the protocol in its environment; its block and names come back checked', async () => {
    const argv = await script(
      'good',
      `fs.writeFileSync(req.temp_path.replace(/draft\\.lean$/, 'seen.json'), JSON.stringify({ req, env: process.env.HANDOFF_DRAFTER_PROTOCOL, root: process.env.HANDOFF_PROJECT_ROOT, cwd: process.cwd() }));\n` +
        draftBlock(GOOD_BLOCK) +
        `respond({ status: 'drafted', declarations: ['add_zero_ex'], detail: null });`,
    );
    const out = await commandDrafter(argv, opts()).draft(request(), signal());
    expect(out).toEqual({
      kind: 'drafted',
      declarations: ['add_zero_ex'],
      text: GOOD_BLOCK.replaceAll('\\n', '\n'),
      imports: ['Mathlib.Tactic', 'Mathlib.Data.Nat.Basic'],
    });
    const seen = JSON.parse(await readFile(join(dir, 'tmp', 'seen.json'), 'utf8')) as Record<string, unknown>;
    expect(seen.req).toEqual(request());
    expect(seen.env).toBe(DRAFTER_PROTOCOL_VERSION);
    expect(seen.root).toBe(dir);
    expect(await readFile(target, 'utf8')).toBe(ORIGINAL);
  });

  it('a declined claim is a declined outcome with the drafter’s reason (the temp file is not read)', async () => {
    const argv = await script(
      'decline',
      `respond({ status: 'declined', declarations: [], detail: 'not a mathematical claim' });`,
    );
    expect(await commandDrafter(argv, opts()).draft(request(), signal())).toEqual({
      kind: 'declined',
      detail: 'not a mathematical claim',
    });
  });

  it('the example drafter drafts a sorry skeleton with a needs-import line that assembles into the target', async () => {
    const argv = [process.execPath, join(process.cwd(), 'examples', 'drafters', 'skeleton-drafter.mjs')];
    const out = await commandDrafter(argv, opts()).draft(request(), signal());
    if (out.kind !== 'drafted') throw new Error(`expected drafted, got ${JSON.stringify(out)}`);
    expect(out.declarations).toEqual(['add_zero_ex']);
    expect(out.imports).toEqual(['Mathlib.Tactic']);
    expect(out.text).toMatch(/^theorem add_zero_ex .* := by\n {2}sorry$/m);
    const a = assembleDraft(ORIGINAL, { ...out, claim: request().claim, timestamp: '2026-01-01T00:00:00Z' });
    expect(a).toMatchObject({ ok: true, added: ['add_zero_ex'], skipped: [], imports: [] });
    if (a.ok) expect(a.text.startsWith(ORIGINAL)).toBe(true);
  });

  it('the example drafter declines an empty claim and names an unnamed one from its text', async () => {
    const argv = [process.execPath, join(process.cwd(), 'examples', 'drafters', 'skeleton-drafter.mjs')];
    const d = commandDrafter(argv, opts());
    const empty = await d.draft(request({ claim: { ...request().claim, text: '  ' } }), signal());
    expect(empty.kind).toBe('declined');
    await rm(temp, { force: true });
    const unnamed = await d.draft(request({ claim: { ...request().claim, name: null } }), signal());
    expect(unnamed).toMatchObject({ kind: 'drafted', declarations: ['every_n_satisfies_n_0_n'] });
  });
});

describe('hostile drafters', () => {
  it('one that writes the target file is refused and the target is put back byte for byte', async () => {
    const argv = await script(
      'write-target',
      `fs.appendFileSync(req.target_file, '\\naxiom cheat : False\\n');\n` +
        draftBlock(GOOD_BLOCK) +
        `respond({ status: 'drafted', declarations: ['add_zero_ex'], detail: null });`,
    );
    const out = await commandDrafter(argv, opts()).draft(request(), signal());
    expect(out.kind).toBe('protocol-error');
    if (out.kind === 'protocol-error') {
      expect(out.detail).toContain('changed the target file');
      expect(out.detail).toContain('restored');
    }
    expect(await readFile(target, 'utf8')).toBe(ORIGINAL);
  });

  it('one that swaps the target for a link is refused; the link is replaced by the original bytes', async () => {
    await writeFile(join(dir, 'secret.txt'), 'secret');
    const argv = await script(
      'swap-target',
      `fs.rmSync(req.target_file); fs.symlinkSync(${JSON.stringify(join(dir, 'secret.txt'))}, req.target_file);\n` +
        `respond({ status: 'declined', declarations: [], detail: 'nothing' });`,
    );
    const out = await commandDrafter(argv, opts()).draft(request(), signal());
    expect(out.kind).toBe('protocol-error');
    expect((await lstat(target)).isSymbolicLink()).toBe(false);
    expect(await readFile(target, 'utf8')).toBe(ORIGINAL);
    expect(await readFile(join(dir, 'secret.txt'), 'utf8')).toBe('secret');
  });

  it('one that creates an absent target is refused and the file it created removed', async () => {
    const fresh = join(dir, 'New.lean');
    const argv = await script(
      'create-target',
      `fs.writeFileSync(req.target_file, 'theorem planted : True := trivial\\n');\n` +
        `respond({ status: 'declined', declarations: [], detail: 'x' });`,
    );
    const out = await commandDrafter(argv, opts()).draft(request({ target_file: fresh }), signal());
    expect(out.kind).toBe('protocol-error');
    await expect(stat(fresh)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('one that changes only the mode of the target is refused too (mode restored)', async () => {
    const argv = await script(
      'chmod-target',
      `fs.chmodSync(req.target_file, 0o777);\nrespond({ status: 'declined', declarations: [], detail: 'x' });`,
    );
    const before = (await stat(target)).mode & 0o7777;
    const out = await commandDrafter(argv, opts()).draft(request(), signal());
    expect(out.kind).toBe('protocol-error');
    expect((await stat(target)).mode & 0o7777).toBe(before);
  });

  it.each([
    ['an import', 'import Mathlib\\ntheorem add_zero_ex : True := by sorry\\n', '`import`'],
    ['an open', 'open Nat in\\ntheorem add_zero_ex : True := by sorry\\n', '`open`'],
    ['a namespace wrapper', 'namespace X\\ntheorem add_zero_ex : True := by sorry\\nend X\\n', '`namespace`'],
    ['an axiom', 'axiom add_zero_ex : False\\n', '`axiom`'],
    ['an #eval', 'theorem add_zero_ex : True := trivial\\n#eval IO.println 1\\n', '`#eval`'],
    [
      'a set_option',
      'set_option debug.skipKernelTC true in\\ntheorem add_zero_ex : True := by sorry\\n',
      '`set_option`',
    ],
    [
      'a late needs-import',
      'theorem add_zero_ex : True := by sorry\\n-- needs-import: Evil\\n',
      'at the top',
    ],
    [
      'a bad module name',
      '-- needs-import: Mathlib;rm\\ntheorem add_zero_ex : True := by sorry\\n',
      'module name',
    ],
  ])('one whose block has %s is refused', async (_what, block, why) => {
    const argv = await script(
      'bad-block',
      draftBlock(block) + `respond({ status: 'drafted', declarations: ['add_zero_ex'], detail: null });`,
    );
    const out = await commandDrafter(argv, opts()).draft(request(), signal());
    expect(out.kind).toBe('protocol-error');
    if (out.kind === 'protocol-error') expect(out.detail).toContain(why);
  });

  it('one that lies about its declaration names is refused', async () => {
    const argv = await script(
      'liar',
      draftBlock('theorem add_zero_ex : True := by sorry\\ntheorem extra_helper : True := by sorry\\n') +
        `respond({ status: 'drafted', declarations: ['add_zero_ex'], detail: null });`,
    );
    const out = await commandDrafter(argv, opts()).draft(request(), signal());
    expect(out).toEqual({
      kind: 'protocol-error',
      detail: 'the response lists ["add_zero_ex"] but the draft declares ["add_zero_ex","extra_helper"]',
    });
  });

  it('one that says drafted but writes nothing is refused', async () => {
    const argv = await script(
      'no-file',
      `respond({ status: 'drafted', declarations: ['add_zero_ex'], detail: null });`,
    );
    const out = await commandDrafter(argv, opts()).draft(request(), signal());
    expect(out).toEqual({ kind: 'protocol-error', detail: 'drafted, but no draft text was written' });
  });

  it('one that links the temp path to another file is refused without reading through the link', async () => {
    await writeFile(join(dir, 'secret.lean'), 'theorem add_zero_ex : True := by sorry\n');
    const argv = await script(
      'link-temp',
      `fs.symlinkSync(${JSON.stringify(join(dir, 'secret.lean'))}, req.temp_path);\n` +
        `respond({ status: 'drafted', declarations: ['add_zero_ex'], detail: null });`,
    );
    const out = await commandDrafter(argv, opts()).draft(request(), signal());
    expect(out).toEqual({ kind: 'protocol-error', detail: 'the temp path is a symbolic link' });
  });

  it.each([
    [
      'a named pipe (a naive reader would block forever)',
      `(await import('node:child_process')).execFileSync('mkfifo', [req.temp_path]);`,
    ],
    ['a directory', `fs.mkdirSync(req.temp_path);`],
  ])('one that makes the temp path %s is refused', async (_what, make) => {
    const argv = await script(
      'special-temp',
      `${make}\nrespond({ status: 'drafted', declarations: ['add_zero_ex'], detail: null });`,
    );
    const out = await commandDrafter(argv, opts()).draft(request(), signal());
    expect(out).toEqual({ kind: 'protocol-error', detail: 'the temp path is not a regular file' });
  });

  it('one whose temp file exceeds the size limit is refused', async () => {
    const argv = await script(
      'huge',
      `fs.writeFileSync(req.temp_path, 'theorem add_zero_ex : True := by sorry\\n' + '-- x\\n'.repeat(1000));\n` +
        `respond({ status: 'drafted', declarations: ['add_zero_ex'], detail: null });`,
    );
    const out = await commandDrafter(argv, { ...opts(), maxDraftBytes: 1024 }).draft(request(), signal());
    expect(out.kind).toBe('protocol-error');
    if (out.kind === 'protocol-error') expect(out.detail).toMatch(/too large/);
  });

  it('one that hangs is killed at the injected timeout and reported as an operational error', async () => {
    const argv = await script('hang', `setInterval(() => {}, 1000);`);
    const started = Date.now();
    const out = await commandDrafter(argv, { cwd: dir, timeoutMs: 300, killGraceMs: 100 }).draft(
      request(),
      signal(),
    );
    expect(out).toEqual({
      kind: 'operational-error',
      detail: 'drafter exceeded its 1s budget and was killed',
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('an aborted call ends the drafter at once', async () => {
    const argv = await script('hang2', `setInterval(() => {}, 1000);`);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const out = await commandDrafter(argv, { cwd: dir, timeoutMs: 20_000, killGraceMs: 100 }).draft(
      request(),
      ac.signal,
    );
    expect(out).toEqual({ kind: 'operational-error', detail: 'draft call aborted' });
  });

  it.each([
    ['garbage', `process.stdout.write('\\x1b[2J not json at all\\n');`, 'did not print a JSON response'],
    ['nothing', ``, 'printed no response'],
    [
      'two responses',
      `respond({ status: 'declined', declarations: [], detail: 'a' }); respond({ status: 'declined', declarations: [], detail: 'b' });`,
      'printed 2 lines',
    ],
    [
      'an invalid record',
      `respond({ status: 'drafted', declarations: [], detail: null, extra: 1 });`,
      'invalid draft-response/v1',
    ],
    [
      'a 100,000-deep record',
      `process.stdout.write('{"schema":"draft-response/v1","status":"declined","declarations":[],"detail":' + '['.repeat(100000) + ']'.repeat(100000) + '}\\n');`,
      'invalid draft-response/v1',
    ],
  ])('one that prints %s is a protocol error', async (_what, body, why) => {
    const argv = await script('garbage', body);
    const out = await commandDrafter(argv, opts()).draft(request(), signal());
    expect(out.kind).toBe('protocol-error');
    if (out.kind === 'protocol-error') expect(out.detail).toContain(why);
  });

  it('one that crashes is an operational error quoting its stderr', async () => {
    const argv = await script('crash', `process.stderr.write('model quota exceeded\\n'); process.exit(3);`);
    const out = await commandDrafter(argv, opts()).draft(request(), signal());
    expect(out).toEqual({
      kind: 'operational-error',
      detail: 'drafter exited with 3 and no response: model quota exceeded',
    });
  });

  it('a command that cannot start is an operational error', async () => {
    const out = await commandDrafter([join(dir, 'no-such-drafter')], opts()).draft(request(), signal());
    expect(out.kind).toBe('operational-error');
    if (out.kind === 'operational-error') expect(out.detail).toMatch(/^cannot start drafter/);
  });
});

describe('requests the port refuses before running anything', () => {
  it('a temp path that already exists (a planted file would be read as the draft)', async () => {
    await writeFile(temp, 'theorem add_zero_ex : True := by sorry\n');
    const marker = join(dir, 'ran');
    const argv = await script('marker', `fs.writeFileSync(${JSON.stringify(marker)}, 'x');`);
    const out = await commandDrafter(argv, opts()).draft(request(), signal());
    expect(out).toEqual({
      kind: 'operational-error',
      detail: 'the temp path already exists; use a fresh one per call',
    });
    await expect(stat(marker)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('an invalid request (relative temp path, temp path = target)', async () => {
    const argv = await script('never', `respond({ status: 'declined', declarations: [], detail: 'x' });`);
    const d = commandDrafter(argv, opts());
    expect((await d.draft(request({ temp_path: 'draft.lean' }), signal())).kind).toBe('operational-error');
    expect((await d.draft(request({ temp_path: target }), signal())).kind).toBe('operational-error');
    expect(await readFile(target, 'utf8')).toBe(ORIGINAL);
    expect(await readlink(target).catch(() => null)).toBeNull();
  });
});

describe('symlinks in the fixture are real', () => {
  it('the test machine supports them (guards the link cases above)', async () => {
    await symlink(target, join(dir, 'l'));
    expect((await lstat(join(dir, 'l'))).isSymbolicLink()).toBe(true);
  });
});
