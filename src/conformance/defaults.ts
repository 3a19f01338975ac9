/**
 * The harness's defaults, in a module that loads neither fast-check nor the harness (the CLI
 * prints them in `handoff conformance --help` before it loads fast-check).
 */

/**
 * Default number of cases.
 *
 * @example
 * ```ts
 * await runConformance({ command, runs: DEFAULT_RUNS });
 * ```
 */
export const DEFAULT_RUNS = 25;
/**
 * Default seed (fixed, so a bare run is reproducible).
 *
 * @example
 * ```ts
 * await runConformance({ command, seed: DEFAULT_SEED });
 * ```
 */
export const DEFAULT_SEED = 0;
/**
 * Default per-case timeout in milliseconds.
 *
 * @example
 * ```ts
 * await runConformance({ command, timeoutMs: DEFAULT_TIMEOUT_MS });
 * ```
 */
export const DEFAULT_TIMEOUT_MS = 10_000;
