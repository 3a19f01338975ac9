/** The verification ladder as the host climbs it (`diagnoseOnLadder` in src/runtime/run-cycle.ts). */
import { describe, expect, it } from 'vitest';
import type { DiagnosticsInput } from '../../src/cycle/types.js';
import type { DiagnosticsPort } from '../../src/runtime/ports.js';
import { diagnoseOnLadder } from '../../src/runtime/run-cycle.js';

describe('verification ladder (host)', () => {
  it('climbs while answers are inconclusive, never past the ceiling', async () => {
    const asked: string[] = [];
    const port = (inconclusiveUpTo: number): DiagnosticsPort => ({
      async diagnose(i: DiagnosticsInput) {
        asked.push(i.tier);
        return {
          tier: i.tier,
          targets: [],
          errors: [],
          ok: true,
          inconclusive: asked.length <= inconclusiveUpTo,
        };
      },
    });
    const q: DiagnosticsInput = { question: 'edit', tier: 'file-fast', maxTier: 'module', files: ['A.lean'] };
    expect((await diagnoseOnLadder(port(0), q)).tiersTried).toEqual(['file-fast']);
    asked.length = 0;
    const out = await diagnoseOnLadder(port(1), q);
    expect(out).toMatchObject({ tier: 'file-deps', tiersTried: ['file-fast', 'file-deps'] });
    asked.length = 0;
    expect((await diagnoseOnLadder(port(9), q)).tiersTried).toEqual(['file-fast', 'file-deps', 'module']);
    asked.length = 0;
    const uncapped: DiagnosticsInput = { question: 'edit', tier: 'file-fast', files: ['A.lean'] };
    expect((await diagnoseOnLadder(port(9), uncapped)).tiersTried).toEqual(['file-fast']);
  });
});
