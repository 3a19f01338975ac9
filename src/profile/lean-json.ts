/**
 * Lean 4's JSON messages (`lake env lean --json FILE`), read into the runtime's diagnostics
 * (layer 1, pure). Lean prints one JSON object per line, the `ToJson` of `SerialMessage`
 * (leanprover/lean4 `src/Lean/Message.lean`): `fileName`, `pos` `{line, column}` (line 1-based,
 * column 0-based in codepoints), `endPos` (omitted when none), `keepFullRange`, `severity`
 * (`information` | `warning` | `error`), `isSilent`, `caption`, `data` (the rendered text) and
 * `kind` (the message's top-level tag, e.g. `hasSorry`; `[anonymous]` when untagged). Toolchains
 * before the `kind`/`isSilent` fields print the rest unchanged, and older ones quote the sorry
 * warning as `'sorry'` where newer ones write `` `sorry` ``: both are read.
 *
 * A `declaration uses sorry` message is a target at `file:line` (its `pos` spans the declaration's
 * name: with the source at hand the name is read from it); an error is an error `file:line:text`;
 * information and other warnings are kept as `infos`; silent messages are dropped (Lean hides them
 * outside the language server); a line that is not one such object is kept in `unparsed`. Never
 * throws; the input is bounded (lines, line length, text lengths).
 */
import { isAbsolute, posix, relative, sep } from 'node:path';

/** Lines read from one output (the rest is counted in `truncated`). */
export const LEAN_JSON_MAX_LINES = 20_000;
/** A longer line is not parsed (kept, shortened, in `unparsed`). */
export const LEAN_JSON_MAX_LINE_CHARS = 1_000_000;
/** Characters of a message's text kept in an error or info string. */
export const LEAN_JSON_MAX_TEXT = 2_000;

/**
 * One `declaration uses sorry` message, as a target.
 *
 * @example
 * ```ts
 * const t: LeanSorryTarget = {
 *   id: 'Demo/Basic.lean:3', file: 'Demo/Basic.lean', line: 3, column: 8,
 *   declaration: "add_zero'", goal: "add_zero'",
 * };
 * ```
 */
export interface LeanSorryTarget {
  /** `file:line`, file relative to the project root (posix separators). */
  readonly id: string;
  readonly file: string;
  readonly line: number;
  /** Lean's 0-based codepoint column of the declaration name. */
  readonly column: number;
  /** The declaration's name read from the source at `pos..endPos`, or null without the source. */
  readonly declaration: string | null;
  /** The declaration name, else the source line, else Lean's message text. */
  readonly goal: string;
}

/**
 * What {@link parseLeanJson} read.
 *
 * @example
 * ```ts
 * const r: LeanJsonDiagnostics = parseLeanJson('');
 * r.targets; // []
 * ```
 */
export interface LeanJsonDiagnostics {
  readonly targets: readonly LeanSorryTarget[];
  /** Error messages as `file:line:text` (text: caption and the message's first line). */
  readonly errors: readonly string[];
  /** Information messages and warnings other than sorry, as `file:line:severity: text`. */
  readonly infos: readonly string[];
  /** Non-empty lines that are not one Lean message object (bounded, shortened). */
  readonly unparsed: readonly string[];
  /** Lines past {@link LEAN_JSON_MAX_LINES}, not read. */
  readonly truncated: number;
}

/**
 * Options of {@link parseLeanJson}.
 *
 * @example
 * ```ts
 * const o: LeanJsonOptions = { root: '/repo', source: (f) => (f === 'A.lean' ? 'theorem a : True := sorry' : null) };
 * ```
 */
export interface LeanJsonOptions {
  /** The project root: absolute `fileName`s under it become project-relative. */
  readonly root?: string;
  /** The source text of a project-relative file, or null (names the sorry's declaration). */
  readonly source?: (file: string) => string | null;
  /** The file a message without a usable `fileName` belongs to (e.g. the file the command was run on). */
  readonly defaultFile?: string;
}

interface Position {
  readonly line: number;
  readonly column: number;
}

// `'sorry'` (older toolchains), `` `sorry` `` or `` `{the sorry term}` `` (newer); `kind: hasSorry` when present
const SORRY_DATA = /^declaration uses ['`][^\n]*['`]$/;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function positionOf(v: unknown): Position | null {
  if (!isRecord(v)) return null;
  const { line, column } = v;
  if (typeof line !== 'number' || !Number.isSafeInteger(line) || line < 0) return null;
  const col = typeof column === 'number' && Number.isSafeInteger(column) && column >= 0 ? column : 0;
  return { line, column: col };
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** `fileName` as a project-relative posix path (absolute outside the root: kept as given). */
function projectFile(fileName: string, root: string | undefined): string {
  let f = fileName;
  if (root !== undefined && isAbsolute(f)) {
    const rel = relative(root, f);
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) f = rel;
  }
  f = f.split(sep).join('/');
  return f.startsWith('./') ? posix.normalize(f) : f;
}

/** The source text between two Lean positions on one line (codepoint columns), trimmed. */
function spanOf(text: string, pos: Position, end: Position | null): { name: string | null; line: string } {
  const lines = text.split(/\r?\n/);
  const raw = lines[pos.line - 1] ?? '';
  const cps = Array.from(raw);
  const name =
    end !== null && end.line === pos.line && end.column > pos.column
      ? cps.slice(pos.column, end.column).join('').trim()
      : null;
  return { name: name === '' ? null : name, line: raw.trim() };
}

/**
 * Reads `lake env lean --json` output: sorry warnings become targets, errors become errors, other
 * messages infos; lines that are not Lean messages are kept in `unparsed`. Pure; never throws.
 *
 * @example
 * ```ts
 * const out = '{"caption":"","data":"declaration uses `sorry`","endPos":{"column":11,"line":3},' +
 *   '"fileName":"t.lean","isSilent":false,"keepFullRange":false,"kind":"hasSorry",' +
 *   '"pos":{"column":8,"line":3},"severity":"warning"}';
 * parseLeanJson(out).targets[0]?.id; // 't.lean:3'
 * ```
 */
export function parseLeanJson(text: string, options: LeanJsonOptions = {}): LeanJsonDiagnostics {
  const targets: LeanSorryTarget[] = [];
  const errors: string[] = [];
  const infos: string[] = [];
  const unparsed: string[] = [];
  const input = typeof text === 'string' ? text : '';
  const lines = input.split('\n');
  const read = lines.slice(0, LEAN_JSON_MAX_LINES);
  const truncated = Math.max(0, lines.length - read.length);
  const seen = new Set<string>();
  for (const rawLine of read) {
    const line = rawLine.trim();
    if (line === '') continue;
    const msg = line.length > LEAN_JSON_MAX_LINE_CHARS || !line.startsWith('{') ? null : parseObject(line);
    if (msg === null || typeof msg.severity !== 'string' || typeof msg.data !== 'string') {
      if (unparsed.length < 200) unparsed.push(clip(line, 500));
      continue;
    }
    const pos = positionOf(msg.pos);
    if (pos === null) {
      if (unparsed.length < 200) unparsed.push(clip(line, 500));
      continue;
    }
    if (msg.isSilent === true) continue;
    const fileName =
      typeof msg.fileName === 'string' && msg.fileName !== '' ? msg.fileName : (options.defaultFile ?? '');
    const file = projectFile(fileName, options.root);
    const caption = typeof msg.caption === 'string' && msg.caption !== '' ? `${msg.caption}: ` : '';
    const firstLine = clip(`${caption}${msg.data.split('\n')[0] ?? ''}`.trim(), LEAN_JSON_MAX_TEXT);
    const isSorry = msg.kind === 'hasSorry' || SORRY_DATA.test(msg.data.trim());
    if (isSorry && (msg.severity === 'warning' || msg.severity === 'error')) {
      const id = `${file}:${pos.line}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const src = options.source?.(file) ?? null;
      const span = src === null ? null : spanOf(src, pos, positionOf(msg.endPos));
      const declaration = span?.name ?? null;
      const goal = declaration ?? (span?.line || firstLine);
      targets.push({ id, file, line: pos.line, column: pos.column, declaration, goal });
      continue;
    }
    if (msg.severity === 'error') errors.push(`${file}:${pos.line}:${firstLine}`);
    else if (msg.severity === 'warning' || msg.severity === 'information')
      infos.push(`${file}:${pos.line}:${msg.severity}: ${firstLine}`);
    else if (unparsed.length < 200) unparsed.push(clip(line, 500));
  }
  return { targets, errors, infos, unparsed, truncated };
}

function parseObject(line: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(line);
    return isRecord(v) ? v : null;
  } catch {
    return null;
  }
}
