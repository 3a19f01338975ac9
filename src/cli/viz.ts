/**
 * `handoff viz <cycle|chain|gate|synthesis|delegation> [--format mermaid|dot|json|html] [--path FILE|-] [--out FILE]`
 * draws a protocol machine; `handoff viz --docs [--check] [--dir DIR]` writes (or checks) the
 * generated docs/machines/*.md. Exit 0 ok, 2 usage (unknown machine or format), 3 docs drift
 * (`--check`), 4 a file could not be read or written.
 */
import { writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { HandoffError } from '../errors/index.js';
import { checkMachineDocs, writeMachineDocs } from '../viz/docs-files.js';
import { toDot } from '../viz/dot.js';
import { machineGraph } from '../viz/graph.js';
import { toHtml } from '../viz/html.js';
import { toJson } from '../viz/json.js';
import { MACHINE_NAMES, namedMachine } from '../viz/machines.js';
import { toMermaid } from '../viz/mermaid.js';
import { overlayPath, type PathOverlay, type PathStep } from '../viz/overlay.js';
import { optionalString, parseVerbArgs } from './args.js';
import type { CliCommand } from './command.js';
import { type CliIo, readJsonInput } from './io.js';

/** Output formats of `handoff viz` (and the drawing formats of `handoff inspect`). */
export const VIZ_FORMATS = ['mermaid', 'dot', 'json', 'html'] as const;

const HELP = [
  'usage: handoff viz <machine> [--format mermaid|dot|json|html] [--path FILE|-] [--out FILE]',
  '       handoff viz --docs [--check] [--dir DIR]',
  '',
  `Draws a protocol machine (${MACHINE_NAMES.join(', ')}) from its xstate definition.`,
  '  --format   mermaid (stateDiagram-v2, default), dot (Graphviz), json (handoff-viz-graph/v1),',
  '             html (one self-contained page with an SVG drawing, no network)',
  '  --path     a JSON array of steps [{"state": "plan.discover", "event": "…"}, …] to highlight',
  '  --out      write to FILE instead of standard output',
  '  --docs     write docs/machines/<machine>.md (intro, Mermaid diagram, states, transitions)',
  '  --check    with --docs: write nothing, exit 3 when a checked-in doc differs (drift)',
  '  --dir      with --docs: the directory (default docs/machines under the working directory)',
  '',
  'Exit: 0 ok, 2 usage (unknown machine or format), 3 docs drift (--check), 4 file unreadable/unwritable.',
].join('\n');

function resolvePath(io: CliIo, p: string): string {
  return isAbsolute(p) ? p : join(io.cwd, p);
}

/**
 * Writes `text` to `--out` or stdout.
 *
 * @example
 * ```ts
 * await emit(io, text, 'cycle.html');
 * ```
 * @throws HandoffError `io_error` (exit 4) when the file cannot be written.
 */
export async function emit(io: CliIo, text: string, out: string | undefined): Promise<void> {
  if (out === undefined || out === '-') {
    io.out(text);
    return;
  }
  try {
    await writeFile(resolvePath(io, out), text);
  } catch (e) {
    throw new HandoffError(
      'io_error',
      `cannot write ${out}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
      {
        details: { file: out },
      },
    );
  }
}

/**
 * Renders a graph in a drawing format.
 *
 * @example
 * ```ts
 * render(graph, 'mermaid', null);
 * ```
 */
export function render(
  graph: ReturnType<typeof machineGraph>,
  format: (typeof VIZ_FORMATS)[number],
  overlay: PathOverlay | null,
  subtitle: readonly string[] = [],
): string {
  switch (format) {
    case 'mermaid':
      return toMermaid(graph, { overlay });
    case 'dot':
      return toDot(graph, { overlay });
    case 'json':
      return toJson(graph, overlay);
    default:
      return toHtml(graph, { overlay, subtitle });
  }
}

async function readSteps(io: CliIo, source: string): Promise<PathStep[]> {
  let parsed: Awaited<ReturnType<typeof readJsonInput>>;
  try {
    parsed = await readJsonInput(io, source);
  } catch (e) {
    throw new HandoffError('io_error', (e as Error).message, { details: { file: source } });
  }
  if (!parsed.ok) throw new HandoffError('usage', parsed.error);
  const v = parsed.value;
  if (
    !Array.isArray(v) ||
    !v.every(
      (s) =>
        s !== null &&
        typeof s === 'object' &&
        (typeof (s as PathStep).state === 'string' || typeof (s as PathStep).state === 'object') &&
        (s as PathStep).state !== null,
    )
  ) {
    throw new HandoffError(
      'usage',
      `--path ${source}: expected a JSON array of {"state": …, "event"?: …} steps`,
    );
  }
  return v as PathStep[];
}

async function docs(io: CliIo, values: Record<string, unknown>): Promise<number> {
  const dir = resolvePath(io, optionalString(values as never, 'dir') ?? 'docs/machines');
  const show = (f: string): string => relative(io.cwd, f) || f;
  if (values.check === true) {
    const drift = await checkMachineDocs(dir);
    if (drift.length === 0) {
      io.out(`${JSON.stringify({ ok: true, dir: show(dir), drift: [] })}\n`);
      return 0;
    }
    io.out(
      `${JSON.stringify({ ok: false, dir: show(dir), drift: drift.map((d) => ({ ...d, file: show(d.file) })) })}\n`,
    );
    io.err(
      `handoff viz: ${drift.length} machine doc(s) drifted; run handoff viz --docs --dir ${show(dir)}\n`,
    );
    return 3;
  }
  let files: string[];
  try {
    files = await writeMachineDocs(dir);
  } catch (e) {
    throw new HandoffError('io_error', `cannot write docs into ${show(dir)}: ${(e as Error).message}`, {
      details: { dir },
    });
  }
  io.out(`${JSON.stringify({ ok: true, written: files.map(show) })}\n`);
  return 0;
}

/** The `handoff viz` verb group. */
export const command: CliCommand = {
  verbs: ['cycle', 'chain', 'gate', 'synthesis', 'delegation', 'transfer'],
  help: HELP,
  async run(argv, io) {
    const { values, positionals } = parseVerbArgs(argv, {
      format: { type: 'string' },
      out: { type: 'string' },
      path: { type: 'string' },
      docs: { type: 'boolean' },
      check: { type: 'boolean' },
      dir: { type: 'string' },
    });
    if (values.docs === true) {
      if (
        positionals.length > 0 ||
        values.format !== undefined ||
        values.path !== undefined ||
        values.out !== undefined
      )
        throw new HandoffError('usage', '--docs takes only --check and --dir');
      return docs(io, values);
    }
    if (values.check !== undefined || values.dir !== undefined)
      throw new HandoffError('usage', '--check and --dir go with --docs');
    if (positionals.length !== 1)
      throw new HandoffError('usage', `expected one machine name (${MACHINE_NAMES.join(', ')})`);
    const name = positionals[0] as string;
    const m = namedMachine(name);
    if (m === undefined)
      throw new HandoffError('usage', `unknown machine '${name}' (known: ${MACHINE_NAMES.join(', ')})`);
    const format = optionalString(values, 'format') ?? 'mermaid';
    if (!(VIZ_FORMATS as readonly string[]).includes(format))
      throw new HandoffError('usage', `unknown format '${format}' (known: ${VIZ_FORMATS.join(', ')})`);
    const graph = machineGraph(m.machine);
    const pathFile = optionalString(values, 'path');
    const overlay = pathFile === undefined ? null : overlayPath(graph, await readSteps(io, pathFile));
    await emit(
      io,
      render(graph, format as (typeof VIZ_FORMATS)[number], overlay),
      optionalString(values, 'out'),
    );
    return 0;
  },
};
