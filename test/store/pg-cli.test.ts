/**
 * `handoff store … --pg URL` (and $HANDOFF_PG_URL) against a real PostgreSQL server, through the
 * built binary: create, append, set-handoff, load, list; exit codes; usage errors. Needs
 * `npm run build`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, stdoutJson } from '../helpers/cli.js';
import { usePostgres } from '../setup/postgres.js';
import { dispatch, note, solvedHandoff } from './fixtures.js';
import { tempDir } from './tmp.js';

const db = usePostgres();

describe('handoff store --pg', () => {
  it('create, append, set-handoff, load and list go to PostgreSQL; fs stays untouched', async () => {
    const dir = tempDir('pg-cli-');
    const files = { dispatch: join(dir, 'd.json'), note: join(dir, 'n.json'), handoff: join(dir, 'h.json') };
    writeFileSync(files.dispatch, JSON.stringify(dispatch()));
    writeFileSync(files.note, JSON.stringify(note()));
    writeFileSync(files.handoff, JSON.stringify(solvedHandoff()));
    const pgArgs = ['--pg', db.url(), '--pg-schema', 'cli_store'];
    const c = await runCli(
      ['store', 'create', ...pgArgs, '--dispatch', files.dispatch, '--now', '2026-11-30T10:00:00Z'],
      { cwd: dir },
    );
    expect(c.code, c.stderr).toBe(0);
    const created = stdoutJson(c) as { run_id: string; run_directory: string };
    expect(created.run_directory).toBe(`postgres:cli_store/runs/${created.run_id}`);
    const a = await runCli(
      ['store', 'append', ...pgArgs, '--run-id', created.run_id, '--kind', 'note', '--payload', files.note],
      { cwd: dir },
    );
    expect(a.code, a.stderr).toBe(0);
    expect(stdoutJson(a)).toMatchObject({ outcome: 'committed', seq: 1 });
    // $HANDOFF_PG_URL selects PostgreSQL when no file-system root is given
    const h = await runCli(
      [
        'store',
        'set-handoff',
        '--pg-schema',
        'cli_store',
        '--run-id',
        created.run_id,
        '--payload',
        files.handoff,
      ],
      { cwd: dir, env: { HANDOFF_PG_URL: db.url() } },
    );
    expect(h.code, h.stderr).toBe(0);
    expect(stdoutJson(h)).toMatchObject({ outcome: 'committed', seq: 2 });
    const l = await runCli(['store', 'load', ...pgArgs, '--run-id', created.run_id], { cwd: dir });
    expect(l.code, l.stderr).toBe(0);
    expect(stdoutJson(l)).toMatchObject({
      run_id: created.run_id,
      handoff_cache: 'current',
      damaged: false,
      damage: null,
      effective_handoff: { seq: 2 },
    });
    const list = await runCli(['store', 'list', ...pgArgs], { cwd: dir });
    expect(stdoutJson(list)).toEqual({ root: 'postgres:cli_store', runs: [created.run_id] });
    // the default is still the file-system store
    const fsList = await runCli(['store', 'list'], { cwd: dir, env: { HANDOFF_PG_URL: '' } });
    expect(stdoutJson(fsList)).toMatchObject({ runs: [] });
    // refusals keep their exit codes
    const refused = await runCli(
      ['store', 'create', ...pgArgs, '--dispatch', files.dispatch, '--now', 'yesterday'],
      {
        cwd: dir,
      },
    );
    expect(refused.code).toBe(3);
    expect(stdoutJson(refused)).toMatchObject({ outcome: 'nothing_written', code: 'bad_timestamp' });
    // the same task in the same second is a second run, not run_exists
    const again = await runCli(
      ['store', 'create', ...pgArgs, '--dispatch', files.dispatch, '--now', '2026-11-30T10:00:00Z'],
      { cwd: dir },
    );
    expect(again.code, again.stderr).toBe(0);
    const second = stdoutJson<{ run_id: string }>(again);
    expect(second.run_id).toMatch(/^20261130T100000Z-[0-9a-f]{8}$/);
    expect(second.run_id).not.toBe(created.run_id);
  });

  it('usage errors: --pg with a file-system root, a bad schema name, --pg-schema alone; unreachable server refuses', async () => {
    const dir = tempDir('pg-cli-');
    expect((await runCli(['store', 'list', '--pg', db.url(), '--root', dir])).code).toBe(2);
    expect((await runCli(['store', 'list', '--pg', db.url(), '--pg-schema', 'Bad-Name'])).code).toBe(2);
    expect((await runCli(['store', 'list', '--pg-schema', 'x'], { env: { HANDOFF_PG_URL: '' } })).code).toBe(
      2,
    );
    const dead = `postgresql://nobody@localhost/none?host=${encodeURIComponent(join(dir, 'no-server'))}`;
    const r = await runCli(['store', 'load', '--pg', dead, '--run-id', '20261130T100000Z-0123abcd']);
    expect(r.code).toBe(3);
    expect(stdoutJson(r)).toMatchObject({ outcome: 'nothing_written', code: 'journal_unreadable' });
  });
});
