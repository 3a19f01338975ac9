// Gate ledger benchmark: fs reservations (register + reserve + replay per problem: two ledger
// entries, the replay only reads) against the raw limits measured in the same run, synchronous
// like the ledger: the ledger's append primitive (temp write + fsync + link publish) without and
// with the directory fsync the ledger does after the link (the entry is a new name: without it an
// acknowledged entry may vanish in a power loss). One entry = two fsyncs in this format. The
// ledger op and the raw pairs are timed call by call in turn (mean per call), so they share the
// machine's load at each moment.
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFsLedger, fsLedgerLog } from '../dist/src/gate/index.js';
import { interleavedMeans } from './lib.mjs';

export default async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gate-bench-'));
  try {
    const body = Buffer.from('{"x":1}\n');
    const rawAppender = (sub, dirSync) => {
      const d = join(dir, sub);
      mkdirSync(d);
      let n = 0;
      return () => {
        const tmp = join(d, `t${n}`);
        const fd = openSync(tmp, 'wx');
        writeSync(fd, body);
        fsyncSync(fd);
        closeSync(fd);
        linkSync(tmp, join(d, `r${n++}`));
        unlinkSync(tmp);
        if (dirSync) {
          const dfd = openSync(d, 'r');
          fsyncSync(dfd);
          closeSync(dfd);
        }
      };
    };
    const raw1 = rawAppender('raw', false);
    const raw2 = rawAppender('raw-dir', true);
    const ledger = createFsLedger(join(dir, 'ledger'), { now: () => '2026-11-30T12:00:00.000Z' });
    const profile = { ordinary_repairs: 1, gate_continuations: 1, lead_directed_attempts: 3 };
    const candidate = { commit: null, tree_digest: 'c'.repeat(64) };
    let p = 0;
    // one ledger op (two entries), two raw appends, two raw appends with the directory fsync, in turn
    const [opNs, rawPairNs, rawDirPairNs] = await interleavedMeans(
      [
        async () => {
          const problem_id = `p${p++}`;
          await ledger.register({ problem_id, profile, contract_revision: 1 });
          const req = {
            problem_id,
            idempotency_key: 'k',
            candidate,
            kind: 'continuation',
            directive_id: null,
            requested_by: 'b',
          };
          await ledger.reserve(req);
          await ledger.reserve(req);
        },
        () => {
          raw1();
          raw1();
        },
        () => {
          raw2();
          raw2();
        },
      ],
      400,
    );
    // steady state: entries appended to one problem's log (gate-ledger-line/v1: one write, one
    // fsync, the read-back of the winner) against a raw O_APPEND write + fsync loop on one file
    const rawFd = openSync(join(dir, 'raw-append.jsonl'), 'a');
    const line = Buffer.from(
      `${'0'.repeat(64)} {"event":{"type":"lead-handoff","seq":1},"nonce":"0123456789abcdef"}\n`,
    );
    const log = fsLedgerLog(join(dir, 'steady'));
    const at = '2026-11-30T12:00:00.000Z';
    await log.append('steady', {
      type: 'registered',
      seq: 1,
      at,
      problem_id: 'steady',
      profile,
      contract_revision: 1,
    });
    let seq = 1;
    const [entryNs, rawAppendNs] = await interleavedMeans(
      [
        async () => {
          seq++;
          if (
            !(await log.append('steady', { type: 'lead-handoff', seq, at, packet_id: null, route: 'lead' }))
          )
            throw new Error('lost its own append');
        },
        () => {
          writeSync(rawFd, line);
          fsyncSync(rawFd);
        },
      ],
      400,
    );
    closeSync(rawFd);
    const raw = 2e9 / rawPairNs;
    const rawDir = 2e9 / rawDirPairNs;
    const reservations = 1e9 / opNs;
    // each op appends twice (register, reserve); the replay only reads
    const entries = 1e9 / entryNs;
    const rawAppend = 1e9 / rawAppendNs;
    return [
      { name: 'raw append (O_APPEND write+fsync, one open file)', value: rawAppend, unit: 'ops/s' },
      {
        name: 'fs ledger entry, one problem (gate-ledger-line/v1: 1 fsync) vs raw O_APPEND write+fsync',
        value: entries,
        unit: 'entries/s',
        ratio: entries / rawAppend,
        target: 0.8,
      },
      { name: 'raw append (write+fsync+link)', value: raw, unit: 'ops/s' },
      { name: 'raw append (write+fsync+link+directory fsync)', value: rawDir, unit: 'ops/s' },
      {
        name: 'fs ledger register+reserve+replay, entries vs raw without directory fsync',
        value: reservations,
        unit: 'ops/s',
        ratio: (reservations * 2) / raw,
        target: 0.8,
      },
      {
        name: 'fs ledger entries vs raw with directory fsync (the same durability)',
        value: reservations * 2,
        unit: 'entries/s',
        ratio: (reservations * 2) / rawDir,
        target: 0.8,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
