import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODULES } from '../../../src/modules/index.js';
import { migrateToLatest } from '../../../src/platform/db/migrate.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { type Receiver, startReceiver } from './receiver.js';

// Before 0047 a pending fan-out was an outbox row (`webhook_fanout`, one per event); 0047 moves it into its event's row.
const FANOUT_COLUMN = '0047_webhooks_event_fanout';

describe.each(dialects)('0047_webhooks_event_fanout on a database with fan-outs queued (%s)', (dialect) => {
  let h: Harness;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    h = await startHarness(dialect, { migrateBefore: FANOUT_COLUMN, env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
  });
  afterAll(async () => {
    await h?.close();
    await receiver?.stop();
  });

  it('delivers the events whose fan-out rows were queued or in flight before it, once each, and leaves delivered ones alone', async () => {
    const org = await h.org('acme');
    const { key } = await h.key('acme', 'all');
    const res = await h.request({ method: 'POST', url: '/v1/webhook-endpoints', key, payload: { url: receiver.url, event_types: ['*'] } });
    expect(res.statusCode, res.body).toBe(201);
    const endpoint = res.json<{ endpoint: { id: string } }>().endpoint.id;
    const db = h.gateway.database.db;
    // As the build before 0047 wrote them: events without `fanout`, each fan-out an outbox row; one was being taken by a
    // process that died, one was fanned out already.
    const at = '2026-11-28T10:00:00.000Z';
    const lease = '2026-11-28T10:01:00.000Z';
    for (const [n, status] of [[1, 'queued'], [2, 'delivering'], [3, 'delivered']] as const) {
      const eventId = `evt_old${n}`;
      const body = JSON.stringify({ id: eventId, type: 'order.created', created_at: at, data: { n } });
      await sql`insert into webhook_events (id, org_id, type, created_at, body) values (${eventId}, ${org.id}, ${'order.created'}, ${at}, ${body})`.execute(db);
      const payload = JSON.stringify({ event_id: eventId, created_at: at, endpoint_ids: [endpoint] });
      const leased = status === 'delivering';
      await sql`insert into outbox (id, org_id, destination, target, type, content_type, payload, status, attempts, next_attempt_at, lease_owner, lease_until, last_error, created_at, delivered_at)
        values (${`whf_old${n}`}, ${org.id}, ${'webhook_fanout'}, ${null}, ${'order.created'}, ${'application/json'}, ${payload}, ${status}, ${leased ? 1 : 0}, ${leased ? lease : at},
          ${leased ? 'dead:1' : null}, ${leased ? lease : null}, ${null}, ${at}, ${status === 'delivered' ? at : null})`.execute(db);
    }

    expect(await migrateToLatest(db, MODULES)).toEqual([FANOUT_COLUMN]);

    const left = await sql<{ id: string; status: string }>`select id, status from outbox where destination = 'webhook_fanout' order by id`.execute(db);
    expect(left.rows).toEqual([{ id: 'whf_old3', status: 'delivered' }]);
    for (let i = 0; i < 20 && (await h.gateway.delivery.drainOnce()) > 0; i++);
    expect(receiver.received.map((r) => r.headers['webhook-id']).sort()).toEqual(['evt_old1', 'evt_old2']);
    expect(receiver.received.map((r) => (JSON.parse(r.body) as { data: { n: number } }).data.n).sort()).toEqual([1, 2]);
    const pending = await sql<{ id: string }>`select id from webhook_events where fanout is not null`.execute(db);
    expect(pending.rows).toEqual([]);
  });
});
