/**
 * Headless Chromium for the tests that render the HTML viewer in a real browser (test/viz/browser,
 * test/viz/browser-layout, test/cli/inspect-chain-trace): which binary (CHROMIUM_BIN, else the
 * usual install paths), the flags every run uses (headless, no sandbox, no GPU, no network
 * chatter, a profile directory of the test's own), and one run with an argument array whose output
 * is collected. Chromium is required: a test states it with {@link CHROMIUM_MISSING} and FAILS
 * without it, it never skips.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Where Chromium is looked for when CHROMIUM_BIN is not set, in order.
 *
 * @example
 * ```ts
 * CHROMIUM_CANDIDATES[0]; // '/usr/bin/chromium'
 * ```
 */
export const CHROMIUM_CANDIDATES: readonly string[] = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
];

/**
 * The Chromium binary: CHROMIUM_BIN, else the first of {@link CHROMIUM_CANDIDATES} that exists,
 * else null.
 *
 * @example
 * ```ts
 * expect(CHROMIUM, CHROMIUM_MISSING).not.toBeNull();
 * ```
 */
export const CHROMIUM: string | null =
  process.env.CHROMIUM_BIN ?? CHROMIUM_CANDIDATES.find((c) => existsSync(c)) ?? null;

/**
 * The failure message of a test that finds no Chromium.
 *
 * @example
 * ```ts
 * it('chromium is installed', () => expect(CHROMIUM, CHROMIUM_MISSING).not.toBeNull());
 * ```
 */
export const CHROMIUM_MISSING = `no chromium binary among ${CHROMIUM_CANDIDATES.join(', ')} (set CHROMIUM_BIN)`;

/**
 * The arguments of a headless run with its own profile directory `profile`, then `extra`.
 *
 * @example
 * ```ts
 * spawn(CHROMIUM, headlessArgs(join(dir, 'profile'), '--remote-debugging-pipe', 'about:blank'));
 * ```
 */
export function headlessArgs(profile: string, ...extra: readonly string[]): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${profile}`,
    ...extra,
  ];
}

/**
 * Runs Chromium headless with {@link headlessArgs} and `args` (60 s limit, 32 MiB of output);
 * resolves with what it printed, rejects with its stderr when it fails or is missing.
 *
 * @example
 * ```ts
 * const { stdout } = await runChromium(['--dump-dom', pathToFileURL(page).href], profile);
 * ```
 */
export function runChromium(
  args: readonly string[],
  profile: string,
): Promise<{ stdout: string; stderr: string }> {
  const bin = CHROMIUM;
  if (bin === null) return Promise.reject(new Error('no chromium binary found'));
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      headlessArgs(profile, ...args),
      { timeout: 60_000, maxBuffer: 32 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve({ stdout, stderr }),
    );
  });
}
