/**
 * A missing optional peer is one line naming the package to install; any other load failure is
 * passed on unchanged.
 */
import { describe, expect, it } from 'vitest';
import { importPeer, isMissingPeer } from '../../src/errors/missing-peer.js';

const notFound = (pkg: string) =>
  Object.assign(new Error(`Cannot find package '${pkg}' imported from /app/x.js`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });

describe('importPeer', () => {
  it('names the package to install when the peer itself is missing', async () => {
    await expect(
      importPeer('handoff-runtime/pg', 'pg', () => Promise.reject(notFound('pg'))),
    ).rejects.toMatchObject({
      code: 'usage',
      message: 'handoff-runtime/pg needs the optional peer "pg": npm install pg',
      details: { package: 'pg' },
    });
  });

  it('passes on another package missing, or any other failure, unchanged', async () => {
    const other = notFound('pg-types');
    await expect(importPeer('handoff-runtime/pg', 'pg', () => Promise.reject(other))).rejects.toBe(other);
    expect(isMissingPeer(new Error('boom'), 'pg')).toBe(false);
    expect(isMissingPeer(null, 'pg')).toBe(false);
  });

  it('returns the module when it loads', async () => {
    await expect(importPeer('e', 'p', async () => ({ ok: 1 }))).resolves.toEqual({ ok: 1 });
  });
});
