import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTransientDatabaseError } from '../../../src/platform/db/faults.js';
import { toAppError } from '../../../src/platform/http/error-handler.js';
import { holdLost } from '../../../src/platform/instances/instance-liveness.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { orderPayload, seedCatalog } from '../../modules/orders/orders-support.js';
import { freePort } from '../outbox/process-support.js';

type Reply = Awaited<ReturnType<Harness['request']>>;

/** A 503 as a database fault answers: the envelope, a short Retry-After, and not a word of the driver's message. */
function expectUnavailable(res: Reply): void {
  expect(res.statusCode, res.body).toBe(503);
  expect(res.headers['retry-after']).toBe('1');
  const body = res.json<Record<string, unknown>>();
  expect(body).toMatchObject({ ok: false, status: 503, code: 'unavailable', error: 'the database is busy or unreachable; retry shortly', request_id: expect.any(String) as string });
  expect(Object.keys(body).sort()).toEqual(['code', 'doc_url', 'error', 'ok', 'request_id', 'status']);
}

async function counts(h: Harness): Promise<{ orders: number; lines: number; outbox: number; idempotency: number }> {
  const db = h.gateway.database.db;
  const n = async (table: 'orders' | 'order_lines' | 'outbox' | 'idempotency_keys') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  return { orders: await n('orders'), lines: await n('order_lines'), outbox: await n('outbox'), idempotency: await n('idempotency_keys') };
}

describe('database faults are recognised as retryable', () => {
  it('maps a refused PostgreSQL connection to 503 unavailable with Retry-After, without its message', async () => {
    const port = await freePort();
    const pool = new pg.Pool({ connectionString: `postgres://nobody@127.0.0.1:${port}/none`, connectionTimeoutMillis: 2000 });
    const err = await pool.query('select 1').then(
      () => undefined,
      (e: unknown) => e,
    );
    await pool.end();
    expect(isTransientDatabaseError(err)).toBe(true);
    const appErr = toAppError(err);
    expect(appErr.status).toBe(503);
    expect(appErr.code).toBe('unavailable');
    expect(appErr.headers).toEqual({ 'retry-after': '1' });
    expect(appErr.message).not.toContain(String(port));
  });

  it('recognises PostgreSQL shutdown and connection-class states, SQLite busy and locked, and leaves other errors internal', () => {
    const coded = (code: string) => Object.assign(new Error('x'), { code });
    for (const code of ['57P01', '57P02', '57P03', '08006', '08003', '08001', '53300', '25006', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_LOCKED', 'ECONNRESET']) {
      expect(isTransientDatabaseError(coded(code)), code).toBe(true);
    }
    expect(isTransientDatabaseError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isTransientDatabaseError(new Error('wrapped', { cause: coded('57P01') }))).toBe(true);
    for (const code of ['23505', '42P01', 'SQLITE_CONSTRAINT_UNIQUE', '40001']) {
      expect(isTransientDatabaseError(coded(code)), code).toBe(false);
      expect(toAppError(coded(code)).status).toBe(500);
    }
  });
});

describe('what a lost or switching PostgreSQL primary throws answers 503 with Retry-After', () => {
  it('recognises a cancelled statement, a session cut by a timeout, an aborted socket and pg\'s query timeout', () => {
    const coded = (code: string) => Object.assign(new Error('x'), { code });
    // 57014: statement_timeout (bounding a primary that stops answering) or pg_cancel_backend; 57P05 and 25P03 end the session.
    for (const code of ['57014', '57P05', '25P03', 'ECONNABORTED']) {
      expect(isTransientDatabaseError(coded(code)), code).toBe(true);
      expect(toAppError(coded(code)).status, code).toBe(503);
    }
    expect(isTransientDatabaseError(new Error('Query read timeout'))).toBe(true);
  });

  it('answers a hold another process took over (its heartbeats looked stalled) 503, not 500', () => {
    const err = toAppError(holdLost('Idempotency-Key k-1'));
    expect(err.status).toBe(503);
    expect(err.code).toBe('unavailable');
    expect(err.headers).toEqual({ 'retry-after': '1' });
  });
});

describe.runIf(dialects.includes('sqlite'))('SQLite locked by another connection (sqlite)', () => {
  let h: Harness;
  let key: string;

  beforeAll(async () => {
    // Short, so the test does not sit out the default five seconds with the event loop blocked.
    h = await startHarness('sqlite', { env: { SQLITE_BUSY_TIMEOUT_MS: '50' } });
    await seedCatalog(h, 'acme');
    key = (await h.key('acme', 'orders:read,orders:write')).key;
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers 503 while another connection holds the write lock past busy_timeout, writes nothing, and recovers', async () => {
    const other = new SQLite(h.databaseUrl.slice('sqlite:'.length));
    const before = await counts(h);
    other.exec('BEGIN IMMEDIATE');
    try {
      const plain = await h.request({ method: 'POST', url: '/v1/orders', payload: orderPayload('PO-BUSY-1'), key });
      expectUnavailable(plain);
      const keyed = await h.request({ method: 'POST', url: '/v1/orders', payload: orderPayload('PO-BUSY-2'), key, headers: { 'idempotency-key': 'busy-2' } });
      expectUnavailable(keyed);
      // Reads go on: WAL readers do not wait for the writer.
      expect((await h.request({ method: 'GET', url: '/v1/orders', key })).statusCode).toBe(200);
      expect(await counts(h)).toEqual(before);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    const first = await h.request({ method: 'POST', url: '/v1/orders', payload: orderPayload('PO-BUSY-1'), key });
    expect(first.statusCode, first.body).toBe(201);
    // The key the failed call tried is free again: the same call now runs and is stored.
    const retried = await h.request({ method: 'POST', url: '/v1/orders', payload: orderPayload('PO-BUSY-2'), key, headers: { 'idempotency-key': 'busy-2' } });
    expect(retried.statusCode, retried.body).toBe(201);
    const after = await counts(h);
    expect(after.orders).toBe(before.orders + 2);
    expect(after.lines).toBe(before.lines + 2);
    expect(after.outbox).toBe(before.outbox + 2);
  });
});

describe.runIf(dialects.includes('sqlite'))('SQLite: a write waiting for another process\'s lock (sqlite)', () => {
  let h: Harness;
  let key: string;

  beforeAll(async () => {
    // Long, so the write is still waiting when the lock is released.
    h = await startHarness('sqlite', { env: { SQLITE_BUSY_TIMEOUT_MS: '20000' } });
    await seedCatalog(h, 'acme');
    key = (await h.key('acme', 'orders:read,orders:write')).key;
  });
  afterAll(async () => {
    await h.close();
  });

  it('keeps answering reads while it waits, and goes in once the lock is released', async () => {
    const other = new SQLite(h.databaseUrl.slice('sqlite:'.length));
    other.exec('BEGIN IMMEDIATE');
    let settled = false;
    const write = h.request({ method: 'POST', url: '/v1/orders', payload: orderPayload('PO-WAIT-1'), key }).finally(() => {
      settled = true;
    });
    try {
      // Time for the write to reach its BEGIN (no timing is asserted). SQLite's own busy wait would then hold the whole
      // process until the lock came free or the wait ran out (a 503): no read would answer meanwhile.
      await sleep(500);
      for (let i = 0; i < 5; i++) expect((await h.request({ method: 'GET', url: '/v1/orders', key })).statusCode).toBe(200);
      expect(settled).toBe(false);
    } finally {
      other.exec('COMMIT');
      other.close();
    }
    const done = await write;
    expect(done.statusCode, done.body).toBe(201);
    const listed = await h.request({ method: 'GET', url: '/v1/orders', key });
    expect(listed.json<{ orders: { po_number: string }[] }>().orders.map((o) => o.po_number)).toContain('PO-WAIT-1');
  });
});

describe.runIf(dialects.includes('postgres'))('PostgreSQL connections killed under load (postgres)', () => {
  let h: Harness;
  let key: string;
  // Only this gateway's connections are terminated: other suites share the database.
  const appName = `gw_faults_${randomBytes(4).toString('hex')}`;
  const url = process.env.TEST_DATABASE_URL ?? '';

  beforeAll(async () => {
    h = await startHarness('postgres', { env: { DATABASE_URL: `${url}${url.includes('?') ? '&' : '?'}application_name=${appName}` } });
    await seedCatalog(h, 'acme');
    key = (await h.key('acme', 'orders:read,orders:write')).key;
  });
  afterAll(async () => {
    await h.close();
  });

  async function terminateGatewayBackends(): Promise<number> {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const res = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = $1 and pid <> pg_backend_pid()', [appName]);
      return res.rowCount ?? 0;
    } finally {
      await admin.end();
    }
  }

  // After a round has killed every backend, the next round's requests open new ones while the admin connects: the first
  // look can find none yet. So look again until one is found or the round's requests have all been answered.
  async function terminateWhileLoaded(load: Promise<unknown>): Promise<number> {
    let answered = false;
    const done = (): void => {
      answered = true;
    };
    void load.then(done, done);
    let terminated = 0;
    while (terminated === 0 && !answered) terminated = await terminateGatewayBackends();
    return terminated;
  }

  it('answers 201 or 503 (never 500) while its backends are terminated, leaves no half-written order, and recovers', async () => {
    const warm = await h.request({ method: 'POST', url: '/v1/orders', payload: orderPayload('PO-WARM'), key });
    expect(warm.statusCode, warm.body).toBe(201);
    const replies: Reply[] = [];
    let terminated = 0;
    for (let round = 0; round < 3; round++) {
      const load = Promise.all(Array.from({ length: 12 }, (_, i) => h.request({ method: 'POST', url: '/v1/orders', payload: orderPayload(`PO-LOAD-${round}-${i}`), key })));
      terminated += await terminateWhileLoaded(load);
      replies.push(...(await load));
    }
    expect(terminated, 'no backend of the gateway was found to terminate').toBeGreaterThan(0);
    expect(replies.some((r) => r.statusCode === 503), 'no request met a terminated connection').toBe(true);
    for (const res of replies) {
      expect([201, 503], res.body).toContain(res.statusCode);
      if (res.statusCode === 503) expectUnavailable(res);
    }
    // Idle pooled connections died too. A request can still draw one before the pool has heard it die (pg_terminate_backend
    // returns before the client reads the notice): that request gets a 503 and the pool drops the connection; the next
    // connect afresh. So: a few 503s at most, then a 201.
    await terminateGatewayBackends();
    let after: Reply | undefined;
    for (let attempt = 0; attempt < 5 && after?.statusCode !== 201; attempt++) {
      after = await h.request({ method: 'POST', url: '/v1/orders', payload: orderPayload(`PO-AFTER-${attempt}`), key });
      if (after.statusCode !== 201) expectUnavailable(after);
    }
    expect(after?.statusCode, after?.body).toBe(201);
    // Nothing half-written: every order that exists has its line and its hub event, and every 201 is there.
    const db = h.gateway.database.db;
    const orders = await db.selectFrom('orders').select(['id', 'po_number']).execute();
    const lines = await db.selectFrom('order_lines').select('order_id').execute();
    const events = await db.selectFrom('outbox').select('id').where('type', '=', 'order.created').execute();
    expect(lines.length).toBe(orders.length);
    expect(new Set(lines.map((l) => l.order_id))).toEqual(new Set(orders.map((o) => o.id)));
    expect(events.length).toBe(orders.length);
    const created = replies.filter((r) => r.statusCode === 201).map((r) => r.json<{ order: { po_number: string } }>().order.po_number);
    const stored = new Set(orders.map((o) => o.po_number));
    expect(created.every((po) => stored.has(po))).toBe(true);
  });
});
