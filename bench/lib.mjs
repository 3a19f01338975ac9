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
