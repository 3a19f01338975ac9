#!/usr/bin/env node
// Example gate worker: reads one gate-worker-request/v1 on stdin, edits the repository, and prints
// its result as the last JSON line. The initial attempt forgets `farewell`; a repair adds it (once:
// running it again changes nothing). GATE_EXAMPLE_WORKER=slow only adds a note on the ordinary
// repair and fixes `farewell` on the gate continuation; GATE_EXAMPLE_WORKER=blocked reports BLOCKED.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const request = JSON.parse(Buffer.concat(chunks).toString('utf8'));
mkdirSync('src', { recursive: true });
const kind = request.attempt.kind;
const mode = process.env.GATE_EXAMPLE_WORKER ?? '';
process.stdout.write(`worker: attempt ${kind}\n`);
const GREET = "export function greet(name) { return 'hello ' + name; }\n";
const FAREWELL = "export function farewell(name) { return 'bye ' + name; }\n";
const NOTE = '// ordinary repair: the second export is still to do\n';
if (mode === 'blocked') {
  const report = {
    schema: 'gate-blocked/v1',
    failure: 'cannot reach the payment sandbox',
    evidence: ['src/greet.js'],
    hypothesis: { text: 'the sandbox needs network access', verified: false },
    proposed_next_step: 'stub the payment client in `greet`',
    intended_validation: 'unit test of greet',
    operations: [],
  };
  writeFileSync('src/greet.js', GREET);
  process.stdout.write(`${JSON.stringify({ status: 'blocked', blocked: report })}\n`);
  process.exit(0);
}
let text = existsSync('src/greet.js') ? readFileSync('src/greet.js', 'utf8') : '';
if (!text.includes('function greet')) text = GREET + text;
const fixNow = kind !== 'initial' && !(mode === 'slow' && kind === 'ordinary-repair');
if (mode === 'slow' && kind === 'ordinary-repair' && !text.includes(NOTE)) text += NOTE;
if (fixNow && !text.includes('function farewell')) text += FAREWELL;
writeFileSync('src/greet.js', text);
process.stdout.write(
  `${JSON.stringify({ status: 'provisional', claims: [{ criterion_id: 'greet', text: 'greet is exported and tested' }] })}\n`,
);
