import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fastify, type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { issueDetails, issuesText } from '../platform/core/issues.js';

/** The hub's side of the contract in DESIGN.md ("The hub contract"), with switches to make it misbehave. */

const MAX_BATCH = 500;

interface HubSimEvent {
  id: string;
  type: string;
  org_id: string;
  occurred_at: string;
  data: unknown;
}

type HubSimMode =
  | { kind: 'up' }
  | { kind: 'down'; forMs?: number }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'error'; status: 500 | 502 | 503; count?: number }
  /** `delayMs`: each 429 comes after that long, as from a hub that thought about it first. */
  | { kind: 'rate_limited'; retryAfterSeconds: number; count?: number; delayMs?: number };

interface HubSimOptions {
  port?: number;
  host?: string;
  token?: string;
}

interface HubSimStats {
  mode: HubSimMode;
  /** Requests (batches) answered. */
  received: number;
  accepted: number;
  /** Events sent again after the hub had them (answered as duplicates). */
  duplicates: number;
  rejecting: { type: string; reason: string } | null;
}

export interface HubSim {
  readonly url: string;
  readonly port: number;
  /** Resolves once the switch took effect ('down' has stopped listening, anything else is listening again). */
  setMode(mode: HubSimMode): Promise<void>;
  /** Rejects every event of this type per event; null stops rejecting. */
  rejectType(eventType: string | null, reason?: string): void;
  events(): HubSimEvent[];
  received(): number;
  stats(): HubSimStats;
  /** Forgets events and counts, stops rejecting, drops in-flight slow requests and comes back up. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

const eventSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  org_id: z.string().min(1),
  occurred_at: z.iso.datetime(),
  data: z.unknown().refine((value) => value !== undefined, 'data is required'),
});

const batchSchema = z.object({ events: z.array(eventSchema).min(1).max(MAX_BATCH) });

const listQuerySchema = z.object({ type: z.string().optional(), org_id: z.string().optional() });

const modeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('up') }),
  z.object({ kind: z.literal('down'), forMs: z.int().positive().optional() }),
  z.object({ kind: z.literal('slow'), delayMs: z.int().nonnegative() }),
  z.object({
    kind: z.literal('error'),
    status: z.union([z.literal(500), z.literal(502), z.literal(503)]),
    count: z.int().positive().optional(),
  }),
  z.object({
    kind: z.literal('rate_limited'),
    retryAfterSeconds: z.int().nonnegative(),
    count: z.int().positive().optional(),
    delayMs: z.int().nonnegative().optional(),
  }),
]);

const rejectSchema = z.object({ type: z.string().min(1).nullable(), reason: z.string().min(1).optional() });

export async function startHubSim(opts: HubSimOptions = {}): Promise<HubSim> {
  const host = opts.host ?? '127.0.0.1';
  // An empty HUB_TOKEN means no token, the same as on the client side.
  const token = opts.token === '' ? undefined : opts.token;
  // 500 events with generous payloads must fit; fastify's 1 MB default would not.
  const app = fastify({ logger: false, bodyLimit: 32 * 1024 * 1024, forceCloseConnections: true });

  let mode: HubSimMode = { kind: 'up' };
  let faultsLeft = 0;
  let rejection: { type: string; reason: string } | null = null;
  let stored: HubSimEvent[] = [];
  let ids = new Set<string>();
  let received = 0;
  let duplicateCount = 0;
  // Aborted when the sim goes down, resets or closes, so slow requests do not outlive it.
  let inflight = new AbortController();
  let upTimer: NodeJS.Timeout | undefined;
  let closed = false;
  // Listening switches are async; chaining them keeps concurrent callers from interleaving.
  let chain: Promise<void> = Promise.resolve();

  const transition = (step: () => Promise<void>): Promise<void> => {
    const next = chain.then(async () => {
      if (!closed) await step();
    });
    chain = next.catch(() => undefined);
    return next;
  };

  const abortInflight = (): void => {
    inflight.abort();
    inflight = new AbortController();
  };

  const stopListening = async (): Promise<void> => {
    if (!app.server.listening) return;
    const done = new Promise<void>((resolve) => app.server.close(() => resolve()));
    // Keep-alive sockets would otherwise keep serving; a down hub refuses and resets everything.
    app.server.closeAllConnections();
    abortInflight();
    await done;
    // One more I/O turn lets clients in this process see their resets before the caller sends again.
    await new Promise<void>((resolve) => setImmediate(resolve));
  };

  const startListening = async (): Promise<void> => {
    if (app.server.listening) return;
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error): void => {
        app.server.off('listening', onListening);
        reject(err);
      };
      const onListening = (): void => {
        app.server.off('error', onError);
        resolve();
      };
      app.server.once('error', onError);
      app.server.once('listening', onListening);
      app.server.listen(port, host);
    });
  };

  const setMode = async (next: HubSimMode): Promise<void> => {
    const checked = modeSchema.parse(next);
    await transition(async () => {
      clearTimeout(upTimer);
      upTimer = undefined;
      if (checked.kind === 'down') {
        await stopListening();
        mode = checked;
        const forMs = checked.forMs;
        if (forMs !== undefined) {
          upTimer = setTimeout(() => {
            setMode({ kind: 'up' }).catch((err: unknown) => {
              process.stderr.write(`hub simulator could not come back up: ${String(err)}\n`);
            });
          }, forMs);
        }
        return;
      }
      await startListening();
      mode = checked;
      faultsLeft = checked.kind === 'error' || checked.kind === 'rate_limited' ? (checked.count ?? Infinity) : 0;
    });
  };

  const takeFault = (): { status: number; headers: Record<string, string> } | null => {
    const current = mode;
    if (current.kind !== 'error' && current.kind !== 'rate_limited') return null;
    faultsLeft -= 1;
    if (faultsLeft <= 0) mode = { kind: 'up' };
    return current.kind === 'error'
      ? { status: current.status, headers: {} }
      : { status: 429, headers: { 'retry-after': String(current.retryAfterSeconds) } };
  };

  const authorized = (request: FastifyRequest): boolean =>
    token === undefined || request.headers.authorization === `Bearer ${token}`;

  const ingest = (events: z.infer<typeof eventSchema>[]) => {
    const accepted: string[] = [];
    const duplicates: string[] = [];
    const rejected: { id: string; reason: string }[] = [];
    for (const event of events) {
      if (ids.has(event.id)) {
        duplicates.push(event.id);
        duplicateCount += 1;
      } else if (rejection !== null && rejection.type === event.type) {
        rejected.push({ id: event.id, reason: rejection.reason });
      } else {
        ids.add(event.id);
        stored.push({ id: event.id, type: event.type, org_id: event.org_id, occurred_at: event.occurred_at, data: event.data });
        accepted.push(event.id);
      }
    }
    return { accepted, duplicates, rejected };
  };

  // Body parser failures (bad JSON, too large) carry their status; answer them in the hub's shape.
  app.setErrorHandler((error, _request, reply) => {
    const statusCode = error instanceof Error && 'statusCode' in error ? error.statusCode : undefined;
    const status = typeof statusCode === 'number' && statusCode >= 400 ? statusCode : 500;
    return reply.code(status).send({ error: error instanceof Error ? error.message : 'internal error' });
  });

  app.post('/v1/events', async (request: FastifyRequest, reply: FastifyReply) => {
    received += 1;
    const delayMs = mode.kind === 'slow' || mode.kind === 'rate_limited' ? (mode.delayMs ?? 0) : 0;
    if (delayMs > 0) {
      // A client that gave up still gets its batch stored, like a hub that finished late; a resend shows duplicates.
      try {
        await sleep(delayMs, undefined, { signal: inflight.signal });
      } catch {
        return reply.code(503).send({ error: 'hub simulator stopped' });
      }
    }
    const fault = takeFault();
    if (fault !== null) return reply.code(fault.status).headers(fault.headers).send({ error: `simulated ${fault.status}` });
    if (!authorized(request)) return reply.code(401).send({ error: 'invalid or missing bearer token' });
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string' || key === '') return reply.code(400).send({ error: 'Idempotency-Key header is required' });
    const parsed = batchSchema.safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: issuesText(issueDetails(parsed.error.issues)) });
    return ingest(parsed.data.events);
  });

  app.get('/v1/events', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!authorized(request)) return reply.code(401).send({ error: 'invalid or missing bearer token' });
    const query = listQuerySchema.safeParse(request.query);
    if (!query.success) return reply.code(400).send({ error: issuesText(issueDetails(query.error.issues)) });
    const { type, org_id: orgId } = query.data;
    const events = stored.filter((e) => (type === undefined || e.type === type) && (orgId === undefined || e.org_id === orgId));
    return { events, count: events.length };
  });

  app.post('/_sim/mode', async (request: FastifyRequest, reply: FastifyReply) => {
    const parsed = modeSchema.safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: issuesText(issueDetails(parsed.error.issues)) });
    const next = parsed.data;
    if (next.kind === 'down') {
      // Over HTTP nobody could bring it back up, so the outage must end by itself.
      if (next.forMs === undefined) return reply.code(400).send({ error: 'forMs is required for down over HTTP' });
      // Stop listening only once this answer has left, or the caller would see its own reset.
      reply.raw.once('finish', () => {
        setMode(next).catch((err: unknown) => {
          process.stderr.write(`hub simulator could not go down: ${String(err)}\n`);
        });
      });
      return { ok: true, mode: next };
    }
    await setMode(next);
    return { ok: true, mode: next };
  });

  app.post('/_sim/reject', async (request: FastifyRequest, reply: FastifyReply) => {
    const parsed = rejectSchema.safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: issuesText(issueDetails(parsed.error.issues)) });
    sim.rejectType(parsed.data.type, parsed.data.reason);
    return { ok: true, rejecting: rejection };
  });

  app.post('/_sim/reset', async () => {
    await sim.reset();
    return { ok: true };
  });

  app.get('/_sim/stats', () => sim.stats());

  await app.listen({ port: opts.port ?? 0, host });
  const port = (app.server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const sim: HubSim = {
    url,
    port,
    setMode,
    rejectType(eventType, reason) {
      rejection = eventType === null ? null : { type: eventType, reason: reason ?? `event type ${eventType} rejected` };
    },
    events: () => stored.slice(),
    received: () => received,
    stats: () => ({ mode, received, accepted: stored.length, duplicates: duplicateCount, rejecting: rejection }),
    async reset() {
      stored = [];
      ids = new Set();
      received = 0;
      duplicateCount = 0;
      rejection = null;
      abortInflight();
      await setMode({ kind: 'up' });
    },
    async close() {
      await transition(async () => {
        closed = true;
        clearTimeout(upTimer);
        abortInflight();
        await app.close();
      });
    },
  };
  return sim;
}

/** Entry point of `gateway hub-sim`: the token comes from HUB_TOKEN, read by the CLI. */
export async function runHubSimCli(opts: { port: number; host: string; token?: string }): Promise<HubSim> {
  const sim = await startHubSim(opts);
  process.stdout.write(`hub simulator listening on ${sim.url}\n`);
  return sim;
}
