/**
 * file-baseline/v1: the custody record of a set of files (path, realpath, existence, exact-byte
 * sha256 and size). Structure only; recording and checking live beside it in this folder.
 */
import { z } from 'zod';

/** Schema id of a file baseline record. */
export const FILE_BASELINE_SCHEMA = 'file-baseline/v1';

const absolutePath = z
  .string()
  .min(1)
  .refine((p) => p.startsWith('/'), {
    message: 'must be an absolute path',
    params: { code: 'not_absolute' },
  });

/** One file entry of a baseline. Existing ⇒ sha256 and size set; absent ⇒ both null. */
export const BaselineEntrySchema = z
  .strictObject({
    path: absolutePath,
    realpath: absolutePath,
    exists: z.boolean(),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex characters')
      .nullable(),
    size: z.number().int().min(0).nullable(),
  })
  .superRefine((e, ctx) => {
    if (e.exists && (e.sha256 === null || e.size === null)) {
      ctx.addIssue({
        code: 'custom',
        message: 'an existing file needs sha256 and size',
        params: { code: 'missing_hash' },
      });
    }
    if (!e.exists && (e.sha256 !== null || e.size !== null)) {
      ctx.addIssue({
        code: 'custom',
        message: 'an absent file has null sha256 and size',
        params: { code: 'absent_with_hash' },
      });
    }
  });

/** The file-baseline/v1 record: non-empty, no duplicate path, no duplicate realpath. */
export const FileBaselineSchema = z
  .strictObject({
    schema: z.literal(FILE_BASELINE_SCHEMA),
    files: z.array(BaselineEntrySchema).min(1, 'a baseline covers at least one file'),
  })
  .superRefine((b, ctx) => {
    const paths = new Set<string>();
    const reals = new Set<string>();
    b.files.forEach((f, i) => {
      if (paths.has(f.path)) {
        ctx.addIssue({
          code: 'custom',
          path: ['files', i, 'path'],
          message: `duplicate path ${f.path}`,
          params: { code: 'duplicate_path' },
        });
      }
      if (reals.has(f.realpath)) {
        ctx.addIssue({
          code: 'custom',
          path: ['files', i, 'realpath'],
          message: `duplicate realpath ${f.realpath}`,
          params: { code: 'duplicate_realpath' },
        });
      }
      paths.add(f.path);
      reals.add(f.realpath);
    });
  });

/** A file-baseline/v1 entry. */
export type BaselineEntry = z.infer<typeof BaselineEntrySchema>;
/** A file-baseline/v1 record. */
export type FileBaseline = z.infer<typeof FileBaselineSchema>;

/**
 * Paths of `owned` not covered by the baseline's entries (exact path match).
 *
 * @example
 * ```ts
 * uncoveredPaths(baseline, ['/repo/A.lean']); // [] when covered
 * ```
 */
export function uncoveredPaths(baseline: FileBaseline, owned: readonly string[]): string[] {
  const have = new Set(baseline.files.map((f) => f.path));
  return owned.filter((p) => !have.has(p));
}
