// Shared timing helpers for the benchmarks.

/** Runs fn repeatedly for about `ms` milliseconds (after a warm-up); returns operations per second. */
export async function opsPerSecond(fn, ms = 1000) {
  for (let i = 0; i < 50; i++) await fn();
  let n = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(ms) * 1_000_000n;
  let now = start;
  while (now < deadline) {
    for (let i = 0; i < 20; i++) await fn();
    n += 20;
    now = process.hrtime.bigint();
  }
  return n / (Number(now - start) / 1e9);
}

/** Synchronous variant of opsPerSecond. */
export function opsPerSecondSync(fn, ms = 1000) {
  for (let i = 0; i < 50; i++) fn();
  let n = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(ms) * 1_000_000n;
  let now = start;
  while (now < deadline) {
    for (let i = 0; i < 100; i++) fn();
    n += 100;
    now = process.hrtime.bigint();
  }
  return n / (Number(now - start) / 1e9);
}

/** Wall time in seconds of one call. */
export async function timeOnce(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/**
 * Runs the functions in turn, `rounds` times (after `warm` warm-up rounds), timing each call alone;
 * returns each function's mean time per call in ns (a mean, not a median: an operation whose
 * every n-th call is dearer — a new file, a directory fsync — is charged for it). Interleaving puts a durable operation and
 * its raw limit under the same load at the same moment, so their ratio survives a shared, noisy
 * machine better than two back-to-back timing loops.
 */
export async function interleavedMeans(fns, rounds, warm = 20) {
  const times = fns.map(() => []);
  for (let r = -warm; r < rounds; r++) {
    for (let i = 0; i < fns.length; i++) {
      const s = process.hrtime.bigint();
      await fns[i]();
      const t = Number(process.hrtime.bigint() - s);
      if (r >= 0) times[i].push(t);
    }
  }
  return times.map((xs) => xs.reduce((a, b) => a + b, 0) / xs.length);
}
