import { z } from 'zod';
import { limitParam } from '../../platform/http/pagination.js';
import { CLAIM_STATUSES } from './claim-states.js';

const status = z.enum(CLAIM_STATUSES);

const claimHistoryEntrySchema = z.object({
  from: status.nullable(),
  to: status,
  at: z.string(),
  key_id: z.string(),
});

export const claimSchema = z
  .object({
    id: z.string(),
    claim_number: z.string(),
    status,
    description: z.string(),
    sku: z.string().nullable(),
    dot_number: z.string().nullable(),
    quantity: z.number().int().nullable(),
    customer_ref: z.string().nullable(),
    resolution: z.string().nullable(),
    history: z.array(claimHistoryEntrySchema),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'WarrantyClaim' });

export type Claim = z.infer<typeof claimSchema>;

export const createClaimInput = z.strictObject({
  description: z.string().trim().min(1, 'description must not be empty').max(4000),
  sku: z.string().trim().min(1).max(64).nullable().optional(),
  // The shape is checked by the service against the clock: a date code cannot lie in the future.
  dot_number: z.string().max(40).nullable().optional(),
  quantity: z.number().int().positive().max(1_000_000).nullable().optional(),
  customer_ref: z.string().trim().min(1).max(128).nullable().optional(),
});
export type CreateClaimInput = z.infer<typeof createClaimInput>;

export const updateClaimInput = z
  .strictObject({
    status: status.optional(),
    resolution: z.string().max(4000).nullable().optional(),
  })
  .refine((v) => v.status !== undefined || v.resolution !== undefined, { message: 'send at least one of status, resolution' });
export type UpdateClaimInput = z.infer<typeof updateClaimInput>;

export const listClaimsQuery = z.strictObject({
  status: status.optional(),
  limit: limitParam(200, 50),
  cursor: z.string().max(500).optional(),
});
export type ListClaimsQuery = z.infer<typeof listClaimsQuery>;

export const claimRefParams = z.strictObject({ idOrNumber: z.string().min(1).max(100) });
