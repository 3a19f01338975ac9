#!/usr/bin/env node
// Example gate evaluator: reads one gate-evaluator-request/v1 on stdin, answers {"claims": [...]}.
// Deterministic heuristic: a question's `backticked` tokens must all occur in the packet's resolved
// artifact contents for CONFIRMED; otherwise INSUFFICIENT with a request for the missing source.
// It never sees the criteria's interpretation: the controller reads its labels.
// Environment (for demos and tests): GATE_EVALUATOR_REQUIRE_KEY=1 without GATE_EVALUATOR_KEY
// answers a no-key error; GATE_EXAMPLE_MODE=invalid|sleep|crash misbehaves on purpose.
const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const request = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const mode = process.env.GATE_EXAMPLE_MODE ?? '';
if (process.env.GATE_EVALUATOR_REQUIRE_KEY === '1' && !process.env.GATE_EVALUATOR_KEY) {
  process.stdout.write(
    `${JSON.stringify({ error: { kind: 'no-key', detail: 'GATE_EVALUATOR_KEY is not set' } })}\n`,
  );
  process.exit(3);
}
if (mode === 'sleep') await new Promise((r) => setTimeout(r, 60_000));
if (mode === 'crash') process.exit(9);
if (mode === 'invalid') {
  process.stdout.write('{"claims": "not a list"}\n');
  process.exit(0);
}
const corpus = request.packet.artifacts.map((a) => a.content ?? '').join('\n');
const claims = request.questions.map((q) => {
  const tokens = [...q.question.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  const present = tokens.length > 0 && tokens.every((t) => corpus.includes(t));
  return present
    ? {
        criterion_id: q.criterion_id,
        raw_label: 'CONFIRMED',
        distribution: { CONFIRMED: 0.92, REFUTED: 0.03, INSUFFICIENT: 0.05 },
      }
    : {
        criterion_id: q.criterion_id,
        raw_label: 'INSUFFICIENT',
        distribution: { CONFIRMED: 0.1, REFUTED: 0.1, INSUFFICIENT: 0.8 },
        requested_evidence: [{ kind: 'artifact', detail: `source containing ${tokens.join(', ')}` }],
      };
});
process.stdout.write(`${JSON.stringify({ claims })}\n`);
