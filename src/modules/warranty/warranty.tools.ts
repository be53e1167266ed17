import { z } from 'zod';
import { CREATES, defineTool, READ_ONLY, type ToolDefinition, UPDATES } from '../../mcp/tool.js';
import { claimSchema, createClaimInput, listClaimsQuery, updateClaimInput } from './warranty.schemas.js';
import type { WarrantyService } from './warranty.service.js';

const claimOut = z.object({ claim: claimSchema });
const claimRef = z.string().min(1).max(100).describe('claim id (wc_…) or claim number (WC-000042)');

/** MCP door onto WarrantyService: the same functions the REST routes call. */
export function warrantyTools(warranty: WarrantyService): ToolDefinition[] {
  return [
    defineTool({
      name: 'warranty_claims_list',
      title: 'List warranty claims',
      description:
        'List your organisation\'s warranty claims, newest first, each with its status history. ' +
        'Filter by `status` (submitted, under_review, approved, denied, closed); pass `next_cursor` back as `cursor` for the next page.',
      scope: 'warranty:read',
      rest: 'GET /v1/warranty-claims',
      input: listClaimsQuery,
      output: z.object({ claims: z.array(claimSchema), next_cursor: z.string().nullable() }),
      annotations: READ_ONLY,
      handler: (auth, input) => warranty.list(auth, input),
    }),
    defineTool({
      name: 'warranty_claims_get',
      title: 'Get a warranty claim',
      description: 'Get one warranty claim by id or claim number (WC-000042), with its status history (from, to, at, key id).',
      scope: 'warranty:read',
      rest: 'GET /v1/warranty-claims/:idOrNumber',
      input: z.object({ id_or_number: claimRef }),
      output: claimOut,
      annotations: READ_ONLY,
      handler: async (auth, input) => ({ claim: await warranty.get(auth, input.id_or_number) }),
    }),
    defineTool({
      name: 'warranty_claims_create',
      title: 'File a warranty claim',
      description:
        'File a warranty claim. `description` is required; `sku` must be in your catalog; `dot_number` is the tire DOT code ' +
        '(e.g. "DOT U2LL LMLR 5107", ending in the 4-digit week+year date code); `quantity` is a positive whole number. ' +
        'The claim starts as submitted and gets the next claim number (WC-000001).',
      scope: 'warranty:write',
      rest: 'POST /v1/warranty-claims',
      input: createClaimInput,
      output: claimOut,
      annotations: CREATES,
      handler: async (auth, input) => ({ claim: await warranty.create(auth, input) }),
    }),
    defineTool({
      name: 'warranty_claims_update',
      title: 'Update a warranty claim',
      description:
        'Change a claim\'s status and/or resolution. Allowed moves: submitted -> under_review, approved, denied, closed; ' +
        'under_review -> approved, denied, closed; approved -> closed; denied -> under_review (appeal), closed; closed is final ' +
        'and its resolution can no longer change. A forbidden move fails with the allowed next states.',
      scope: 'warranty:write',
      rest: 'PATCH /v1/warranty-claims/:idOrNumber',
      input: z.object({ id_or_number: claimRef, changes: updateClaimInput }),
      output: claimOut,
      // Not idempotent: repeating a status move is a forbidden transition the second time.
      annotations: { ...UPDATES, idempotentHint: false },
      handler: async (auth, input) => ({ claim: await warranty.update(auth, input.id_or_number, input.changes) }),
    }),
  ];
}
