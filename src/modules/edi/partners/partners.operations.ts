import { z } from 'zod';
import { defineRead, type Operation } from '../../../platform/operations/operation.js';
import { listPartnersOutput, listPartnersQuery, partnerParams, partnerSchema } from './partners.schemas.js';
import type { EdiPartnersService } from './partners.service.js';

const examplePartner = {
  id: 'tp_01kt1gw6g0dc6kwst4tpbhv76q',
  name: 'BuyerCo',
  isa: { qualifier: 'ZZ', id: 'BUYERCO' },
  gs_id: null,
  our_isa: { qualifier: 'ZZ', id: 'TIREGATEWAY' },
  sku_qualifiers: ['VP', 'VN', 'BP', 'SK', 'UP'],
  validation: 'strict',
  outbound_delivery: false,
  documents: {},
  created_at: '2026-06-01T12:00:00.000Z',
};

/** The org's read-only view of its trading partners: each one REST route, one MCP tool and one OpenAPI operation. */
export function ediPartnersOperations(partners: EdiPartnersService): Operation[] {
  return [
    defineRead({
      name: 'edi_partners_list',
      method: 'GET',
      path: '/v1/edi/partners',
      scope: 'edi:read',
      summary: 'List EDI trading partners',
      description:
        'List your trading partners by name, with the interchange ids an X12 interchange for edi_submit needs: the ' +
        "partner's (`isa`, ISA05/ISA06 of what it sends) and your organisation's (`our_interchange_ids`, ISA07/ISA08; the " +
        'main one first). Partners are set up by the operator; no secret is shown. Pass `next_cursor` back as `cursor`.',
      query: listPartnersQuery,
      output: listPartnersOutput,
      status: 200,
      returns: 'one page of trading partners and your interchange ids.',
      errors: {},
      example: {
        query: { limit: '20' },
        response: { partners: [examplePartner], our_interchange_ids: [{ qualifier: 'ZZ', id: 'TIREGATEWAY', main: true }], next_cursor: null },
      },
      handle: ({ db, orgId }, { query }) => partners.listForApi(db, orgId, query),
    }),
    defineRead({
      name: 'edi_partners_get',
      method: 'GET',
      path: '/v1/edi/partners/:id',
      scope: 'edi:read',
      summary: 'Get an EDI trading partner',
      description:
        'Get one trading partner by id (tp_...): its interchange id (ISA05/ISA06), the one it sends to (`our_isa`, ' +
        "ISA07/ISA08), the SKU qualifiers and validation its interchanges get, and what its guide asks of our documents.",
      params: partnerParams,
      output: z.object({ partner: partnerSchema }),
      result: 'partner',
      status: 200,
      returns: 'the trading partner.',
      errors: { not_found: 'No trading partner with this id in your organisation.' },
      example: { params: { id: examplePartner.id }, response: { partner: examplePartner } },
      handle: ({ db, orgId }, { params }) => partners.getForApi(db, orgId, params.id),
    }),
  ];
}
