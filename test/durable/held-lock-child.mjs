// Child process for the held-lock tests (runs against the built dist/: `npm run build` first).
// argv: <lock path> <mode>
//   Takes the lock with HeldLockFiles (O_EXCL create + read-only pin), reports "held <ino>", then:
//   mode "exit":  ends normally (the exit hook removes the lock);
//   mode "wait":  waits to be SIGKILLed (the lock stays: never broken);
//   mode "fifo":  the lock is swapped for a FIFO between its creation and its pin (a hostile
//                 neighbour); the pin must not wait for a FIFO writer: reports "pinned <ok>", then
//                 the next hold's answer "hold <json>", then ends normally (the FIFO is left alone).
import { execFileSync } from 'node:child_process';
import { unlinkSync } from 'node:fs';
import {
  createExclusiveFile,
  HeldLockFiles,
  nodeFsLayer,
  pinLockFile,
} from '../../dist/src/durable/index.js';
import { say } from '../helpers/child-say.mjs';

const [lockPath, mode] = process.argv.slice(2);
setTimeout(() => process.exit(3), 30_000).unref();
const fsl = nodeFsLayer();
let swap = mode === 'fifo';
const body = Buffer.from(`{"pid":${process.pid}}\n`);
const held = new HeldLockFiles(fsl);
const take = () => {
  const r = createExclusiveFile(fsl, lockPath, body);
  if (!r.ok) return { ok: false, refusal: r.reason };
  if (swap) {
    swap = false;
    unlinkSync(lockPath);
    execFileSync('mkfifo', [lockPath]);
  }
  const pin = pinLockFile(fsl, lockPath);
  if (mode === 'fifo') say(`pinned ${pin !== null}`);
  return { ok: true, pin };
};
const first = held.hold(lockPath, take);
if (!first.ok) {
  say(`error ${JSON.stringify(first)}`);
  process.exit(1);
}
if (mode === 'fifo') {
  say(`hold ${JSON.stringify(held.hold(lockPath, take))}`);
  process.exit(0);
}
say(`held ${fsl.lstat(lockPath).ino}`);
if (mode === 'wait') setInterval(() => {}, 1000);
