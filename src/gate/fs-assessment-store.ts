/**
 * The file-system {@link AssessmentStore}: `<dir>/<packet_id>.begun` is created with O_EXCL before
 * the single evaluator request (so a second process or a restart never asks again), and the
 * assessment is published with `link(2)` as `<packet_id>.json` (first writer wins).
 */

import { link, mkdir, open, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomHex } from '../ids/index.js';
import { safeValidate } from '../validation/index.js';
import { type Assessment, AssessmentSchema } from './assessment-schema.js';
import type { AssessmentStore } from './evaluator.js';

const SAFE = /^pkt_[0-9a-f]{32}$/;

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
      try {
        const h = await open(file(dir, packetId, '.begun'), 'wx');
        await h.close();
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw e;
      }
    },
    async put(assessment) {
      await mkdir(dir, { recursive: true });
      const tmp = join(dir, `.${process.pid}-${randomHex(12)}.tmp`);
      await writeFile(tmp, `${JSON.stringify(assessment, null, 2)}\n`);
      try {
        await link(tmp, file(dir, assessment.packet_id, '.json'));
        return assessment;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        return (await get(assessment.packet_id)) ?? assessment;
      } finally {
        await unlink(tmp).catch(() => {});
      }
    },
  };
}
