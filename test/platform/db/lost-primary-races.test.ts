import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Harness } from '../../support/harness.js';
import { waitFor } from '../../support/wait-for.js';
import { orderPayload, seedCatalog } from '../../modules/orders/orders-support.js';
import { readEdiFixture, startEdiHarness, submit } from '../../modules/edi/edi-support.js';

type Reply = Awaited<ReturnType<Harness['request']>>;

/** What every lost hold answers: 503 in the envelope with a short Retry-After, never a 500. */
function expectRetryLater(res: Reply): void {
  expect(res.statusCode, res.body).toBe(503);
  expect(res.headers['retry-after']).toBe('1');
  expect(res.json()).toMatchObject({ ok: false, status: 503, code: 'unavailable' });
}

/** An 850 from BuyerCo with its own ISA13 and PO number. */
function interchange(control: number, po: string): string {
  return readEdiFixture('po-4010-single.x12').replaceAll('000000101', String(control).padStart(9, '0')).replace('PO-1001', po);
}

/**
 * What a PostgreSQL primary lost under a request leaves behind, each case staged with triggers in this harness's
 * schema: a release of an EDI lease still pending when the same process takes the message again, and heartbeats stalled
 * past INSTANCE_TTL_MS so that another process takes over what a live one holds. Each answered 500 before
 * (docs/decisions.md, [16/20]). PostgreSQL only: the staging needs pg_sleep and triggers that raise SQLSTATEs.
 */
describe.runIf(dialects.includes('postgres'))('a lost PostgreSQL primary: the races it leaves (postgres)', () => {
  let h: Harness;
  let key: string;

  beforeAll(async () => {
    ({ h, key } = await startEdiHarness('postgres'));
    await h.gateway.instances.start();
  });
  afterAll(() => h?.close());

  const run = (text: string) => sql.raw(text).execute(h.gateway.database.db);

  it('a resend in the process whose failed call still releases its lease finishes the interchange: the late release frees nothing', async () => {
    const self = h.gateway.instances.id;
    // The first take dies with the primary (57P01) in its slice; the resend's slice takes a second, the window in which
    // a release still pending used to land.
    await run(`create sequence race_orders_seq`);
    await run(`create function race_orders() returns trigger language plpgsql as $$ begin
      if nextval('race_orders_seq') = 1 then raise exception 'terminating connection due to administrator command' using errcode = '57P01'; end if;
      perform pg_sleep(1); return new; end $$`);
    await run(`create trigger race_orders before insert on orders for each row when (new.po_number = 'PO-RACE') execute function race_orders()`);
    // The lease's release is refused twice (the database still away), then goes through, 500 ms after the failure.
    await run(`create sequence race_release_seq`);
    await run(`create function race_release() returns trigger language plpgsql as $$ begin
      if old.lease_owner is not null and new.lease_owner is null and nextval('race_release_seq') <= 2 then
        raise exception 'the database system is starting up' using errcode = '57P03'; end if;
      return new; end $$`);
    await run(`create trigger race_release before update on edi_messages for each row execute function race_release()`);
    // The heartbeats stalled past the TTL while the primary was away: this process looks dead, to itself too.
    await sql`update gateway_instances set heartbeat_ms = 0 where id = ${self}`.execute(h.gateway.database.db);
    await run(`create function race_no_beat() returns trigger language plpgsql as $$ begin return null; end $$`);
    await run(`create trigger race_no_beat before update on gateway_instances for each row execute function race_no_beat()`);
    try {
      const text = interchange(171, 'PO-RACE');
      expectRetryLater(await submit(h, key, text));
      // The client's retry, at the same process, while the failed call's release is pending.
      const again = await submit(h, key, text);
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json()).toMatchObject({ status: 'accepted', documents: [{ po_number: 'PO-RACE', status: 'accepted' }] });
      const orders = await h.gateway.database.db.selectFrom('orders').select('id').where('po_number', '=', 'PO-RACE').execute();
      expect(orders).toHaveLength(1);
    } finally {
      await run(`drop trigger race_no_beat on gateway_instances; drop function race_no_beat()`);
      await run(`drop trigger race_release on edi_messages; drop function race_release(); drop sequence race_release_seq`);
      await run(`drop trigger race_orders on orders; drop function race_orders(); drop sequence race_orders_seq`);
    }
  });

  it('an interchange whose lease another process took over mid-take answers 503, and the retry gets the answer', async () => {
    const db = h.gateway.database.db;
    await run(`create function lost_slow() returns trigger language plpgsql as $$ begin perform pg_sleep(1); return new; end $$`);
    await run(`create trigger lost_slow before insert on orders for each row when (new.po_number = 'PO-LOST') execute function lost_slow()`);
    try {
      const text = interchange(172, 'PO-LOST');
      const first = submit(h, key, text);
      // Another process judged this one dead (its heartbeats stalled past the TTL) and took the interchange over.
      let messageId: string | undefined;
      await waitFor(
        async () => {
          const row = await db.selectFrom('edi_messages').select('id').where('control_number', '=', '000000172').where('lease_owner', '=', h.gateway.instances.id).executeTakeFirst();
          messageId = row?.id;
          return messageId !== undefined;
        },
        { what: 'the interchange claimed', timeoutMs: 5000, intervalMs: 20 },
      );
      await db.updateTable('edi_messages').set({ lease_owner: 'gateway-gone' }).where('id', '=', messageId as string).execute();
      expectRetryLater(await first);
      await run(`drop trigger lost_slow on orders`);
      // That process died in turn: the client's retry finishes the interchange, with one order.
      const again = await submit(h, key, text);
      expect(again.statusCode, again.body).toBe(200);
      expect(await db.selectFrom('orders').select('id').where('po_number', '=', 'PO-LOST').execute()).toHaveLength(1);
    } finally {
      await run(`drop trigger if exists lost_slow on orders; drop function lost_slow()`);
    }
  });

  it('a write whose Idempotency-Key another process took over mid-call answers 503 and commits nothing', async () => {
    const db = h.gateway.database.db;
    await seedCatalog(h, 'globex');
    const writer = (await h.key('globex', 'orders:read,orders:write')).key;
    await run(`create function lost_key_slow() returns trigger language plpgsql as $$ begin perform pg_sleep(1); return new; end $$`);
    await run(`create trigger lost_key_slow before insert on orders for each row when (new.po_number = 'PO-KEY-LOST') execute function lost_key_slow()`);
    try {
      const call = () => h.request({ method: 'POST', url: '/v1/orders', payload: orderPayload('PO-KEY-LOST'), key: writer, headers: { 'idempotency-key': 'key-lost-1' } });
      const first = call();
      await waitFor(async () => (await db.selectFrom('idempotency_keys').select('key').where('key', '=', 'key-lost-1').executeTakeFirst()) !== undefined, {
        what: 'the key claimed',
        timeoutMs: 5000,
        intervalMs: 20,
      });
      // Taken over by a process that then died before answering (its claim is stale: its owner beats nowhere).
      await db.updateTable('idempotency_keys').set({ owner_id: 'gateway-gone' }).where('key', '=', 'key-lost-1').execute();
      expectRetryLater(await first);
      expect(await db.selectFrom('orders').select('id').where('po_number', '=', 'PO-KEY-LOST').execute()).toHaveLength(0);
      await run(`drop trigger lost_key_slow on orders`);
      const again = await call();
      expect(again.statusCode, again.body).toBe(201);
    } finally {
      await run(`drop trigger if exists lost_key_slow on orders; drop function lost_key_slow()`);
    }
  });
});

