#!/usr/bin/env node
// Example gate worker: reads one gate-worker-request/v1 on stdin, edits the repository, and prints
// its result as the last JSON line. The initial attempt forgets `farewell`; a repair adds it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const request = JSON.parse(Buffer.concat(chunks).toString('utf8'));
mkdirSync('src', { recursive: true });
const kind = request.attempt.kind;
process.stdout.write(`worker: attempt ${kind}\n`);
if (process.env.GATE_EXAMPLE_WORKER === 'blocked') {
  const report = {
    schema: 'gate-blocked/v1',
    failure: 'cannot reach the payment sandbox',
    evidence: ['src/greet.js'],
    hypothesis: { text: 'the sandbox needs network access', verified: false },
    proposed_next_step: 'stub the payment client in `greet`',
    intended_validation: 'unit test of greet',
    operations: [],
  };
  writeFileSync('src/greet.js', "export function greet(name) { return 'hello ' + name; }\n");
  process.stdout.write(`${JSON.stringify({ status: 'blocked', blocked: report })}\n`);
  process.exit(0);
}
let text = "export function greet(name) { return 'hello ' + name; }\n";
if (kind !== 'initial')
  text = readFileSync('src/greet.js', 'utf8') + "export function farewell(name) { return 'bye ' + name; }\n";
writeFileSync('src/greet.js', text);
process.stdout.write(
  `${JSON.stringify({ status: 'provisional', claims: [{ criterion_id: 'greet', text: 'greet is exported and tested' }] })}\n`,
);
