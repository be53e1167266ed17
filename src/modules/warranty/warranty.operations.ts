import { z } from 'zod';
import { defineRead, defineWrite, type Operation } from '../../platform/operations/operation.js';
import type { WarrantyService } from './warranty.service.js';
import { claimRefParams, claimSchema, createClaimInput, listClaimsQuery, updateClaimInput } from './warranty.schemas.js';

const claimOut = z.object({ claim: claimSchema });

const LIFECYCLE =
  'submitted -> under_review, approved, denied, closed; under_review -> approved, denied, closed; approved -> closed; ' +
  'denied -> under_review (appeal), closed; closed is final and its resolution can no longer change.';

const exampleClaim = {
  id: 'wc_01jx2m8d7k3q9v6t5r4p2n1b0a',
  claim_number: 'WC-000042',
  status: 'submitted',
  description: 'Sidewall bulge after 2,000 km',
  sku: 'MICH-225-45R17',
  dot_number: 'DOT U2LLLMLR 5107',
  quantity: 1,
  customer_ref: 'RMA-88',
  dealer: null,
  contact_email: null,
  resolution: null,
  history: [{ from: null, to: 'submitted', at: '2026-06-01T12:00:00.000Z', key_id: 'key_01jx2m7z4c8w5y3e1t6v9h0n2p' }],
  created_at: '2026-06-01T12:00:00.000Z',
  updated_at: '2026-06-01T12:00:00.000Z',
};

const exampleReviewed = {
  ...exampleClaim,
  status: 'under_review',
  resolution: 'Inspecting at the DC',
  history: [
    ...exampleClaim.history,
    { from: 'submitted', to: 'under_review', at: '2026-06-02T09:30:00.000Z', key_id: 'key_01jx2m7z4c8w5y3e1t6v9h0n2p' },
  ],
  updated_at: '2026-06-02T09:30:00.000Z',
};

/** The warranty claim operations: each one REST route, one MCP tool and one OpenAPI operation. */
export function warrantyOperations(warranty: WarrantyService): Operation[] {
  return [
    defineRead({
      name: 'warranty_claims_list',
      method: 'GET',
      path: '/v1/warranty-claims',
      scope: 'warranty:read',
      summary: 'List warranty claims',
      description:
        "List your organisation's warranty claims, newest first (by claim number), each with its status history. " +
        'Filter by `status` (submitted, under_review, approved, denied, closed). To sync, pass `updated_since` (every claim ' +
        'changed at or after it) or `created_since` (every claim filed since): the list is then oldest first by that time. ' +
        'Pass `next_cursor` back as `cursor` for the next page.',
      query: listClaimsQuery,
      output: z.object({ claims: z.array(claimSchema), next_cursor: z.string().nullable().describe('cursor of the next page; null on the last') }),
      status: 200,
      returns: 'one page of claims, newest first.',
      errors: {},
      example: { query: { status: 'submitted', limit: '20' }, response: { claims: [exampleClaim], next_cursor: null } },
      handle: ({ db, orgId }, { query }) => warranty.list(db, orgId, query),
    }),
    defineRead({
      name: 'warranty_claims_get',
      method: 'GET',
      path: '/v1/warranty-claims/:id_or_number',
      scope: 'warranty:read',
      summary: 'Get a warranty claim',
      description: 'Get one warranty claim by id (`wc_…`) or claim number (`WC-000042`, any case), with its status history (from, to, at, key id).',
      params: claimRefParams,
      output: claimOut,
      result: 'claim',
      status: 200,
      returns: 'the claim.',
      errors: { not_found: 'No claim with this id or number in your organisation.' },
      example: { params: { id_or_number: 'WC-000042' }, response: { claim: exampleClaim } },
      handle: ({ db, orgId }, { params }) => warranty.get(db, orgId, params.id_or_number),
    }),
    defineWrite({
      name: 'warranty_claims_create',
      method: 'POST',
      path: '/v1/warranty-claims',
      scope: 'warranty:write',
      summary: 'File a warranty claim',
      description:
        'File a warranty claim. `description` is required; `sku` must be in your catalog; `dot_number` is the tire DOT code ' +
        '(e.g. "DOT U2LL LMLR 5107", ending in the 4-digit week+year date code); `quantity` is a positive whole number. ' +
        'The claim starts as submitted, gets the next claim number of your organisation (WC-000001, gap-free) and is ' +
        'sent to the hub as a `warranty_claim.created` event. Not idempotent: send an idempotency key to retry safely.',
      body: createClaimInput,
      output: claimOut,
      result: 'claim',
      status: 201,
      returns: 'the new claim.',
      errors: {
        invalid_input: 'The DOT code is malformed or dated in the future (`details` names the field).',
        unknown_sku: 'The SKU is not in your catalog (`param`: `sku`).',
      },
      // Each call files another claim with the next number; the claim goes to the hub through the outbox.
      hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
      example: {
        body: { description: 'Sidewall bulge after 2,000 km', sku: 'MICH-225-45R17', dot_number: 'DOT U2LL LMLR 5107', quantity: 1, customer_ref: 'RMA-88' },
        response: { claim: exampleClaim },
      },
      handle: ({ tx, orgId, auth }, { body }) => warranty.create(tx, orgId, auth, body),
    }),
    defineWrite({
      name: 'warranty_claims_update',
      method: 'PATCH',
      path: '/v1/warranty-claims/:id_or_number',
      scope: 'warranty:write',
      summary: 'Update a warranty claim',
      description:
        "Move a claim to another status and/or set its resolution (null clears it); send at least one of `status`, `resolution`. " +
        `Allowed moves: ${LIFECYCLE} A forbidden move fails with conflict (409) and the allowed next states in the error ` +
        'details: `{ status, requested, allowed }`. A status change adds a history entry; every change is sent to the hub as a ' +
        '`warranty_claim.updated` event.',
      params: claimRefParams,
      body: updateClaimInput,
      output: claimOut,
      result: 'claim',
      status: 200,
      returns: 'the claim as updated, with its history.',
      errors: {
        not_found: 'No claim with this id or number in your organisation.',
        invalid_transition:
          'A forbidden move (`details`: `{ requested, status, allowed }`, the status asked, the current one and its allowed next states), or a ' +
          'resolution change on a closed claim (`details`: `{ status, allowed }`).',
        concurrent_change: 'Another request changed the claim first: read it and retry.',
      },
      // Can close a claim and overwrite its resolution; repeating a move is forbidden the second time.
      hints: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
      example: {
        params: { id_or_number: 'WC-000042' },
        body: { status: 'under_review', resolution: 'Inspecting at the DC' },
        response: { claim: exampleReviewed },
      },
      handle: ({ tx, orgId, auth }, { params, body }) => warranty.update(tx, orgId, auth, params.id_or_number, body),
    }),
  ];
}
