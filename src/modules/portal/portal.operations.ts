import { z } from 'zod';
import { defineRead, defineWrite, type Operation } from '../../platform/operations/operation.js';
import { DOOR_SCOPE } from '../../platform/auth/scopes.js';
import { listProductsQuery, skuParams } from '../products/products.schemas.js';
import type { PortalService } from './portal.service.js';
import {
  availabilityOutput,
  availabilityQuery,
  claimLookupQuery,
  claimNumberParams,
  customerClaimBody,
  customerClaimOutput,
  portalProductSchema,
  portalProductsOutput,
} from './portal.schemas.js';

/** The claim form's body cap: a 4000-character description of 4-byte characters, and the other fields. */
const CLAIM_MAX_BODY_BYTES = 32 * 1024;

const NO_MCP = "a dealer site's browser call made with a portal key; agents use the API key operations";

const exampleProduct = {
  sku: 'MICH-225-45R17',
  name: 'Michelin Pilot Sport 5 225/45R17',
  description: 'Max performance summer tire',
  tire_size: '225/45R17',
  availability: 'in_stock',
};

/** The dealer portal's operations: what a dealer site's widgets call with the site's portal key. */
export function portalOperations(portal: PortalService): Operation[] {
  return [
    defineRead({
      name: 'portal_products_list',
      method: 'GET',
      path: '/api/portal/v1/products',
      scope: DOOR_SCOPE.portal,
      audience: 'portal',
      summary: 'List the catalog for a dealer site',
      description:
        "The portal key's organisation's active products, ordered by SKU, each with its availability (in_stock, low_stock, " +
        'backorder) and never its quantity, bin or price. `q` is a tire size in any usual spelling (`225 45 17`, `P225/45R17`, ' +
        '`LT245/75R16`), with a load index and speed rating (`94W`) and other words (`michelin 225/45R17`) narrowing it, or text ' +
        'searched in SKU and name; pass `next_cursor` back as `cursor`.',
      query: listProductsQuery,
      output: portalProductsOutput,
      status: 200,
      returns: 'one page of the active catalog.',
      errors: {},
      absent: { mcp: NO_MCP },
      example: { query: { q: 'pilot', limit: '20' }, response: { products: [exampleProduct], next_cursor: null } },
      handle: ({ db, orgId }, { query }) => portal.catalog(db, orgId, query),
    }),
    defineRead({
      name: 'portal_products_get',
      method: 'GET',
      path: '/api/portal/v1/products/:sku',
      scope: DOOR_SCOPE.portal,
      audience: 'portal',
      summary: 'Get a catalog product for a dealer site',
      description: 'One active product by SKU (case-insensitive) with its availability; an inactive or discontinued one is not found.',
      params: skuParams,
      output: z.object({ product: portalProductSchema }),
      result: 'product',
      status: 200,
      returns: 'the product.',
      errors: { not_found: 'No active product with this SKU in the catalog.' },
      absent: { mcp: NO_MCP },
      example: { params: { sku: 'MICH-225-45R17' }, response: { product: exampleProduct } },
      handle: ({ db, orgId }, { params }) => portal.product(db, orgId, params.sku),
    }),
    defineRead({
      name: 'portal_availability_check',
      method: 'GET',
      path: '/api/portal/v1/availability',
      scope: DOOR_SCOPE.portal,
      audience: 'portal',
      summary: 'Check availability of SKUs',
      description:
        'Availability of up to 100 SKUs at once (`skus=a,b,c`, case-insensitive, each once): the ones in the active catalog with ' +
        'their availability, in the order asked, and the others under `unknown` as sent.',
      query: availabilityQuery,
      output: availabilityOutput,
      status: 200,
      returns: 'the availability of the known SKUs and the unknown ones apart.',
      errors: {},
      absent: { mcp: NO_MCP },
      example: {
        query: { skus: 'MICH-225-45R17,NO-SUCH-SKU' },
        response: { products: [{ sku: 'MICH-225-45R17', availability: 'low_stock' }], unknown: ['NO-SUCH-SKU'] },
      },
      handle: ({ db, orgId }, { query }) => portal.availability(db, orgId, query.skus),
    }),
    defineWrite({
      name: 'portal_warranty_claims_create',
      method: 'POST',
      path: '/api/portal/v1/warranty-claims',
      scope: DOOR_SCOPE.portal,
      audience: 'portal',
      summary: 'File a warranty claim from a dealer site',
      description:
        "A customer files a warranty claim on the dealer's site: the same rules as the API's claims, with `customer_ref` and " +
        '`contact_email` required. The claim is recorded with the dealer and sent to the hub as warranty_claim.created; ' +
        'the answer is only its number and status.',
      body: customerClaimBody,
      maxBodyBytes: CLAIM_MAX_BODY_BYTES,
      output: customerClaimOutput,
      status: 201,
      returns: 'the claim number and status.',
      errors: { invalid_input: 'A DOT code that is not one.', unknown_sku: 'An SKU outside the catalog (`param`: `sku`).' },
      hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
      absent: { mcp: NO_MCP },
      example: {
        body: {
          description: 'Sidewall bulge after 2,000 km',
          sku: 'MICH-225-45R17',
          dot_number: 'DOT U2LL LMLR 5107',
          quantity: 1,
          customer_ref: 'INV-20417',
          contact_email: 'driver@example.com',
        },
        response: { claim_number: 'WC-000042', status: 'submitted' },
      },
      handle: ({ tx, orgId, auth }, { body }) => portal.fileClaim(tx, orgId, auth, body),
    }),
    defineRead({
      name: 'portal_warranty_claims_status',
      method: 'GET',
      path: '/api/portal/v1/warranty-claims/:claim_number',
      scope: DOOR_SCOPE.portal,
      audience: 'portal',
      summary: "Look up a claim's status from a dealer site",
      description:
        "The status of a claim filed through this dealer's portal, given its number and the `customer_ref` it was filed with. " +
        'A wrong reference gets the same 404 as a number that does not exist, so claim numbers cannot be probed.',
      params: claimNumberParams,
      query: claimLookupQuery,
      output: customerClaimOutput,
      status: 200,
      returns: 'the claim number and status.',
      errors: { not_found: 'No claim with this number and reference filed through this dealer.' },
      absent: { mcp: NO_MCP },
      example: { params: { claim_number: 'WC-000042' }, query: { customer_ref: 'INV-20417' }, response: { claim_number: 'WC-000042', status: 'under_review' } },
      handle: ({ db, orgId, auth }, { params, query }) => portal.claimStatus(db, orgId, auth.dealer, params.claim_number, query.customer_ref),
    }),
  ];
}
