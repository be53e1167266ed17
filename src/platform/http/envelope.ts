import { z } from 'zod';
import { ERROR_STATUS } from '../core/errors.js';

/** The error envelope `{ ok: false, status, error, code, request_id, details? }`, as the OpenAPI document shows it. */
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
