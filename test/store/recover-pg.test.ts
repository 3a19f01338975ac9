/**
 * `handoff store recover --pg` against a real PostgreSQL server (needs `npm run build`): the
 * PostgreSQL store has no lock file and no torn line, so an existing run is `nothing_to_do` with
 * that explanation (exit 0, nothing written), an unknown run is refused as load refuses it, and a
 * malformed run id is `bad_run_id` (exit 3).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, stdoutJson } from '../helpers/cli.js';
import { usePostgres } from '../setup/postgres.js';
import { dispatch } from './fixtures.js';
import { tempDir } from './tmp.js';

const db = usePostgres();

describe('handoff store recover --pg', () => {
  it('nothing to do for an existing run; refusals for an unknown or malformed id', async () => {
    const dir = tempDir('recover-pg-');
    writeFileSync(join(dir, 'd.json'), JSON.stringify(dispatch()));
    const pg = ['--pg', db.url(), '--pg-schema', 'recover_store'];
    const c = await runCli(
      ['store', 'create', ...pg, '--dispatch', 'd.json', '--now', '2026-11-30T10:00:00Z'],
      { cwd: dir },
    );
    expect(c.code, c.stderr).toBe(0);
    const id = stdoutJson<{ run_id: string }>(c).run_id;
    for (const extra of [[], ['--dry-run']]) {
      const r = await runCli(['store', 'recover', ...pg, '--run-id', id, '--json', ...extra], { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      const body = stdoutJson<{ outcome: string; actions: unknown[]; detail: string; cite?: string }>(r);
      expect(body).toMatchObject({
        schema: 'run-store-recover/v1',
        run_id: id,
        outcome: 'nothing_to_do',
        actions: [],
      });
      expect(body.detail).toMatch(/advisory lock/);
      expect(body.cite).toBeUndefined();
    }
    const l = await runCli(['store', 'load', ...pg, '--run-id', id], { cwd: dir });
    expect(stdoutJson<{ events: unknown[] }>(l).events).toEqual([]);
    const unknown = await runCli(
      ['store', 'recover', ...pg, '--run-id', '20261130T100000Z-00000000', '--json'],
      { cwd: dir },
    );
    expect(unknown.code).toBe(3);
    expect(stdoutJson(unknown)).toMatchObject({ outcome: 'refused', code: 'no_such_run' });
    const bad = await runCli(['store', 'recover', ...pg, '--run-id', '../x', '--json'], { cwd: dir });
    expect(bad.code).toBe(3);
    expect(stdoutJson(bad)).toMatchObject({ outcome: 'refused', run_id: null, code: 'bad_run_id' });
  }, 120_000);
});
