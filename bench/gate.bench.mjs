// Gate ledger benchmark: the fs ledger (`createFsLedger`, gate-ledger-line/v1) against the raw
// limit of the durable primitive it uses, measured in the same run, synchronous like the ledger.
// The ledger writes one O_APPEND line per entry into `<problem>/log.jsonl` and fsyncs it (one fsync
// per entry), through a descriptor it holds open; a NEW problem's first entry must also create the
// problem's directory and its log file durably: mkdir + fsync of the ledger directory, create +
// write + fsync, fsync of the problem directory (four fsyncs for a new problem's first two
// entries). The raw loops do exactly those system calls and nothing else (same bytes: the lines
// the ledger wrote for a sample problem), so the ratios charge the ledger only for its own work
// (validation, checksum, the lstat that detects an outside change, the read-back of the winner,
// parsing). An older version of this bench compared against temp-file + link publishes (the
// per-entry-file format, gone since gate-ledger-line/v1): those rows no longer described what the
// ledger does and were replaced by the new-problem rows below (docs/gate.md § Benchmark).
// The ledger op and its raw loops are timed call by call in turn (mean per call), so they share
// the machine's load at each moment. The machine is shared: figures are noisy, ratios less so.
import {
  closeSync,
  constants,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contentId } from '../dist/src/gate/ids.js';
import { createFsLedger, fsLedgerLog, reservationBasis } from '../dist/src/gate/index.js';
import { interleavedMeans } from './lib.mjs';

const { O_APPEND, O_CREAT, O_EXCL, O_RDWR, O_RDONLY, O_DIRECTORY } = constants;

function fsyncDir(d) {
  const fd = openSync(d, O_RDONLY | O_DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The newline-terminated lines of a log file, as buffers. */
function linesOf(file) {
  const text = readFileSync(file, 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => Buffer.from(`${l}\n`));
}

export default async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gate-bench-'));
  try {
    const at = '2026-11-30T12:00:00.000Z';
    const profile = { ordinary_repairs: 1, gate_continuations: 1, lead_directed_attempts: 3 };
    const candidate = { commit: null, tree_digest: 'c'.repeat(64) };
    // a continuation rests on its route decision (issue 29): the enforcer re-checks the digest
    const routeBody = {
      schema: 'gate-route/v1',
      packet_id: `pkt_${'0'.repeat(32)}`,
      assessment_ref: null,
      route: 'CONTINUATION_ELIGIBLE',
      reasons: [],
      criteria: [],
      obligations: [],
      thresholds: { satisfied: 0.8, violated: 0.5 },
      slots: { ordinary_repair: 1, gate_continuation: 1 },
    };
    const basis = reservationBasis({ ...routeBody, route_id: contentId('rte', routeBody) }, candidate, 1);
    const request = (problem_id) => ({
      problem_id,
      idempotency_key: 'k',
      candidate,
      kind: 'continuation',
      directive_id: null,
      requested_by: 'b',
      ...basis,
    });
    const live = { live: candidate };
    // the bytes the ledger writes for a new problem (registered + reserved), for the raw loops
    const sampleRoot = join(dir, 'sample');
    const sample = createFsLedger(sampleRoot, { now: () => at });
    await sample.register({ problem_id: 'p0', profile, contract_revision: 1 });
    await sample.reserve(request('p0'), live);
    const [regLine, resLine] = linesOf(join(sampleRoot, 'p0', 'log.jsonl'));

    // a new problem's first two entries, raw: the ledger's system calls without the ledger
    const rawNewProblem = (sub, dirSync) => {
      const d = join(dir, sub);
      mkdirSync(d);
      let n = 0;
      return () => {
        const pd = join(d, `p${n++}`);
        mkdirSync(pd);
        if (dirSync) fsyncDir(d);
        const fd = openSync(join(pd, 'log.jsonl'), O_RDWR | O_APPEND | O_CREAT | O_EXCL, 0o666);
        writeSync(fd, regLine);
        fsyncSync(fd);
        if (dirSync) fsyncDir(pd);
        writeSync(fd, resLine);
        fsyncSync(fd);
        closeSync(fd);
      };
    };
    const rawDurable = rawNewProblem('raw-new', true);
    const rawNoDir = rawNewProblem('raw-new-nodir', false);
    const ledger = createFsLedger(join(dir, 'ledger'), { now: () => at });
    let p = 0;
    // one ledger op (register + reserve + replay: two entries, the replay only reads), the raw
    // new-problem pair with the directory fsyncs, and without them, in turn
    const [opNs, rawNs, rawNoDirNs] = await interleavedMeans(
      [
        async () => {
          const problem_id = `p${p++}`;
          await ledger.register({ problem_id, profile, contract_revision: 1 });
          await ledger.reserve(request(problem_id), live);
          await ledger.reserve(request(problem_id), live);
        },
        rawDurable,
        rawNoDir,
      ],
      400,
    );
    // steady state: entries appended to one problem's log (one write, one fsync, the read-back of
    // the winner) against a raw O_APPEND write + fsync loop on one held file, same line bytes
    const log = fsLedgerLog(join(dir, 'steady'));
    await log.append('steady', {
      type: 'registered',
      seq: 1,
      at,
      problem_id: 'steady',
      profile,
      contract_revision: 1,
    });
    let seq = 1;
    const next = () => ({ type: 'lead-handoff', seq: ++seq, at, packet_id: null, route: 'lead' });
    if (!(await log.append('steady', next()))) throw new Error('lost its own append');
    const [steadyLine] = linesOf(join(dir, 'steady', 'steady', 'log.jsonl')).slice(-1);
    const rawFd = openSync(join(dir, 'raw-append.jsonl'), 'a');
    const [entryNs, rawAppendNs] = await interleavedMeans(
      [
        async () => {
          if (!(await log.append('steady', next()))) throw new Error('lost its own append');
        },
        () => {
          writeSync(rawFd, steadyLine);
          fsyncSync(rawFd);
        },
      ],
      400,
    );
    closeSync(rawFd);
    log.close();
    const entries = 1e9 / entryNs;
    const rawAppend = 1e9 / rawAppendNs;
    const ops = 1e9 / opNs;
    const raw = 1e9 / rawNs;
    const rawNo = 1e9 / rawNoDirNs;
    return [
      { name: 'raw append (O_APPEND write+fsync, one held file)', value: rawAppend, unit: 'ops/s' },
      {
        name: 'fs ledger entry, one problem (gate-ledger-line/v1: 1 fsync) vs raw O_APPEND write+fsync',
        value: entries,
        unit: 'entries/s',
        ratio: entries / rawAppend,
        target: 0.8,
      },
      {
        name: 'raw new problem, two entries (mkdir+dir fsync, create+write+fsync+dir fsync, write+fsync: 4 fsyncs)',
        value: raw,
        unit: 'problems/s',
      },
      {
        name: 'raw new problem, two entries without the directory fsyncs (2 fsyncs; weaker durability, reference)',
        value: rawNo,
        unit: 'problems/s',
      },
      {
        name: 'fs ledger register+reserve+replay (new problem, 4 fsyncs) vs raw new problem (the same durability)',
        value: ops,
        unit: 'problems/s',
        ratio: ops / raw,
        target: 0.8,
      },
      {
        name: 'fs ledger register+reserve+replay vs raw without the directory fsyncs (weaker durability; no target)',
        value: ops,
        unit: 'problems/s',
        ratio: ops / rawNo,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
