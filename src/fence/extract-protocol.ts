/**
 * The JSON protocol of command header extractors (layer 0): one request on stdin, one response on
 * stdout. See docs/fence.md for the full contract (exit codes, timeout, output bound).
 */
import { z } from 'zod';
import { DeclarationHeaderSchema } from './header.js';

/**
 * Schema id of the request a command extractor reads on stdin.
 *
 * @example
 * ```ts
 * JSON.parse(headerExtractRequest('a.py', '')).schema === HEADER_EXTRACT_REQUEST_SCHEMA; // true
 * ```
 */
export const HEADER_EXTRACT_REQUEST_SCHEMA = 'header-extract-request/v1';
/**
 * Schema id of the response a command extractor writes on stdout.
 *
 * @example
 * ```ts
 * process.stdout.write(JSON.stringify({ schema: HEADER_EXTRACT_RESPONSE_SCHEMA, headers: [] }));
 * ```
 */
export const HEADER_EXTRACT_RESPONSE_SCHEMA = 'header-extract-response/v1';

/**
 * The request: the file's path (as the runtime knows it) and its full text.
 *
 * @example
 * ```ts
 * HeaderExtractRequestSchema.parse({ schema: 'header-extract-request/v1', file: '/p/a.py', text: 'def f(): ...' });
 * ```
 */
export const HeaderExtractRequestSchema = z
  .object({
    schema: z.literal(HEADER_EXTRACT_REQUEST_SCHEMA),
    file: z.string(),
    text: z.string(),
  })
  .strict();

/**
 * A request record.
 *
 * @example
 * ```ts
 * const r: HeaderExtractRequest = { schema: 'header-extract-request/v1', file: 'a.py', text: '' };
 * ```
 */
export type HeaderExtractRequest = z.infer<typeof HeaderExtractRequestSchema>;

/**
 * The response: the headers of the file, or an error the extractor reports itself (a file it
 * cannot parse). Exact keys.
 *
 * @example
 * ```ts
 * HeaderExtractResponseSchema.parse({ schema: 'header-extract-response/v1', headers: [] });
 * HeaderExtractResponseSchema.parse({ schema: 'header-extract-response/v1', error: 'syntax error at line 3' });
 * ```
 */
export const HeaderExtractResponseSchema = z.union([
  z
    .object({
      schema: z.literal(HEADER_EXTRACT_RESPONSE_SCHEMA),
      headers: z.array(DeclarationHeaderSchema),
    })
    .strict(),
  z
    .object({
      schema: z.literal(HEADER_EXTRACT_RESPONSE_SCHEMA),
      error: z.string().min(1),
    })
    .strict(),
]);

/**
 * A response record.
 *
 * @example
 * ```ts
 * const r: HeaderExtractResponse = { schema: 'header-extract-response/v1', headers: [] };
 * ```
 */
export type HeaderExtractResponse = z.infer<typeof HeaderExtractResponseSchema>;

/**
 * Builds the request line for one file.
 *
 * @example
 * ```ts
 * headerExtractRequest('a.py', 'def f(x): ...'); // '{"schema":"header-extract-request/v1","file":"a.py","text":"def f(x): ..."}'
 * ```
 */
export function headerExtractRequest(file: string, text: string): string {
  const request: HeaderExtractRequest = { schema: HEADER_EXTRACT_REQUEST_SCHEMA, file, text };
  return JSON.stringify(request);
}
