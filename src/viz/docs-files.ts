/**
 * Writing and drift-checking the generated machine docs (`docs/machines/<machine>.md`; I/O).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { machineGraph } from './graph.js';
import { machineDoc } from './machine-doc.js';
import { MACHINE_NAMES, namedMachine } from './machines.js';

/** One generated doc. */
export interface GeneratedDoc {
  readonly machine: string;
  readonly file: string;
  readonly text: string;
}

/** A doc whose checked-in text differs from the generated one. */
export interface DocDrift {
  readonly machine: string;
  readonly file: string;
  readonly state: 'missing' | 'different';
}

/**
 * The generated docs of every named machine, for a target directory.
 *
 * @example
 * ```ts
 * generatedDocs('docs/machines').map((d) => d.file); // ['docs/machines/cycle.md', …]
 * ```
 */
export function generatedDocs(dir: string): GeneratedDoc[] {
  return MACHINE_NAMES.map((name) => {
    const m = namedMachine(name);
    if (m === undefined) throw new Error(`unknown machine ${name}`);
    return { machine: name, file: join(dir, `${name}.md`), text: machineDoc(machineGraph(m.machine), m) };
  });
}

/**
 * Writes every machine doc into `dir` (created if missing) and returns the files written.
 *
 * @example
 * ```ts
 * await writeMachineDocs('/repo/docs/machines');
 * ```
 */
export async function writeMachineDocs(dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const docs = generatedDocs(dir);
  for (const d of docs) await writeFile(d.file, d.text);
  return docs.map((d) => d.file);
}

/**
 * Compares the docs in `dir` with freshly generated ones; an empty list means no drift.
 *
 * @example
 * ```ts
 * (await checkMachineDocs('/repo/docs/machines')).length; // 0 when up to date
 * ```
 */
export async function checkMachineDocs(dir: string): Promise<DocDrift[]> {
  const drift: DocDrift[] = [];
  for (const d of generatedDocs(dir)) {
    let current: string | null = null;
    try {
      current = await readFile(d.file, 'utf8');
    } catch {
      current = null;
    }
    if (current === null) drift.push({ machine: d.machine, file: d.file, state: 'missing' });
    else if (current !== d.text) drift.push({ machine: d.machine, file: d.file, state: 'different' });
  }
  return drift;
}
