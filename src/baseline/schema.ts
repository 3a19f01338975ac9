/**
 * file-baseline/v1: the custody record of a set of files (path, realpath, existence, exact-byte
 * sha256 and size). Structure only; recording and checking live beside it in this folder.
 */
import { isAbsolute } from 'node:path';
import type { z } from 'zod';
import { lazySchema } from '../validation/lazy-schema.js';
import { zod } from '../validation/zod-sync.js';

/** Schema id of a file baseline record. */
export const FILE_BASELINE_SCHEMA = 'file-baseline/v1';

/**
 * The serialized absolute-path grammar of a stored record, judged without resolving anything and
 * independent of the host: a POSIX path (`/…`), a Windows drive path (`C:\\…` or `C:/…`) or a UNC
 * path (`\\\\server\\share…`). The reference validator accepts exactly these, so a record written
 * on one host validates on every other. Whether a path can be *checked or written* here is a
 * separate, host-local question: {@link localPathIssues}.
 */
export const SERIALIZED_ABSOLUTE_PATH = /^(\/|[A-Za-z]:[\\/]|\\\\)/;

/**
 * True when `p` is absolute in the serialized grammar ({@link SERIALIZED_ABSOLUTE_PATH}).
 *
 * @example
 * ```ts
 * isSerializedAbsolute('C:\\proj\\A.lean'); // true
 * isSerializedAbsolute('proj/A.lean'); // false
 * ```
 */
export function isSerializedAbsolute(p: string): boolean {
  return SERIALIZED_ABSOLUTE_PATH.test(p);
}

const absolutePath = () =>
  zod()
    .string()
    .min(1)
    .refine(isSerializedAbsolute, {
      message: 'must be an absolute path (POSIX /…, Windows C:\\… or UNC \\\\server\\…)',
      params: { code: 'not_absolute' },
    });

/**
 * One file entry of a baseline. Existing ⇒ sha256 and size set; absent ⇒ both null, or both keys
 * left out (as the reference accepts; our writers always write the nulls). Unknown keys are
 * accepted and kept (the reference checks only the keys it knows).
 */
const sha256Type = (z: typeof import('zod').z) => z.string().nullable();
const sizeType = (z: typeof import('zod').z) => z.number().nullable();

export const BaselineEntrySchema = lazySchema((z) =>
  z
    .looseObject({
      path: absolutePath(),
      realpath: absolutePath(),
      exists: z.boolean(),
      // may be left out of an absent entry: the reference reads such an entry (issue 34); our
      // writers always write the nulls, and `requireBaseline` reads a missing key as null. The
      // static type stays `… | null` (a validated existing entry always has both).
      sha256: z
        .string()
        .regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex characters')
        .nullable()
        .optional() as unknown as ReturnType<typeof sha256Type>,
      size: z.number().int().min(0).nullable().optional() as unknown as ReturnType<typeof sizeType>,
    })
    .superRefine((e, ctx) => {
      if (e.exists && (e.sha256 == null || e.size == null)) {
        ctx.addIssue({
          code: 'custom',
          message: 'an existing file needs sha256 and size',
          params: { code: 'missing_hash' },
        });
      }
      if (!e.exists && (e.sha256 != null || e.size != null)) {
        ctx.addIssue({
          code: 'custom',
          message: 'an absent file has null sha256 and size',
          params: { code: 'absent_with_hash' },
        });
      }
    }),
);

/**
 * The file-baseline/v1 record: non-empty, no duplicate path, no duplicate realpath. Unknown keys
 * are accepted and kept, at the root and in entries.
 */
export const FileBaselineSchema = lazySchema((z) =>
  z
    .looseObject({
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
    }),
);

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

/**
 * The entries of a valid record that this host cannot check or write: a path or realpath that is
 * not absolute here (on POSIX, a Windows drive or UNC path). Such a record is valid as data, but
 * the custody primitive refuses it rather than resolving `C:\\x` against the working directory.
 *
 * @example
 * ```ts
 * localPathIssues({ schema: 'file-baseline/v1', files: [{ path: 'C:\\p\\A.lean', … }] });
 * // [{ path: 'files.0.path', code: 'not_local_path', message: … }] on POSIX
 * ```
 */
export function localPathIssues(
  baseline: FileBaseline,
): { readonly path: string; readonly code: 'not_local_path'; readonly message: string }[] {
  const issues: { path: string; code: 'not_local_path'; message: string }[] = [];
  baseline.files.forEach((f, i) => {
    for (const key of ['path', 'realpath'] as const) {
      if (!isAbsolute(f[key])) {
        issues.push({
          path: `files.${i}.${key}`,
          code: 'not_local_path',
          message: `${key} ${JSON.stringify(f[key])} is not an absolute path on this host; a Windows or UNC path is valid in a record but is never checked or written here`,
        });
      }
    }
  });
  return issues;
}
