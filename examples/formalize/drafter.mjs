#!/usr/bin/env node
// The example drafter of `handoff demo formalize` (docs/drafter-protocol.md; plain Node ESM, no
// dependencies). It reads one draft-request/v1 on stdin and writes a declaration-only Lean block
// to the request's temp_path, then prints one draft-response/v1 line; it never touches the target.
//
// Its "model" is the claim text itself: the first backticked span is the statement, `by `T``
// a proof hint (written as `sorry -- hint: T`, which the example solver worker turns into T), and
// `restated `S`` the statement to use on a redraft. A first draft of a claim that has a
// restatement carries no hint (the worker gets stuck on it); the redraft states S with the hint.
// A claim without a backticked statement is declined.
import { readFileSync, writeFileSync } from 'node:fs';

const request = JSON.parse(readFileSync(0, 'utf8'));
const claim = request.claim;
const text = String(claim.text ?? '');

function respond(record) {
  process.stdout.write(`${JSON.stringify({ schema: 'draft-response/v1', ...record })}\n`);
}

const spans = [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
const restated = /restated\s+`([^`]+)`/.exec(text)?.[1] ?? null;
const hint = /\bby\s+`([^`]+)`/.exec(text)?.[1] ?? null;
const statement = spans.find((s) => s !== restated && s !== hint) ?? null;
if (statement === null) {
  respond({ status: 'declined', declarations: [], detail: 'no formal statement in the claim text' });
  process.exit(0);
}
const redraft = request.mode === 'redraft';
const name = claim.name ?? `claim_${String(claim.id).replace(/[^A-Za-z0-9_]/g, '_')}`;
const stated = redraft && restated !== null ? restated : statement;
const withHint = hint !== null && (restated === null || redraft);
const doc = text.replace(/-\//g, '- /').replace(/\s+/g, ' ').trim();
const keyword = claim.kind === 'lemma' ? 'lemma' : 'theorem';
const block = [
  `/-- ${doc} -/`,
  `${keyword} ${name} : ${stated} := by`,
  withHint ? `  sorry -- hint: ${hint}` : '  sorry',
  '',
].join('\n');
writeFileSync(request.temp_path, block, { flag: 'wx' });
respond({ status: 'drafted', declarations: [name], detail: null });
