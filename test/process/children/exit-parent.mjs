// A runtime that starts a contained worker (which starts a grandchild in its group) and ends
// through exit on SIGTERM, as bin.ts does. Argv: <pid file>. Prints "ready" once both are up.
import { existsSync, readFileSync } from 'node:fs';
import { runContained } from '../../../dist/src/process/index.js';
import { say } from '../../helpers/child-say.mjs';

const pidFile = process.argv[2];
process.once('SIGTERM', () => process.exit(143));
const worker = `
const { spawn } = require('node:child_process');
const { writeFileSync } = require('node:fs');
const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
writeFileSync(process.argv[1], process.pid + ' ' + g.pid);
setInterval(() => {}, 1000);
`;
void runContained([process.execPath, '-e', worker, pidFile], '', { cwd: process.cwd(), timeoutMs: 120_000 });
const wait = setInterval(() => {
  if (existsSync(pidFile) && readFileSync(pidFile, 'utf8').includes(' ')) {
    clearInterval(wait);
    say('ready');
  }
}, 20);
