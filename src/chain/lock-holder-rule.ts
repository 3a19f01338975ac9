/**
 * Whether a chain append lock's holder is provably gone (pure): the rule a person's explicit lock
 * recovery applies ({@link recoverChainJournalLock}). A lock body is `{host, pid}`; it is stale
 * only when it names this host and a pid that is not running here. A lock of another host, of a
 * live pid (or a process reusing it), or with a body that cannot be read as `{host, pid}` is held.
 */

/** The most bytes a lock body may have. */
const MAX_BODY = 4096;

/** What the rule knows of the machine it runs on. */
export interface ChainLockHere {
  /** This machine's hostname. */
  readonly host: string;
  /** True when `pid` names a process here, or its absence cannot be proven (the safe side). */
  readonly isAlive: (pid: number) => boolean;
}

/** The verdict on one lock body. */
export type ChainLockVerdict =
  | { readonly stale: true; readonly holder: { readonly host: string; readonly pid: number } }
  | {
      readonly stale: false;
      readonly reason: 'unreadable' | 'other_host' | 'owner_alive';
      readonly detail: string;
    };

/**
 * Judges a lock body (pure; never throws).
 *
 * @example
 * ```ts
 * judgeChainLock(Buffer.from('{"host":"h","pid":4242}\n'), { host: 'h', isAlive: () => false }); // { stale: true, … }
 * judgeChainLock(Buffer.from('{"host":"other","pid":1}'), here); // { stale: false, reason: 'other_host', … }
 * ```
 */
export function judgeChainLock(body: Uint8Array, here: ChainLockHere): ChainLockVerdict {
  const unreadable = (detail: string): ChainLockVerdict => ({ stale: false, reason: 'unreadable', detail });
  if (body.length === 0) return unreadable('the lock body is empty (a writer stopped while creating it?)');
  if (body.length > MAX_BODY)
    return unreadable(`the lock body has ${body.length} bytes (more than ${MAX_BODY})`);
  let v: unknown;
  try {
    v = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    return unreadable('the lock body is not UTF-8 JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return unreadable('the lock body is not an object');
  const keys = Object.keys(v).sort();
  if (keys.length !== 2 || keys[0] !== 'host' || keys[1] !== 'pid')
    return unreadable('the lock body is not exactly {host, pid}');
  const { host, pid } = v as { host: unknown; pid: unknown };
  if (typeof host !== 'string' || host === '') return unreadable('the lock body has no host');
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0)
    return unreadable('the lock body has no valid pid');
  if (host !== here.host)
    return {
      stale: false,
      reason: 'other_host',
      detail: `the lock was taken on host ${JSON.stringify(host)}, not this host: its holder cannot be checked from here`,
    };
  if (here.isAlive(pid))
    return {
      stale: false,
      reason: 'owner_alive',
      detail: `the lock's holder pid ${pid} is running on this host (or a process reusing its pid is): the lock is held`,
    };
  return { stale: true, holder: { host, pid } };
}
