import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueDeliveries, PARTNER_DESTINATION } from '../../../src/platform/outbox/outbox.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';

const MINUTE = 60_000;

/** Two partner endpoints on one server, /a and /b: each answers 503 while it is down, 200 once it is up. */
async function startPartners(): Promise<{ url: string; down: Set<string>; received: string[]; server: Server }> {
  const down = new Set<string>();
  const received: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '';
      if (down.has(path)) {
        res.writeHead(503).end('down');
        return;
      }
      received.push(String(req.headers['idempotency-key']));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { url: `http://127.0.0.1:${address.port}`, down, received, server };
}

describe.each(dialects)('partner endpoints back after an outage (%s)', (dialect) => {
  let h: Harness;
  let partners: Awaited<ReturnType<typeof startPartners>>;

  beforeAll(async () => {
    partners = await startPartners();
    h = await startHarness(dialect);
  });
  afterAll(async () => {
    await h.close();
    await new Promise((resolve) => partners.server.close(resolve));
  });

  const drain = async () => {
    while ((await h.gateway.delivery.drainOnce()) > 0);
  };

  it('the endpoint that answers again gets its backlog at once; one still down keeps its backoff', async () => {
    const orgId = (await h.org('acme')).id;
    partners.down.add('/a').add('/b');
    const ids = { a: [] as string[], b: [] as string[] };
    // Documents queued during the outage in four groups, each failing from its round on, so each waits its own delay.
    for (let round = 0; round < 8; round++) {
      if (round < 4) {
        const inputs = (['a', 'b'] as const).flatMap((endpoint) =>
          Array.from({ length: 5 }, (_, i) => {
            const id = `dlv-${dialect}-${endpoint}-${round}-${i}`;
            ids[endpoint].push(id);
            return { orgId, destination: PARTNER_DESTINATION, target: `${partners.url}/${endpoint}`, type: 'edi.document', contentType: 'application/edi-x12', payload: `ISA*${id}~`, id, createdAt: h.clock.now().toISOString() };
          }),
        );
        await h.gateway.database.db.transaction().execute((tx) => enqueueDeliveries(tx, inputs));
      }
      h.clock.advance(10 * MINUTE);
      await drain();
    }
    const rows = (which: string[]) => h.gateway.database.db.selectFrom('outbox').select(['id', 'status', 'attempts', 'next_attempt_at']).where('id', 'in', which).execute();
    const waitingA = await rows(ids.a);
    const now = h.clock.now().toISOString();
    expect(waitingA.every((r) => r.status === 'queued' && r.next_attempt_at > now)).toBe(true);
    const dueA = waitingA.map((r) => r.next_attempt_at).sort();
    expect(dueA[0], 'rows wait different times').not.toBe(dueA[dueA.length - 1]);
    const bBefore = await rows(ids.b);

    // /a answers again; the clock moves to its first row's time only. /b is still down.
    partners.down.delete('/a');
    h.clock.set(dueA[0] ?? '');
    await drain();
    expect((await rows(ids.a)).filter((r) => r.status !== 'delivered')).toEqual([]);
    expect(new Set(partners.received)).toEqual(new Set(ids.a));
    // /b's rows were not pulled forward: those not due yet were not tried, and wait as they did.
    const notDue = bBefore.filter((r) => r.next_attempt_at > (dueA[0] ?? ''));
    expect(notDue.length, 'some of /b waits past the time /a came back').toBeGreaterThan(0);
    const bAfter = await rows(ids.b);
    expect(bAfter.filter((r) => notDue.some((n) => n.id === r.id))).toEqual(notDue);
    expect(bAfter.every((r) => r.status === 'queued')).toBe(true);
  });
});
