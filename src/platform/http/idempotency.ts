import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../db/schema.js';
import { AppError, invalidInput } from './errors.js';
import * as repo from './idempotency.repository.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set while this request owns an Idempotency-Key, so its response gets stored. */
    idempotency?: { orgId: string; key: string; fingerprint: string };
  }
}

export interface IdempotencyOptions {
  db: Db;
  clock: Clock;
  /** How long a stored response is replayed. */
  ttlMs?: number;
  /** How long an unfinished request holds its key before a crashed one is presumed dead. */
  lockMs?: number;
}

const HEADER = 'idempotency-key';
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;
const DAY_MS = 24 * 60 * 60 * 1000;

function fingerprintOf(request: FastifyRequest): string {
  // Raw bodies (POST /v1/edi parses to a Buffer) are hashed as bytes, not as a JSON array of them.
  const body = typeof request.body === 'string' || Buffer.isBuffer(request.body) ? request.body : JSON.stringify(request.body ?? null);
  return createHash('sha256').update(`${request.method} ${request.url}\n`).update(body).digest('hex');
}

/** Takes the key for this request, or returns the record that holds it ('busy' when another request just took it). */
async function acquire(db: Db, fresh: repo.IdempotencyRow, nowIso: string): Promise<repo.IdempotencyRow | 'owned' | 'busy'> {
  if (await repo.insertKey(db, fresh)) return 'owned';
  const seen = await repo.findKey(db, fresh.org_id, fresh.key);
  if (seen === undefined) return (await repo.insertKey(db, fresh)) ? 'owned' : 'busy';
  const stale = seen.expires_at <= nowIso || (seen.state === 'in_flight' && seen.locked_until <= nowIso);
  if (!stale) return seen;
  return (await repo.takeOver(db, seen, fresh)) ? 'owned' : 'busy';
}

/**
 * `Idempotency-Key` on every POST of the scope it is registered in (after authentication): the first
 * request with a key runs and its response (below 500) is stored per org and key; the same key with
 * the same request within the TTL replays it; with a different request -> 422; while the first is
 * still running -> 409. A 5xx frees the key, so the client's retry runs again.
 */
export function registerIdempotency(app: FastifyInstance, opts: IdempotencyOptions): void {
  const ttlMs = opts.ttlMs ?? DAY_MS;
  const lockMs = opts.lockMs ?? 60_000;

  const claim = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.auth === undefined) return;
    const header = request.headers[HEADER];
    if (header === undefined) return;
    if (typeof header !== 'string' || !KEY_FORMAT.test(header)) {
      throw invalidInput('Idempotency-Key must be 1-255 printable ASCII characters without spaces');
    }
    const { orgId } = request.auth;
    const fingerprint = fingerprintOf(request);
    const now = opts.clock.now();
    const fresh: repo.IdempotencyRow = {
      org_id: orgId,
      key: header,
      fingerprint,
      state: 'in_flight',
      status_code: null,
      content_type: null,
      response_body: null,
      locked_until: new Date(now.getTime() + lockMs).toISOString(),
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + ttlMs).toISOString(),
    };
    const seen = await acquire(opts.db, fresh, now.toISOString());
    if (seen === 'owned') {
      request.idempotency = { orgId, key: header, fingerprint };
      return;
    }
    if (seen === 'busy') throw new AppError('idempotency_in_flight', `a request with Idempotency-Key ${header} is in progress`);
    if (seen.fingerprint !== fingerprint) {
      throw new AppError('unprocessable', `Idempotency-Key ${header} was already used with a different request`);
    }
    if (seen.state !== 'done' || seen.status_code === null || seen.response_body === null) {
      throw new AppError('idempotency_in_flight', `a request with Idempotency-Key ${header} is in progress`);
    }
    void reply.code(seen.status_code).header('idempotent-replayed', 'true');
    if (seen.content_type !== null) void reply.header('content-type', seen.content_type);
    return reply.send(seen.response_body);
  };

  const store = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const owner = request.idempotency;
    if (owner === undefined) return payload;
    request.idempotency = undefined;
    try {
      if (reply.statusCode < 500 && typeof payload === 'string') {
        const contentType = reply.getHeader('content-type');
        await repo.completeKey(opts.db, owner.orgId, owner.key, owner.fingerprint, {
          statusCode: reply.statusCode,
          contentType: typeof contentType === 'string' ? contentType : null,
          body: payload,
        });
      } else {
        await repo.releaseKey(opts.db, owner.orgId, owner.key, owner.fingerprint);
      }
    } catch (err) {
      // The work is done; failing the response now would invite a duplicate. The lock runs out instead.
      request.log.error({ err }, 'could not store the idempotent response');
    }
    return payload;
  };

  // Attached to POST routes only, so reads pay nothing for it.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST')) return;
    route.preValidation = [...asArray(route.preValidation), claim];
    route.onSend = [...asArray(route.onSend), store];
  });
}

function asArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}
