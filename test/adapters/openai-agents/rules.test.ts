/**
 * The adapter's small rules on their own: owned-path containment (the arguments check), which
 * owned file a sub-agent's path names, reading a final output, the sub-agent's input, and the
 * unforgeable set of issued results.
 */
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { createDispatch } from 'handoff-runtime/delegate';
import {
  checkedResults,
  containOwnedFiles,
  dispatchPrompt,
  isCheckedToolResult,
  readAgentOutput,
} from 'handoff-runtime/openai-agents';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { matchOwned } from '../../../src/adapters/openai-agents/owned-match.js';
import { makeProject, type Project } from '../../delegate/fixtures.js';

let p: Project;
beforeEach(async () => {
  p = await makeProject();
});
afterEach(async () => {
  await p.cleanup();
});

describe('containOwnedFiles', () => {
  it('contains relative and absolute paths inside the root, present or absent', async () => {
    expect(
      await containOwnedFiles(['src/greeting.ts', join(p.dir, 'src', 'new.ts')], { root: p.dir }),
    ).toEqual({
      ok: true,
      paths: [p.owned, join(p.dir, 'src', 'new.ts')],
    });
  });

  it.each([
    [[], 'the call names no owned file'],
    ['src/greeting.ts', 'the call names no owned file'],
    [[''], 'not a file path: ""'],
    [[42], 'not a file path: 42'],
    [['a\0b'], 'not a file path: "a\\u0000b"'],
    [['.'], 'is outside'],
    [['src/../..'], 'is outside'],
    [['src/greeting.ts', './src/greeting.ts'], 'is named twice'],
    [['src'], 'is not a regular file'],
    [['missing/a.ts'], 'does not exist'],
    [['README.md/x'], 'is not a folder'],
  ])('refuses %j', async (paths, detail) => {
    const r = await containOwnedFiles(paths, { root: p.dir });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.detail).toContain(detail);
  });

  it('refuses a root that is itself reached through a link only when a folder inside is one', async () => {
    const alias = `${p.dir}-alias`;
    await symlink(p.dir, alias);
    try {
      // the root's own real path is taken: a link to the project is the project
      expect(await containOwnedFiles(['src/greeting.ts'], { root: alias })).toEqual({
        ok: true,
        paths: [p.owned],
      });
    } finally {
      await import('node:fs/promises').then((fs) => fs.rm(alias));
    }
  });

  it('an allow that throws refuses the call instead of throwing', async () => {
    const r = await containOwnedFiles(['src/greeting.ts'], {
      root: p.dir,
      allow: () => {
        throw new Error('boom');
      },
    });
    expect(r).toEqual({ ok: false, detail: 'the owned files cannot be checked: boom' });
  });

  it('shows a hostile path quoted and bounded', async () => {
    const r = await containOwnedFiles([`../${'\u001b[2J'.repeat(100)}`], { root: p.dir });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.detail).not.toContain('\u001b');
      expect(r.detail.length).toBeLessThan(300);
    }
  });
});

describe('matchOwned', () => {
  const owned = ['/r/src/a.ts', '/r/lib/a.ts', '/r/src/b.ts'];
  it.each([
    ['/r/src/a.ts', '/r/src/a.ts'],
    ['src/a.ts', '/r/src/a.ts'],
    ['./src/b.ts', '/r/src/b.ts'],
    ['b.ts', '/r/src/b.ts'],
  ])('%s names %s', (path, hit) => {
    expect(matchOwned(owned, path)).toEqual({ ok: true, path: hit });
  });
  it.each([
    ['a.ts', 'names more than one owned file'],
    ['../r/src/a.ts', 'is not an owned file'],
    ['/r/src/../src/c.ts', 'is not an owned file'],
    ['/etc/passwd', 'is not an owned file'],
    ['rc/a.ts', 'is not an owned file'],
    ['.', 'is not an owned file'],
    ['', 'not a file path'],
  ])('%j names none', (path, detail) => {
    const m = matchOwned(owned, path);
    expect(m.ok).toBe(false);
    if (!m.ok) expect(m.detail).toContain(detail);
  });
});

describe('readAgentOutput', () => {
  it('reads an object, JSON text and one fenced JSON block', () => {
    expect(readAgentOutput({ a: 1 })).toEqual({ ok: true, value: { a: 1 } });
    expect(readAgentOutput(' {"a": 1}\n')).toEqual({ ok: true, value: { a: 1 } });
    expect(readAgentOutput('```json\n{"a": 1}\n```')).toEqual({ ok: true, value: { a: 1 } });
  });
  it.each([
    [undefined, 'is empty'],
    [7, 'is a number, not a handoff object'],
    [[1], 'is a list, not a handoff object'],
    ['```json\n{"a": 1}\n```\nand more', 'is not JSON'],
    ['"a string"', 'is JSON but not a handoff object'],
    ['x'.repeat(11), 'is 11 characters long; the limit is 10'],
  ])('refuses %j', (output, detail) => {
    const r = readAgentOutput(
      output,
      typeof output === 'string' && output.startsWith('xxx') ? 10 : undefined,
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.detail).toContain(detail);
  });
});

describe('dispatchPrompt', () => {
  it('names the task, the instruction, the owned files and carries the record', async () => {
    const d = await createDispatch({
      target: 'src/greeting.ts:1',
      scope: 'file',
      mode: 'autoprove',
      ownedFiles: [p.owned],
      context: { goal_state: 'Say hello.' },
    });
    const text = dispatchPrompt(d);
    expect(text.split('\n').slice(0, 3)).toEqual([
      'Task: src/greeting.ts:1 (scope file, mode autoprove).',
      'Instruction: Say hello.',
      `You may change only these files: ${p.owned}.`,
    ]);
    expect(JSON.parse(text.split('\n').at(-1) ?? '')).toEqual(JSON.parse(JSON.stringify(d)));
  });
});

describe('issued results', () => {
  it('a look-alike object is not a checked result', () => {
    const forged = { outcome: 'accepted', handoff: {}, violations: [], cite: null };
    expect(isCheckedToolResult(forged)).toBe(false);
    expect(checkedResults([{ output: forged }, null, 7, { output: null }])).toEqual([]);
  });
});
