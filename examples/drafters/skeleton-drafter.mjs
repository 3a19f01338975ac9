#!/usr/bin/env node
// An example drafter (docs/drafter-protocol.md), plain Node ESM, no dependencies: reads one
// draft-request/v1 on stdin, writes a declaration-only Lean block to the request's temp_path — a
// `-- needs-import:` header and a `theorem <name> … := by sorry` skeleton — and prints one
// draft-response/v1 line. It never touches the target file. A real drafter asks a model for the
// statement; this one states the claim as a proposition to be filled in (`True` when it cannot).
import { readFileSync, writeFileSync } from 'node:fs';

const request = JSON.parse(readFileSync(0, 'utf8'));
const claim = request.claim;

/** A Lean identifier from free text: lower snake case, letters and digits only. */
function identifier(text) {
  const words = text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter((w) => w !== '')
    .slice(0, 6);
  const id = words.join('_');
  return /^[a-z]/.test(id) ? id : `claim_${id || 'unnamed'}`;
}

function respond(record) {
  process.stdout.write(`${JSON.stringify({ schema: 'draft-response/v1', ...record })}\n`);
}

const text = String(claim.text ?? '').trim();
if (text === '') {
  respond({ status: 'declined', declarations: [], detail: 'the claim has no text' });
  process.exit(0);
}

// the loop names the declaration (on a redraft: the same name to replace, or the adjacent one)
const name = claim.name ?? identifier(claim.title ?? text);
// the claim's text as a doc comment (a `-/` inside it would end the comment early)
const doc = text.replace(/-\//g, '- /').replace(/\s+/g, ' ');
const keyword = claim.kind === 'lemma' ? 'lemma' : 'theorem';
const block = [
  '-- needs-import: Mathlib.Tactic',
  '',
  `/-- ${doc} -/`,
  `${keyword} ${name} : True := by`,
  '  sorry',
  '',
].join('\n');
writeFileSync(request.temp_path, block, { flag: 'wx' });
respond({ status: 'drafted', declarations: [name], detail: null });
