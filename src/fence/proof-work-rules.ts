/**
 * What proof work may add to a Lean file (pure rules, layer 1). Proof work — the fill, deep and
 * repair passes, and falsify and golf too — may add proofs and helper lemmas: `theorem`, `lemma`
 * and `example` declarations and proof text inside existing declarations. It may not change the
 * language the statements are read in: every other new command (or a removed or moved one) is a
 * fence violation unless the dispatch grants its class through a `capabilities` entry.
 *
 * | class | keywords | grant |
 * |---|---|---|
 * | `axiom` | `axiom` | never |
 * | `exit` | `#exit` | never |
 * | `message-filter` | `#guard_msgs` | never |
 * | `context` | `variable`, `include`, `omit` | never (the `added-context` violation) |
 * | `definition` | `def`, `abbrev`, `opaque`, `structure`, `class`, `inductive`, `class inductive`, `class abbrev`, `irreducible_def`, `alias` | `fence:new-definitions` |
 * | `instance` | `instance`, `deriving instance`, an instance's `(priority := …)` | `fence:new-instances` |
 * | `attribute` | `@[…]` on any declaration, `attribute […]` | `fence:new-attributes` |
 * | `syntax` | `macro`, `macro_rules`, `syntax`, `elab`, `elab_rules`, `declare_syntax_cat`, `notation`, `infix`, `infixl`, `infixr`, `prefix`, `postfix`, `binder_predicate`, `simproc`, `dsimproc` (also `local`/`scoped`) | `fence:new-syntax` |
 * | `option` | `set_option` (command level, also `set_option … in` before a declaration) | `fence:set-option` |
 * | `scope` | `open`, `export` (command level, also `open … in` before a declaration) | `fence:open` |
 * | `import` | `import` | `fence:imports` |
 * | `meta` | `run_cmd`, `run_elab`, `run_meta`, `initialize`, `builtin_initialize`, `add_decl_doc`, `register_simp_attr`, `compile_inductive` | `fence:meta-commands` |
 * | `query` | every other `#command` (`#eval`, `#check`, `#print`, …) | `fence:queries` |
 *
 * Always allowed (they change no statement): `namespace`, `section`, `end`, `mutual`, `universe`,
 * `noncomputable section`, `set_option … in` / `open … in` inside a proof (tactic or term level:
 * they reach only that proof), and `set_option` of the resource and display options
 * ({@link RESOURCE_OPTION_PREFIXES}: heartbeats, recursion depth, linters, pretty-printing,
 * tracing), which change how long Lean may work or what it prints, never what a statement means.
 */

/**
 * A class of commands proof work may not add (see the module doc's table).
 *
 * @example
 * ```ts
 * const c: CommandClass = 'syntax';
 * ```
 */
export type CommandClass =
  | 'axiom'
  | 'exit'
  | 'message-filter'
  | 'context'
  | 'definition'
  | 'instance'
  | 'attribute'
  | 'syntax'
  | 'option'
  | 'scope'
  | 'import'
  | 'meta'
  | 'query';

/**
 * The grant that lets a dispatch add definitions (`def`, `abbrev`, `structure`, …) during proof
 * work: a `capabilities` entry of the dispatch.
 *
 * @example
 * ```ts
 * createDelegatingWorker({ ..., capabilities: ['marker-diagnostics', FENCE_GRANT_NEW_DEFINITIONS] });
 * ```
 */
export const FENCE_GRANT_NEW_DEFINITIONS = 'fence:new-definitions';

/**
 * The grant (a dispatch `capabilities` entry) of each class; null: no grant exists.
 *
 * @example
 * ```ts
 * COMMAND_CLASS_GRANTS.definition; // 'fence:new-definitions'
 * COMMAND_CLASS_GRANTS.axiom; // null
 * ```
 */
export const COMMAND_CLASS_GRANTS: Readonly<Record<CommandClass, string | null>> = {
  axiom: null,
  exit: null,
  'message-filter': null,
  context: null,
  definition: FENCE_GRANT_NEW_DEFINITIONS,
  instance: 'fence:new-instances',
  attribute: 'fence:new-attributes',
  syntax: 'fence:new-syntax',
  option: 'fence:set-option',
  scope: 'fence:open',
  import: 'fence:imports',
  meta: 'fence:meta-commands',
  query: 'fence:queries',
};

/**
 * Declaration kinds proof work may add: helper lemmas and examples.
 *
 * @example
 * ```ts
 * PROOF_WORK_DECLARATIONS.has('lemma'); // true
 * ```
 */
export const PROOF_WORK_DECLARATIONS: ReadonlySet<string> = new Set(['theorem', 'lemma', 'example']);

/**
 * Commands that are always allowed: they open and close scopes or declare universes and change
 * no statement.
 *
 * @example
 * ```ts
 * STRUCTURAL_COMMANDS.has('namespace'); // true
 * ```
 */
export const STRUCTURAL_COMMANDS: ReadonlySet<string> = new Set([
  'namespace',
  'section',
  'end',
  'mutual',
  'universe',
]);

const KEYWORD_CLASSES: ReadonlyMap<string, CommandClass> = new Map<string, CommandClass>([
  ['axiom', 'axiom'],
  ['#exit', 'exit'],
  ['#guard_msgs', 'message-filter'],
  ['variable', 'context'],
  ['include', 'context'],
  ['omit', 'context'],
  ...['def', 'abbrev', 'opaque', 'structure', 'class', 'inductive', 'class inductive', 'class abbrev'].map(
    (k): [string, CommandClass] => [k, 'definition'],
  ),
  ['irreducible_def', 'definition'],
  ['alias', 'definition'],
  ['instance', 'instance'],
  ['deriving', 'instance'],
  ['@[', 'attribute'],
  ['attribute', 'attribute'],
  ...[
    'macro',
    'macro_rules',
    'syntax',
    'elab',
    'elab_rules',
    'declare_syntax_cat',
    'notation',
    'infix',
    'infixl',
    'infixr',
    'prefix',
    'postfix',
    'binder_predicate',
    'simproc',
    'dsimproc',
  ].map((k): [string, CommandClass] => [k, 'syntax']),
  ['set_option', 'option'],
  ['open', 'scope'],
  ['export', 'scope'],
  ['import', 'import'],
  ...[
    'run_cmd',
    'run_elab',
    'run_meta',
    'initialize',
    'builtin_initialize',
    'add_decl_doc',
    'register_simp_attr',
    'compile_inductive',
  ].map((k): [string, CommandClass] => [k, 'meta']),
]);

/**
 * The command keywords the Lean fence records as commands (declarations are headers instead).
 *
 * @example
 * ```ts
 * RECORDED_COMMAND_KEYWORDS.has('macro_rules'); // true
 * ```
 */
export const RECORDED_COMMAND_KEYWORDS: ReadonlySet<string> = new Set(
  [...KEYWORD_CLASSES]
    .filter(([, c]) => c !== 'definition' && c !== 'axiom' && c !== 'context')
    .map(([k]) => k),
);

/**
 * Options proof work may set, add or change freely (a name equal to one, or starting with one
 * that ends in `.`): resource limits and output, never the meaning of a statement.
 *
 * @example
 * ```ts
 * RESOURCE_OPTION_PREFIXES.includes('maxHeartbeats'); // true
 * ```
 */
export const RESOURCE_OPTION_PREFIXES: readonly string[] = [
  'maxHeartbeats',
  'maxRecDepth',
  'synthInstance.maxHeartbeats',
  'synthInstance.maxSize',
  'linter.',
  'pp.',
  'trace.',
  'profiler',
  'diagnostics',
];

/**
 * Whether a command's text is a `set_option` (command or `… in` prefix) of a resource or display
 * option (see {@link RESOURCE_OPTION_PREFIXES}), which proof work may add, change or remove.
 *
 * @example
 * ```ts
 * isResourceOption('set_option maxHeartbeats 400000 in'); // true
 * isResourceOption('set_option autoImplicit true'); // false
 * ```
 */
export function isResourceOption(text: string): boolean {
  const m = /^set_option\s+(\S+)/.exec(text);
  if (m === null) return false;
  const name = m[1] as string;
  return RESOURCE_OPTION_PREFIXES.some((p) => (p.endsWith('.') ? name.startsWith(p) : name === p));
}

/**
 * The class of a command or declaration keyword; null for what proof work may add freely
 * (`theorem`, `lemma`, `example`, the structural commands, unknown words). Any `#command` not
 * named in the table is a `query`.
 *
 * @example
 * ```ts
 * commandClass('notation'); // 'syntax'
 * commandClass('#eval'); // 'query'
 * commandClass('lemma'); // null
 * ```
 */
export function commandClass(keyword: string): CommandClass | null {
  const c = KEYWORD_CLASSES.get(keyword);
  if (c !== undefined) return c;
  return keyword.startsWith('#') && keyword.length > 1 ? 'query' : null;
}

/**
 * Whether proof work may add (or remove, or move) a command or declaration of this keyword, given
 * the dispatch's capabilities. A grant is the class's grant (`fence:new-definitions`: any), or the
 * grant scoped to one declaration (`fence:new-definitions=helper`: only a new declaration named
 * `helper`; `fence:set-option=Foo.t`: only a command standing before the fenced declaration
 * `Foo.t`) — `declaration` is that name (a new declaration's own, a command's anchor).
 *
 * @example
 * ```ts
 * proofWorkAllows('def', []); // false
 * proofWorkAllows('def', ['fence:new-definitions']); // true
 * proofWorkAllows('def', ['fence:new-definitions=helper'], 'helper'); // true
 * proofWorkAllows('def', ['fence:new-definitions=helper'], 'other'); // false
 * proofWorkAllows('axiom', ['fence:new-definitions']); // false: no grant exists
 * ```
 */
export function proofWorkAllows(keyword: string, grants: readonly string[], declaration?: string): boolean {
  const c = commandClass(keyword);
  if (c === null) return true;
  const grant = COMMAND_CLASS_GRANTS[c];
  if (grant === null) return false;
  if (grants.includes(grant)) return true;
  return declaration !== undefined && declaration !== '' && grants.includes(`${grant}=${declaration}`);
}
