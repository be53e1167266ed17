import { requireAuth } from './auth.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { field, localPath, type RegisterRoutes } from './context.js';
import * as f from './fleet.js';

/**
 * OEM platforms with browser consent: `GET /oauth/authorize` answers the consent with a 302 straight away (no page),
 * `POST /oauth/token` is in auth.ts, and a small bearer-protected machine API:
 * `GET /api/machines` and `GET /api/machines/{id}/telemetry`, shaped differently per vendor.
 */

interface OemShape {
  list(machines: f.Machine[], at: Date): unknown;
  telemetry(m: f.Machine, at: Date): unknown;
}

/** An organisation-centred API: `values` lists, measurements as named readings. */
const MEASUREMENTS_SHAPE: OemShape = {
  list: (machines, at) => ({
    total: machines.length,
    values: machines.map((m) => ({
      id: m.equipmentId,
      name: `${m.model} ${m.serialNumber.slice(-4)}`,
      make: m.oemName,
      model: m.model,
      vin: m.pin,
      engineHours: { reading: { valueAsDouble: f.operatingHours(m, at), unit: 'Hours' }, reportTime: at.toISOString() },
    })),
  }),
  telemetry: (m, at) => {
    const p = f.positionAt(m, at);
    const time = at.toISOString();
    return {
      machineId: m.equipmentId,
      measurements: [
        { name: 'EngineHours', value: f.operatingHours(m, at), unit: 'h', time },
        { name: 'FuelLevel', value: f.fuelRemainingPercent(m, at), unit: '%', time },
        { name: 'Location', lat: p.latitude, lon: p.longitude, time },
      ],
    };
  },
};

const SHAPES: Readonly<Record<string, OemShape>> = {
  vendor11_operations_center: MEASUREMENTS_SHAPE,
  vendor12_fieldops: {
    list: (machines) => ({
      data: machines.map((m) => ({ id: m.equipmentId, displayName: m.equipmentId, brand: m.oemName, model: m.model, serialNumber: m.pin })),
      page: { number: 1, size: machines.length, totalElements: machines.length },
    }),
    telemetry: (m, at) => {
      const p = f.positionAt(m, at);
      return {
        assetId: m.equipmentId,
        timestamp: Math.floor(at.getTime() / 1000),
        engineHours: f.operatingHours(m, at),
        fuelLevelPercent: f.fuelRemainingPercent(m, at),
        position: { latitude: p.latitude, longitude: p.longitude },
      };
    },
  },
};

const CHALLENGE = /^[A-Za-z0-9_-]{43,128}$/;

function redirectTarget(raw: string | undefined): URL | undefined {
  if (raw === undefined || !URL.canParse(raw)) return undefined;
  const url = new URL(raw);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
}

export const registerOemRoutes: RegisterRoutes = (app, provider, ctx) => {
  const shape = SHAPES[provider.id] ?? MEASUREMENTS_SHAPE;
  const fleet = f.fleetOf(provider.id, ctx.fleetSize);
  const guarded = { preHandler: requireAuth(provider, ctx) };
  const readingTime = (): Date => new Date(Math.floor(ctx.now().getTime() / 600_000) * 600_000);

  const authorize = async (request: FastifyRequest, reply: FastifyReply) => {
    const q = request.query;
    const ask = ctx.fleetOf(provider.id, field(q, 'client_id')).endpoints;
    const redirect = redirectTarget(field(q, 'redirect_uri'));
    const state = field(q, 'state');
    const clientId = field(q, 'client_id');
    const challenge = field(q, 'code_challenge');
    // Without a trustworthy redirect_uri the error can only be shown here, never sent back (RFC 6749 section 4.1.2.1).
    if (redirect === undefined || clientId === undefined) return reply.code(400).send({ error: 'invalid_request', error_description: 'client_id and an http(s) redirect_uri are required' });
    if (field(q, 'response_type') !== 'code' || state === undefined || challenge === undefined || !CHALLENGE.test(challenge) || field(q, 'code_challenge_method') !== 'S256') {
      return reply.code(400).send({ error: 'invalid_request', error_description: 'response_type=code, state, code_challenge and code_challenge_method=S256 are required' });
    }
    if (ask?.requireScope !== undefined && !(field(q, 'scope') ?? '').split(' ').includes(ask.requireScope)) {
      redirect.searchParams.set('error', 'invalid_scope');
    } else if (field(q, 'deny') === '1' || ctx.rejecting(provider.id)) {
      redirect.searchParams.set('error', 'access_denied');
    } else {
      redirect.searchParams.set('code', ctx.tokens.issueCode({ provider: provider.id, clientId, redirectUri: field(q, 'redirect_uri') ?? '', challenge }));
    }
    redirect.searchParams.set('state', state);
    return reply.redirect(redirect.toString(), 302);
  };
  const notHere = (reply: FastifyReply) => reply.code(404).send({ error: 'not_found', message: 'no such page' });
  // The authorize page is where the client's fleet behaviour puts it (keyed by the client_id it is opened with).
  app.get('/oauth/authorize', async (request, reply) => {
    const moved = ctx.fleetOf(provider.id, field(request.query, 'client_id')).endpoints?.authorizePath;
    return moved === undefined || moved === '/oauth/authorize' ? authorize(request, reply) : notHere(reply);
  });
  app.get('/*', async (request, reply) => (ctx.fleetOf(provider.id, field(request.query, 'client_id')).endpoints?.authorizePath === localPath(request, provider) ? authorize(request, reply) : notHere(reply)));

  app.get('/api/machines', guarded, () => shape.list(fleet, readingTime()));

  app.get<{ Params: { id: string } }>('/api/machines/:id/telemetry', guarded, async (request, reply) => {
    const machine = fleet.find((m) => m.equipmentId === request.params.id);
    if (machine === undefined) return reply.code(404).send({ error: 'not_found', message: 'unknown machine' });
    return shape.telemetry(machine, readingTime());
  });
};
