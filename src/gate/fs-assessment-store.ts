/**
 * The file-system {@link AssessmentStore}: `<dir>/<packet_id>.begun` is created with O_EXCL before
 * the single evaluator request (so a second process or a restart never asks again), and the
 * assessment is published with `link(2)` as `<packet_id>.json` (first writer wins). Both
 * mechanisms are src/durable's (`createExclusiveFile`, `publishNewFile`).
 */

import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { causeOf, createExclusiveFile, nodeFsLayer, publishNewFile } from '../durable/index.js';
import { randomHex } from '../ids/index.js';
import { safeValidate } from '../validation/index.js';
import { type Assessment, AssessmentSchema } from './assessment-schema.js';
import type { AssessmentStore } from './evaluator.js';

const SAFE = /^pkt_[0-9a-f]{32}$/;
const fsl = nodeFsLayer();
const EMPTY = new Uint8Array(0);

function file(dir: string, packetId: string, ext: string): string {
  if (!SAFE.test(packetId)) throw new TypeError(`not a packet id: ${packetId}`);
  return join(dir, `${packetId}${ext}`);
}

/**
 * Creates the fs assessment store under `dir`.
 *
 * @example
 * ```ts
 * const store = fsAssessmentStore('/repo/.handoff/gate/assessments');
 * ```
 */
export function fsAssessmentStore(dir: string): AssessmentStore {
  const get = async (packetId: string): Promise<Assessment | null> => {
    try {
      const v = safeValidate(
        AssessmentSchema,
        JSON.parse(await readFile(file(dir, packetId, '.json'), 'utf8')),
      );
      return v.ok ? v.value : null;
    } catch {
      return null;
    }
  };
  return {
    get,
    async begin(packetId) {
      await mkdir(dir, { recursive: true });
      const r = createExclusiveFile(fsl, file(dir, packetId, '.begun'), EMPTY, { mode: 0o666 });
      if (r.ok) return true;
      if (r.reason === 'exists') return false;
      throw r.cause;
    },
    async put(assessment) {
      await mkdir(dir, { recursive: true });
      const target = file(dir, assessment.packet_id, '.json');
      let won: boolean;
      try {
        won = publishNewFile(fsl, target, Buffer.from(`${JSON.stringify(assessment, null, 2)}\n`), {
          tmpPath: join(dir, `.${process.pid}-${randomHex(12)}.tmp`),
          mode: 0o666,
          sync: 'none',
        });
      } catch (e) {
        throw causeOf(e);
      }
      return won ? assessment : ((await get(assessment.packet_id)) ?? assessment);
    },
  };
}
