import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authOf } from '../../platform/http/api-auth.js';
import { authErrorResponses, errorEnvelope, okEnvelope } from '../../platform/http/envelope.js';
import { claimRefParams, claimSchema, createClaimInput, listClaimsQuery, updateClaimInput } from './warranty.schemas.js';
import type { WarrantyService } from './warranty.service.js';

const tags = ['warranty'];
const security = [{ bearerAuth: [] }];
const claimEnvelope = okEnvelope({ claim: claimSchema });

/** REST door onto WarrantyService: parse, call, wrap. No logic lives here. */
export function warrantyRoutes(warranty: WarrantyService): FastifyPluginAsyncZod {
  return (app) => {
    app.get('/warranty-claims', {
      schema: {
        tags, security, summary: 'List warranty claims',
        description: 'Newest first, with each claim\'s status history. Filter with `status`; pass `next_cursor` back as `cursor`.',
        querystring: listClaimsQuery,
        response: { 200: okEnvelope({ claims: z.array(claimSchema), next_cursor: z.string().nullable() }), ...authErrorResponses },
      },
    }, async (request) => ({ ok: true as const, ...(await warranty.list(authOf(request), request.query)) }));

    app.get('/warranty-claims/:idOrNumber', {
      schema: {
        tags, security, summary: 'Get a warranty claim by id or claim number',
        params: claimRefParams,
        response: { 200: claimEnvelope, ...authErrorResponses, 404: errorEnvelope },
      },
    }, async (request) => ({ ok: true as const, claim: await warranty.get(authOf(request), request.params.idOrNumber) }));

    app.post('/warranty-claims', {
      schema: {
        tags, security, summary: 'File a warranty claim',
        description: 'The claim gets the next claim number of your organisation (`WC-000001`) and starts as `submitted`.',
        body: createClaimInput,
        response: { 201: claimEnvelope, ...authErrorResponses },
      },
    }, async (request, reply) => {
      const claim = await warranty.create(authOf(request), request.body);
      return reply.status(201).send({ ok: true as const, claim });
    });

    app.patch('/warranty-claims/:idOrNumber', {
      schema: {
        tags, security, summary: 'Move a claim to another status and/or set its resolution',
        description:
          'submitted -> under_review | approved | denied | closed; under_review -> approved | denied | closed; approved -> closed; ' +
          'denied -> under_review (appeal) | closed; closed is final. A forbidden move is a 409 listing the allowed next states.',
        params: claimRefParams,
        body: updateClaimInput,
        response: { 200: claimEnvelope, ...authErrorResponses, 404: errorEnvelope, 409: errorEnvelope },
      },
    }, async (request) => ({
      ok: true as const,
      claim: await warranty.update(authOf(request), request.params.idOrNumber, request.body),
    }));
    return Promise.resolve();
  };
}
