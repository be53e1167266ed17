import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fastify, type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { issueDetails, issuesText } from '../platform/core/issues.js';
import { findProvider, PROVIDERS, type ProviderGroup } from '../modules/telematics/providers/catalog.js';
import { registerAggregatorRoutes } from './vendor-sim/aggregators.js';
import { registerAuthRoutes } from './vendor-sim/auth.js';
import type { RegisterRoutes, SimContext } from './vendor-sim/context.js';
import type { FleetBehaviour } from './vendor-sim/fleet-behaviour.js';
import { OTHER_HOST } from './vendor-sim/fleet-endpoints.js';
import { registerIsoRoutes, registerIsoSeriesRoutes } from './vendor-sim/iso.js';
import { registerOemRoutes } from './vendor-sim/oem.js';
import { TokenStore } from './vendor-sim/tokens.js';
import { registerTpmsRoutes } from './vendor-sim/tpms.js';

/**
 * Every telematics provider of PROVIDERS as one HTTP server, each under `/<provider id>/...` (and an ISO feed's other
 * host under `/other-host/<provider id>/...`), with switches to make any of them refuse, fail, stall or rate-limit. Stub providers have no API (404). Admin routes live under `/_sim/`.
 */

type VendorSimMode =
  | { kind: 'up' }
  | { kind: 'reject' }
  | { kind: 'fail'; status?: 500 | 502 | 503 }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'rate_limited'; retryAfterSeconds: number }
  /** A 200 carrying an HTML maintenance page, as vendors' load balancers do: neither the JSON nor the XML asked for. */
  | { kind: 'maintenance_page' };

interface VendorSimOptions {
  port?: number;
  host?: string;
  /** Machines per provider (default 25). */
  fleetSize?: number;
  /** Items per ISO page (default 10). */
  pageSize?: number;
  /** The sim's clock: snapshot times, token and code expiry. */
  now?: () => Date;
}

export interface VendorSimRequest {
  provider: string | null;
  method: string;
  path: string;
  status: number;
  /** Whose credentials it carried (the API key, or the Basic user name), to tell one connection's calls apart. */
  account: string | null;
  /** The format it asked for (its Accept header), which ISO feeds answer in. */
  accept: string | null;
  /** When it arrived and when it was answered (ms since the epoch): overlapping calls of one account show concurrent polls. */
  startedAt: number;
  endedAt: number;
}

/** The API key, the user name of HTTP Basic credentials, or the account a bearer token was issued to. */
function accountOf(request: FastifyRequest, tokens: TokenStore): string | null {
  const key = request.headers['x-api-key'];
  if (typeof key === 'string') return key;
  const authorization = request.headers.authorization ?? '';
  const bearer = /^Bearer (.+)$/i.exec(authorization)?.[1];
  if (bearer !== undefined) return tokens.accountOf(bearer.trim()) ?? null;
  const basic = /^Basic (.+)$/i.exec(authorization)?.[1];
  return basic === undefined ? null : (Buffer.from(basic, 'base64').toString('utf8').split(':')[0] ?? null);
}

export interface VendorSim {
  readonly url: string;
  readonly port: number;
  /** `'*'` sets every provider and clears per-provider modes. */
  setMode(provider: string, mode: VendorSimMode): void;
  mode(provider: string): VendorSimMode;
  /** How one account's fleet at a provider behaves from now on (replaces what was set for it; `{}` clears it). */
  setFleet(provider: string, account: string, behaviour: FleetBehaviour): void;
  /** Makes every refresh token issued so far (of one provider, or all) unknown: the next refresh is invalid_grant. */
  revokeRefreshTokens(provider?: string): void;
  /** Tokens handed out by the token endpoint (every grant, refreshes included), of one provider or all. */
  tokensIssued(provider?: string): number;
  /** Answered requests, oldest first, optionally of one provider (admin routes are not logged). */
  requests(provider?: string): VendorSimRequest[];
  /** Back to all up, no tokens, empty log; drops in-flight slow requests. */
  reset(): void;
  close(): Promise<void>;
}

const modeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('up') }),
  z.object({ kind: z.literal('reject') }),
  z.object({ kind: z.literal('fail'), status: z.union([z.literal(500), z.literal(502), z.literal(503)]).optional() }),
  z.object({ kind: z.literal('slow'), delayMs: z.int().nonnegative() }),
  z.object({ kind: z.literal('rate_limited'), retryAfterSeconds: z.int().nonnegative() }),
  z.object({ kind: z.literal('maintenance_page') }),
]);

const setModeSchema = z.object({ provider: z.string().min(1), mode: modeSchema });

// The behaviour's parts are checked by the routes that read them; here only its outline.
const setFleetSchema = z.object({ provider: z.string().min(1), account: z.string().min(1), behaviour: z.record(z.string(), z.unknown()) });

/** Per-request switches (`?sim_fail=503`, `?sim_delay_ms=200`, `?sim_rate_limit=30`) win over the provider's mode. */
function queryMode(query: unknown): VendorSimMode | undefined {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const int = (key: string): number | undefined => (typeof q[key] === 'string' && /^\d+$/.test(q[key]) ? Number(q[key]) : undefined);
  const fail = int('sim_fail');
  if (fail === 500 || fail === 502 || fail === 503) return { kind: 'fail', status: fail };
  const retryAfter = int('sim_rate_limit');
  if (retryAfter !== undefined) return { kind: 'rate_limited', retryAfterSeconds: retryAfter };
  const delay = int('sim_delay_ms');
  return delay === undefined ? undefined : { kind: 'slow', delayMs: delay };
}

const ROUTES: Readonly<Record<ProviderGroup, RegisterRoutes | undefined>> = {
  iso15143: registerIsoRoutes,
  oem_oauth: registerOemRoutes,
  aggregator: registerAggregatorRoutes,
  tpms: registerTpmsRoutes,
  stub: undefined,
};

export async function startVendorSim(opts: VendorSimOptions = {}): Promise<VendorSim> {
  const host = opts.host ?? '127.0.0.1';
  const now = opts.now ?? (() => new Date());
  const app = fastify({ logger: false, forceCloseConnections: true });

  let globalMode: VendorSimMode = { kind: 'up' };
  const modes = new Map<string, VendorSimMode>();
  let log: VendorSimRequest[] = [];
  const arrivals = new WeakMap<FastifyRequest, number>();
  // Aborted on reset and close, so slow requests do not outlive them.
  let inflight = new AbortController();
  const tokens = new TokenStore(now);
  const modeOf = (provider: string): VendorSimMode => modes.get(provider) ?? globalMode;
  const fleets = new Map<string, FleetBehaviour>();
  const fleetKey = (provider: string, account: string): string => JSON.stringify([provider, account]);

  const ctx: SimContext = {
    now,
    fleetSize: opts.fleetSize ?? 25,
    pageSize: opts.pageSize ?? 10,
    tokens,
    rejecting: (provider) => modeOf(provider).kind === 'reject',
    accountOf: (request) => accountOf(request, tokens),
    fleet: (provider, request) => {
      const account = accountOf(request, tokens);
      return (account === null ? undefined : fleets.get(fleetKey(provider, account))) ?? {};
    },
    fleetOf: (provider, account) => (account === undefined ? undefined : fleets.get(fleetKey(provider, account))) ?? {},
  };
  // When each account last called each URL (sim clock), for fleets with a per-URL budget.
  let urlCalls = new Map<string, number>();

  const providerOf = (request: FastifyRequest): string | undefined => {
    const parts = request.url.split('?')[0]?.split('/') ?? [];
    const id = parts[1] === OTHER_HOST ? parts[2] : parts[1];
    return id !== undefined && findProvider(id) !== undefined ? id : undefined;
  };

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  // Switches apply before routing, so they cover every endpoint of the provider, unknown paths included.
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    arrivals.set(request, Date.now());
    const provider = providerOf(request);
    if (provider === undefined) return;
    const mode = queryMode(request.query) ?? modeOf(provider);
    if (mode.kind === 'slow' && mode.delayMs > 0) {
      try {
        await sleep(mode.delayMs, undefined, { signal: inflight.signal });
      } catch {
        return reply.code(503).send({ error: 'unavailable', message: 'vendor simulator stopped' });
      }
    }
    if (mode.kind === 'fail') {
      const status = mode.status ?? 500;
      return reply.code(status).send({ error: 'server_error', message: `simulated ${status}` });
    }
    if (mode.kind === 'maintenance_page') {
      return reply.code(200).type('text/html').send('<!DOCTYPE html><html><body><h1>Down for maintenance</h1></body></html>');
    }
    if (mode.kind === 'rate_limited') {
      return reply.code(429).header('retry-after', String(mode.retryAfterSeconds)).send({ error: 'rate_limited', message: 'Too many requests' });
    }
    const interval = ctx.fleet(provider, request).endpoints?.urlIntervalSeconds;
    if (interval !== undefined && request.method === 'GET') {
      const key = JSON.stringify([accountOf(request, tokens), request.url.split('?')[0]]);
      const at = now().getTime();
      const last = urlCalls.get(key);
      if (last !== undefined && at - last < interval * 1000) {
        const wait = Math.ceil((last + interval * 1000 - at) / 1000);
        return reply.code(429).header('retry-after', String(wait)).send({ error: 'rate_limited', message: `one call per URL per ${interval} s` });
      }
      urlCalls.set(key, at);
    }
    return undefined;
  });

  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (!request.url.startsWith('/_sim/')) {
      log.push({
        provider: providerOf(request) ?? null,
        method: request.method,
        path: request.url.split('?')[0] ?? request.url,
        status: reply.statusCode,
        account: accountOf(request, tokens),
        accept: request.headers.accept ?? null,
        startedAt: arrivals.get(request) ?? Date.now(),
        endedAt: Date.now(),
      });
    }
    done();
  });

  for (const provider of PROVIDERS) {
    const register = ROUTES[provider.group];
    if (register === undefined) continue;
    await app.register(
      (scope, _opts, done) => {
        registerAuthRoutes(scope, provider, ctx);
        register(scope, provider, ctx);
        done();
      },
      { prefix: `/${provider.id}` },
    );
    // The vendor's other host: the ISO time series, for fleets whose series is served elsewhere.
    if (provider.group === 'iso15143') {
      await app.register(
        (scope, _opts, done) => {
          registerIsoSeriesRoutes(scope, provider, ctx);
          done();
        },
        { prefix: `/${OTHER_HOST}/${provider.id}` },
      );
    }
  }

  const setMode = (provider: string, mode: VendorSimMode): void => {
    const checked = modeSchema.parse(mode);
    if (provider === '*') {
      modes.clear();
      globalMode = checked;
    } else if (findProvider(provider) === undefined) {
      throw new Error(`unknown provider ${provider}`);
    } else {
      modes.set(provider, checked);
    }
  };
  const setFleet = (provider: string, account: string, behaviour: FleetBehaviour): void => {
    if (findProvider(provider) === undefined) throw new Error(`unknown provider ${provider}`);
    fleets.set(fleetKey(provider, account), behaviour);
  };
  const requests = (provider?: string): VendorSimRequest[] => log.filter((r) => provider === undefined || r.provider === provider);
  const reset = (): void => {
    modes.clear();
    fleets.clear();
    globalMode = { kind: 'up' };
    log = [];
    urlCalls = new Map();
    tokens.clear();
    inflight.abort();
    inflight = new AbortController();
  };

  app.post('/_sim/mode', (request, reply) => {
    const parsed = setModeSchema.safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: issuesText(issueDetails(parsed.error.issues)) });
    if (parsed.data.provider !== '*' && findProvider(parsed.data.provider) === undefined) return reply.code(400).send({ error: `unknown provider ${parsed.data.provider}` });
    setMode(parsed.data.provider, parsed.data.mode);
    return { ok: true, provider: parsed.data.provider, mode: parsed.data.mode };
  });
  app.post('/_sim/fleet', (request, reply) => {
    const parsed = setFleetSchema.safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: issuesText(issueDetails(parsed.error.issues)) });
    if (findProvider(parsed.data.provider) === undefined) return reply.code(400).send({ error: `unknown provider ${parsed.data.provider}` });
    setFleet(parsed.data.provider, parsed.data.account, parsed.data.behaviour);
    return { ok: true };
  });
  app.post('/_sim/revoke-refresh-tokens', (request) => {
    const provider = typeof request.body === 'object' && request.body !== null ? (request.body as { provider?: unknown }).provider : undefined;
    tokens.revokeRefreshTokens(typeof provider === 'string' ? provider : undefined);
    return { ok: true };
  });
  app.post('/_sim/reset', () => {
    reset();
    return { ok: true };
  });
  app.get<{ Querystring: { provider?: string } }>('/_sim/requests', (request) => ({ requests: requests(request.query.provider) }));

  await app.listen({ port: opts.port ?? 0, host });
  const port = (app.server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    setMode,
    setFleet,
    mode: modeOf,
    revokeRefreshTokens: (provider) => tokens.revokeRefreshTokens(provider),
    tokensIssued: (provider) => tokens.issued(provider),
    requests,
    reset,
    async close() {
      inflight.abort();
      await app.close();
    },
  };
}

/** Entry point of `gateway vendor-sim`. */
export async function runVendorSimCli(opts: { port: number; host: string; fleetSize?: number }): Promise<VendorSim> {
  const sim = await startVendorSim(opts);
  process.stdout.write(`vendor simulator listening on ${sim.url} (one provider per path prefix, e.g. ${sim.url}/vendor1_livelink/Fleet/1)\n`);
  return sim;
}
