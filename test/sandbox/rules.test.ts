/**
 * The sandbox's pure rules: the command line (the script a constant, every path an argument,
 * `--tmpfs /tmp` before the project's bind), the overlay path defects, the private directories,
 * the apply rule and its message, the mode decision, the flag validation and the probe's reasons.
 */
import { describe, expect, it } from 'vitest';
import { resolveSandboxFlags } from '../../src/runtime/cycle-options.js';
import {
  discardedViolation,
  MOUNT_SCRIPT,
  NO_LAYER_CHANGES,
  nameText,
  overlayPathDefect,
  planLayer,
  privateDirsFor,
  probeFailureReason,
  SANDBOX_HOME,
  sandboxArgv,
  sandboxDecision,
} from '../../src/sandbox/index.js';

const LAYOUT = {
  project: "/tmp/my proj/it's $(x)",
  upper: '/tmp/s/upper',
  work: '/tmp/s/work',
  merged: '/tmp/s/merged',
  home: '/tmp/s/home',
  root: '/tmp/s',
  tmpUpper: '/tmp/s/tmp-upper',
  tmpWork: '/tmp/s/tmp-work',
  tmpMerged: '/tmp/s/tmp-merged',
};

describe('sandboxArgv', () => {
  const argv = sandboxArgv(LAYOUT, ['python3', 'w.py', '--flag'], {});
  it('mounts with a constant script; every path is its own argument', () => {
    expect(argv.slice(0, 11)).toEqual([
      'unshare',
      '--user',
      '--map-root-user',
      '--mount',
      '--propagation',
      'private',
      '--',
      'sh',
      '-c',
      MOUNT_SCRIPT,
      'sh',
    ]);
    expect(argv.slice(11, 18)).toEqual([
      LAYOUT.project,
      LAYOUT.upper,
      LAYOUT.work,
      LAYOUT.merged,
      LAYOUT.tmpUpper,
      LAYOUT.tmpWork,
      LAYOUT.tmpMerged,
    ]);
    expect(MOUNT_SCRIPT).not.toContain(LAYOUT.project);
    expect(argv.slice(-4)).toEqual(['--', 'python3', 'w.py', '--flag']);
  });

  it("binds /tmp's overlay and hides the run's own directory before binding the layer over the project (a project under /tmp stays seen)", () => {
    const tmp = argv.indexOf(LAYOUT.tmpMerged, 18);
    const hidden = argv.indexOf(LAYOUT.root, 18);
    const bind = argv.indexOf(LAYOUT.merged, 18);
    expect(argv.slice(tmp - 1, tmp + 2)).toEqual(['--bind', LAYOUT.tmpMerged, '/tmp']);
    expect(argv[hidden - 1]).toBe('--tmpfs');
    expect(argv.slice(bind - 1, bind + 2)).toEqual(['--bind', LAYOUT.merged, LAYOUT.project]);
    expect(tmp).toBeLessThan(hidden);
    expect(hidden).toBeLessThan(bind);
    expect(argv.slice(argv.indexOf(LAYOUT.home) - 1, argv.indexOf(LAYOUT.home) + 2)).toEqual([
      '--bind',
      LAYOUT.home,
      SANDBOX_HOME,
    ]);
  });

  it('isolates everything, with no network unless allowed', () => {
    for (const f of ['--unshare-all', '--die-with-parent', '--new-session']) expect(argv).toContain(f);
    expect(argv).not.toContain('--share-net');
    expect(sandboxArgv(LAYOUT, ['w'], { network: 'allow' })).toContain('--share-net');
    const home = argv.indexOf('HOME');
    expect(argv.slice(home - 1, home + 2)).toEqual(['--setenv', 'HOME', SANDBOX_HOME]);
  });

  it('gives private directories a tmpfs, never the project or its ancestors', () => {
    expect(privateDirsFor('/repo', ['/scratch/1/', '/', '/repo', '/tmp', 'rel', '/scratch/1'])).toEqual([
      '/scratch/1',
    ]);
    const a = sandboxArgv({ ...LAYOUT, project: '/repo' }, ['w'], { privateDirs: ['/scratch/1'] });
    expect(a.slice(a.indexOf('/scratch/1') - 1, a.indexOf('/scratch/1') + 1)).toEqual([
      '--tmpfs',
      '/scratch/1',
    ]);
  });
});

describe('overlayPathDefect', () => {
  it('refuses what overlay options cannot carry', () => {
    expect(overlayPathDefect('/work/a,b')).toMatch(/contains ','/);
    expect(overlayPathDefect('/work/a:b')).toMatch(/contains ':'/);
    expect(overlayPathDefect('/work/a\\b')).toMatch(/contains '\\'/);
    expect(overlayPathDefect("/work/it's fine")).toBeNull();
  });
});

describe('planLayer', () => {
  const owned = new Set(['A.lean', 'sub/C.lean']);
  it('takes owned regular files; discards and names everything else', () => {
    const plan = planLayer(
      {
        written: ['.git/config', 'A.lean', 'B.lean', 'sub/C.lean'],
        deleted: ['old.txt'],
        opaqueDirs: ['build'],
        specials: [{ path: 'pipe', kind: 'fifo' }],
      },
      owned,
      { allowDelete: true, home: { ...NO_LAYER_CHANGES, written: ['.bashrc'] } },
    );
    expect(plan.take).toEqual(['A.lean', 'sub/C.lean']);
    expect(plan.discarded).toEqual([
      '.git/config',
      'B.lean',
      'old.txt (deleted)',
      'build/ (directory replaced)',
      'pipe (fifo)',
      '~/.bashrc',
    ]);
  });

  it('a link or FIFO at an owned path is discarded, never taken', () => {
    const plan = planLayer({ ...NO_LAYER_CHANGES, specials: [{ path: 'A.lean', kind: 'symlink' }] }, owned, {
      allowDelete: true,
    });
    expect(plan).toEqual({ take: [], remove: [], discarded: ['A.lean (symlink)'], quiet: [] });
  });

  it('build output is discarded without a violation; a link planted there is too, an owned file is still taken', () => {
    const plan = planLayer(
      {
        written: ['.lake/build/A.olean', 'A.lean', 'pkg/node_modules/x/index.js', 'distance.txt'],
        deleted: ['dist/old.js'],
        opaqueDirs: [],
        specials: [{ path: 'node_modules/evil', kind: 'symlink' }],
      },
      owned,
      { allowDelete: false, buildDirs: ['node_modules', 'dist', '.lake'] },
    );
    expect(plan.take).toEqual(['A.lean']);
    expect(plan.discarded).toEqual(['distance.txt']);
    expect(plan.quiet).toEqual([
      '.lake/build/A.olean',
      'pkg/node_modules/x/index.js',
      'dist/old.js',
      'node_modules/evil',
    ]);
  });

  it('deletes an owned file only when the dispatch allows it', () => {
    const changes = { ...NO_LAYER_CHANGES, deleted: ['A.lean'] };
    expect(planLayer(changes, owned, { allowDelete: true }).remove).toEqual(['A.lean']);
    expect(planLayer(changes, owned, { allowDelete: false })).toEqual({
      take: [],
      remove: [],
      discarded: ['A.lean (deleted)'],
      quiet: [],
    });
  });

  it('nothing changed: nothing to say', () => {
    expect(planLayer(NO_LAYER_CHANGES, owned, { allowDelete: false })).toEqual({
      take: [],
      remove: [],
      discarded: [],
      quiet: [],
    });
    expect(discardedViolation([])).toBeNull();
  });
});

describe('discardedViolation', () => {
  it('names the paths, the long lists cut with the count', () => {
    expect(discardedViolation(['B.lean', '.git/config'])).toBe(
      'files outside the owned set were written and discarded: B.lean, .git/config',
    );
    const many = Array.from({ length: 25 }, (_, i) => `f${i}`);
    expect(discardedViolation(many)).toMatch(/f19, … \(25 in all\)$/);
  });
});

describe('nameText', () => {
  it('keeps UTF-8 names and escapes the others, never dropping them', () => {
    expect(nameText(Buffer.from('é.lean'))).toBe('é.lean');
    expect(nameText(Buffer.from([0x61, 0xff, 0x5c]))).toBe('a\\xff\\x5c');
  });
});

describe('sandboxDecision', () => {
  const no = { available: false as const, reason: 'bwrap not found on PATH' };
  it('auto falls back with one line; on refuses; off never probes a sandbox', () => {
    expect(sandboxDecision('auto', { available: true })).toEqual({ sandbox: true, note: null });
    expect(sandboxDecision('auto', no)).toEqual({
      sandbox: false,
      note: 'sandbox unavailable: bwrap not found on PATH; running with custody only',
    });
    expect(sandboxDecision('on', no)).toEqual({
      refuse: '--sandbox on: the sandbox cannot run here: bwrap not found on PATH',
    });
    expect(sandboxDecision('off', { available: true })).toEqual({ sandbox: false, note: null });
  });
});

describe('resolveSandboxFlags', () => {
  it('defaults to auto and deny; a bad value is a usage error naming the flag', () => {
    expect(resolveSandboxFlags({})).toEqual({ ok: true, sandbox: 'auto', network: 'deny' });
    expect(resolveSandboxFlags({ sandbox: 'on', sandboxNetwork: 'allow' })).toEqual({
      ok: true,
      sandbox: 'on',
      network: 'allow',
    });
    expect(resolveSandboxFlags({ sandbox: 'yes' })).toEqual({
      ok: false,
      error: "--sandbox must be auto|on|off, got 'yes'",
    });
    expect(resolveSandboxFlags({ sandboxNetwork: 1 })).toEqual({
      ok: false,
      error: '--sandbox-network must be deny|allow, got 1',
    });
  });
});

describe('probeFailureReason', () => {
  it('names the known refusals in one line', () => {
    expect(
      probeFailureReason('sh: 1: cannot create /p/x: Value too large for defined data type\n', 2),
    ).toMatch(/owned by|belong to a user or group other than the runner's/);
    expect(
      probeFailureReason('unshare: write failed /proc/self/uid_map: Operation not permitted\n', 1),
    ).toMatch(/^user namespaces are refused here/);
    expect(probeFailureReason('mount: /x: permission denied.\n', 32)).toMatch(
      /^the overlay mount is refused here/,
    );
    expect(probeFailureReason('', 9)).toBe('the probe sandbox exited with 9');
  });
});
