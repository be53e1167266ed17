import type { z } from 'zod';

/**
 * A PATCH body: its fields are all optional, and at least one must be sent (`minProperties: 1` in the schema, a 400
 * naming the fields at run time).
 */
export function patchBody<T extends z.ZodObject>(fields: T) {
  const names = Object.keys(fields.shape).join(', ');
  return fields
    .refine((body) => Object.values(body).some((value) => value !== undefined), { message: `send at least one of ${names}` })
    .meta({ minProperties: 1 });
}
