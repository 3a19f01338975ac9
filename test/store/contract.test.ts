import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFsStore, createMemoryStore, type FsStore, type MemoryStore } from '../../src/store/index.js';
import { fixedClock } from './fixtures.js';
import { describeStoreContract } from './store-contract.js';
import { tempDir } from './tmp.js';

describeStoreContract('memory', {
  make: async (options) => createMemoryStore({ now: fixedClock(), ...options }),
  holdLock: async (store, runId, held) => (store as MemoryStore).holdLock(runId, held),
  capabilities: { appendBatch: true, readBatches: true },
});

describeStoreContract('fs', {
  make: async (options) =>
    createFsStore({ projectRoot: tempDir('contract-'), env: {}, now: fixedClock(), ...options }),
  holdLock: async (store, runId, held) => {
    const lock = join((store as FsStore).runDirectory(runId), '.lock');
    if (held) writeFileSync(lock, '{"pid":0}\n', { flag: 'wx' });
    else unlinkSync(lock);
  },
  capabilities: { appendBatch: true, readBatches: true },
});
