#!/usr/bin/env node
// The example reviewer of `handoff demo formalize` (the `--reviewer CMD` protocol of handoff run:
// one review request on stdin, one JSON review on stdout). A stuck review sends the statement back
// to the outer loop (`next_action: redraft`): the example worker's only blocker is a statement it
// cannot prove as drafted. Reviews at a checkpoint say `continue`.
import { readFileSync } from 'node:fs';

const input = JSON.parse(readFileSync(0, 'utf8'));
const stuck = input.mode === 'stuck';
const last = input.lastHandoff ?? null;
process.stdout.write(
  `${JSON.stringify({
    primary_blocker: stuck ? 'statement as drafted is not provable by the worker' : null,
    top_blockers: stuck ? [input.stuck?.signature ?? last?.blocker_signature ?? 'unknown'] : [],
    evidence: stuck ? [...(last?.failed_avenues ?? [])] : [],
    falsification: false,
    next_action: stuck ? 'redraft' : 'continue',
    suggestions: stuck ? ['redraft the statement'] : ['continue with the plan'],
  })}\n`,
);
