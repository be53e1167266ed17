import { z } from 'zod';
import { ERROR_STATUS } from '../core/errors.js';

/** Success envelope schema: `{ ok: true, ...payload }`. */
export function okEnvelope<T extends z.ZodRawShape>(payload: T) {
  return z.object({ ok: z.literal(true), ...payload });
}

export const errorEnvelope = z
  .object({
    ok: z.literal(false),
    status: z.number().int(),
    error: z.string(),
    code: z.enum(Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS, ...(keyof typeof ERROR_STATUS)[]]),
    request_id: z.string(),
    details: z.unknown().optional(),
  })
  .meta({ id: 'Error' });

/** The error responses every authenticated route can give, for the OpenAPI document. */
export const authErrorResponses = {
  400: errorEnvelope,
  401: errorEnvelope,
  403: errorEnvelope,
  429: errorEnvelope,
} as const;
