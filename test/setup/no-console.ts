/**
 * Fails any test that writes to the console: stray output hides real failures and
 * breaks the CLI's machine-readable streams.
 */
import { afterEach, beforeEach } from 'vitest';

const methods = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
let written: string[] = [];
const originals = new Map<string, (...args: unknown[]) => void>();

beforeEach(() => {
  written = [];
  for (const m of methods) {
    originals.set(m, console[m] as (...args: unknown[]) => void);
    console[m] = (...args: unknown[]) => {
      written.push(`console.${m}: ${args.map(String).join(' ')}`);
    };
  }
});

afterEach(() => {
  for (const m of methods) console[m] = originals.get(m) as typeof console.log;
  if (written.length > 0) {
    const lines = written.join('\n');
    written = [];
    throw new Error(`test wrote to the console:\n${lines}`);
  }
});
