/**
 * `handoff schemas write|check [--dir DIR]`: writes the generated JSON Schema files, or checks the
 * checked-in ones for drift (exit 3 on drift).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { HandoffError } from '../errors/index.js';
import { generateJsonSchemas } from '../json-schemas.js';
import { optionalString, parseVerbArgs } from './args.js';
import type { CliCommand } from './command.js';
import { printJson } from './io.js';

/** The `schemas` verb group. */
export const command: CliCommand = {
  verbs: ['write', 'check'],
  help: [
    'usage: handoff schemas write|check [--dir DIR]',
    '',
    'write: (re)generates DIR/*.json (default ./schemas) from the zod schemas.',
    'check: prints {"ok", "drifted": [...]} and exits 3 when a file differs or is missing.',
    '',
    'Exit: 0 written / no drift, 3 drift (check), 2 usage.',
  ].join('\n'),
  async run(argv, io) {
    const { values, positionals } = parseVerbArgs(argv, { dir: { type: 'string' } });
    const dir = resolve(io.cwd, optionalString(values, 'dir') ?? 'schemas');
    const files = generateJsonSchemas();
    if (positionals[0] === 'write') {
      await mkdir(dir, { recursive: true });
      for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
      printJson(io, { ok: true, written: Object.keys(files).sort() });
      return 0;
    }
    if (positionals[0] === 'check') {
      const drifted: string[] = [];
      for (const [name, text] of Object.entries(files)) {
        const have = await readFile(join(dir, name), 'utf8').catch(() => null);
        if (have !== text) drifted.push(name);
      }
      printJson(io, { ok: drifted.length === 0, drifted });
      return drifted.length === 0 ? 0 : 3;
    }
    throw new HandoffError(
      'usage',
      positionals[0] === undefined
        ? 'missing verb (write or check)'
        : `unknown schemas verb '${positionals[0]}' (write or check)`,
    );
  },
};
