import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../../src/platform/db/database.js';
import type { GroupCommitStats } from '../../../src/platform/db/sqlite-group-commit.js';
import { GROUP_COMMIT_MAX_MEMBERS } from '../../../src/platform/db/sqlite-dialect.js';
import { startHubSim, type HubSim } from '../../../src/sim/hub-sim.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { type OrderBody, orderPayload, seedCatalog } from '../../modules/orders/orders-support.js';
import { expectError } from '../../support/auth-checks.js';
import { waitFor } from '../../support/wait-for.js';
import { childEnv, requireBuild, startServe } from '../outbox/process-support.js';

const TIRE = { sku: 'tire-225', quantity: 4, unit_price: '129.99' };

describe.each(dialects)('writes that arrive together (%s)', (dialect) => {
  let h: Harness;
  let hub: HubSim;
  let key: string;

  beforeAll(async () => {
    hub = await startHubSim();
    h = await startHarness(dialect, { env: { HUB_URL: hub.url, HUB_TIMEOUT_MS: '3000' } });
    await seedCatalog(h, 'acme');
    key = (await h.key('acme', 'orders:read,orders:write')).key;
  });
  afterAll(async () => {
    await h.close();
    await hub.close();
  });

  const post = (payload: object, headers: Record<string, string> = {}) => h.request({ method: 'POST', url: '/v1/orders', payload, key, headers });
  const orderCount = async (po: string) =>
    Number((await h.gateway.database.db.selectFrom('orders').select((eb) => eb.fn.countAll<number>().as('n')).where('po_number', '=', po).executeTakeFirstOrThrow()).n);

  it('each gets its own answer: a conflicting or invalid order fails alone, its neighbours are committed', async () => {
    const before = { ...h.gateway.database.groupCommit };
    // 30 new orders, 10 that repeat one of them (the same PO in the same burst), 5 with a SKU that does not exist.
    const fresh = Array.from({ length: 30 }, (_, i) => orderPayload(`GC-${i}`, [TIRE]));
    const repeats = Array.from({ length: 10 }, (_, i) => orderPayload(`GC-${i * 3}`, [{ ...TIRE, quantity: 1 }]));
    const invalid = Array.from({ length: 5 }, (_, i) => orderPayload(`GC-BAD-${i}`, [{ sku: 'no-such-sku', quantity: 1, unit_price: '1' }]));
    const burst = [...fresh, ...repeats, ...invalid].map((payload, i) => ({ payload, i }));
    // Interleaved, so failures sit between successes in the same batch.
    burst.sort((a, b) => (a.i % 7) - (b.i % 7) || a.i - b.i);
    const answers = await Promise.all(burst.map(async ({ payload }) => ({ po: payload.po_number, res: await post(payload) })));

    for (let i = 0; i < 30; i++) {
      const po = `GC-${i}`;
      const mine = answers.filter((a) => a.po === po);
      const created = mine.filter((a) => a.res.statusCode === 201);
      expect(created, po).toHaveLength(1);
      for (const other of mine.filter((a) => a.res.statusCode !== 201)) {
        expectError(other.res, 409, 'already_exists');
      }
      expect(await orderCount(po), po).toBe(1);
      const stored = await h.request({ method: 'GET', url: `/v1/orders/${po}`, key });
      expect(stored.statusCode).toBe(200);
      const order = stored.json<{ order: OrderBody }>().order;
      expect(order.id).toBe(created[0]?.res.json<{ order: OrderBody }>().order.id);
      expect(order.lines).toHaveLength(1);
      expect(order.lines[0]?.quantity).toBe(created[0]?.res.json<{ order: OrderBody }>().order.lines[0]?.quantity);
    }
    for (const bad of answers.filter((a) => a.po.startsWith('GC-BAD-'))) {
      expect(bad.res.statusCode, bad.res.body).toBeGreaterThanOrEqual(400);
      expect(bad.res.statusCode).toBeLessThan(500);
      expect(await orderCount(bad.po)).toBe(0);
    }
    // Every committed order's event reached the hub, and no rolled-back one.
    const deliveredPos = () =>
      hub
        .events()
        .filter((e) => e.type === 'order.created')
        .map((e) => (e.data as { po_number: string }).po_number)
        .filter((po) => /^GC-\d+$/.test(po))
        .sort();
    await waitFor(() => deliveredPos().length >= 30, { what: 'the orders at the hub' });
    expect(deliveredPos()).toEqual(fresh.map((p) => p.po_number).sort());

    if (dialect === 'sqlite') {
      const after = h.gateway.database.groupCommit;
      if (!after) throw new Error('SQLite reports its group commits');
      const commits = after.commits - (before.commits ?? 0);
      const members = after.members - (before.members ?? 0);
      // 30 orders committed in fewer commits than orders: requests that arrived together shared a commit.
      expect(members).toBeGreaterThanOrEqual(30);
      expect(commits).toBeLessThan(30);
    }
  });

  it('reports its commits and the transactions they held on /metrics (SQLite), and nothing of the kind on PostgreSQL', async () => {
    const scrape = async () => {
      const text = (await h.request({ method: 'GET', url: '/metrics' })).body;
      const value = (name: string) => /^(\S+) (\d+)/m.exec(text.split('\n').filter((l) => l.startsWith(`${name} `)).join('\n'))?.[2];
      return { commits: value('gateway_sqlite_commits_total'), transactions: value('gateway_sqlite_committed_transactions_total') };
    };
    const before = await scrape();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => post(orderPayload(`GC-M-${i}`, [TIRE]))));
    for (const res of answers) expect(res.statusCode, res.body).toBe(201);
    const after = await scrape();
    if (dialect === 'postgres') {
      expect(after).toEqual({ commits: undefined, transactions: undefined });
      return;
    }
    const commits = Number(after.commits) - Number(before.commits);
    const transactions = Number(after.transactions) - Number(before.transactions);
    expect(commits).toBeGreaterThanOrEqual(1);
    expect(commits).toBeLessThan(10);
    expect(transactions).toBeGreaterThanOrEqual(10);
    expect(after).toEqual({ commits: String(h.gateway.database.groupCommit?.commits), transactions: String(h.gateway.database.groupCommit?.members) });
  });

  it('an Idempotency-Key used by several requests of one batch creates one order; other keys in the batch create theirs', async () => {
    const payload = orderPayload('GC-IDEM-1', [TIRE]);
    const same = Array.from({ length: 8 }, () => post(payload, { 'idempotency-key': 'gc-same-key' }));
    const others = Array.from({ length: 5 }, (_, i) => post(orderPayload(`GC-IDEM-OTHER-${i}`, [TIRE]), { 'idempotency-key': `gc-other-${i}` }));
    const [sameAnswers, otherAnswers] = await Promise.all([Promise.all(same), Promise.all(others)]);

    expect(await orderCount('GC-IDEM-1')).toBe(1);
    const created = sameAnswers.filter((r) => r.statusCode === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.json<{ order: OrderBody }>().order.id)).size).toBe(1);
    expect(created.filter((r) => r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    for (const r of sameAnswers.filter((a) => a.statusCode !== 201)) {
      expectError(r, 409, 'idempotency_in_flight');
    }
    for (const [i, r] of otherAnswers.entries()) {
      expect(r.statusCode, r.body).toBe(201);
      expect(await orderCount(`GC-IDEM-OTHER-${i}`)).toBe(1);
    }
    // Afterwards the key replays the one order.
    const replay = await post(payload, { 'idempotency-key': 'gc-same-key' });
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json<{ order: OrderBody }>().order.id).toBe(created[0]?.json<{ order: OrderBody }>().order.id);
  });

  it('a serve process killed (SIGKILL) while batches are in flight has kept every order it answered 201', { timeout: 120_000 }, async () => {
    requireBuild();
    const serve = await startServe(childEnv(h, { HUB_URL: hub.url }));
    const answered: string[] = [];
    let failed = 0;
    let sent = 0;
    let killed = false;
    // Eight clients keep posting until the process dies; it is killed once 150 orders were answered.
    const client = async (c: number) => {
      for (let n = 0; !killed || n === 0; n++) {
        const po = `GC-KILL-${c}-${n}`;
        sent++;
        try {
          const res = await fetch(`${serve.url}/v1/orders`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
            body: JSON.stringify(orderPayload(po, [TIRE])),
          });
          if (res.status === 201) answered.push(po);
          else expect(res.status, await res.text()).toBe(201);
        } catch {
          failed++;
          return;
        }
      }
    };
    const clients = Array.from({ length: 8 }, (_, c) => client(c));
    while (answered.length < 150) await new Promise((r) => setTimeout(r, 5));
    killed = true;
    await serve.kill('SIGKILL');
    await Promise.all(clients);

    // Requests were in flight when it died, and every 201 is in the database (read by this process, after the crash).
    expect(failed).toBeGreaterThan(0);
    expect(sent).toBeGreaterThan(answered.length);
    const stored = await h.gateway.database.db.selectFrom('orders').select('po_number').where('po_number', 'like', 'GC-KILL-%').execute();
    const kept = new Set(stored.map((r) => r.po_number));
    expect(answered.filter((po) => !kept.has(po))).toEqual([]);
  });
});

function stats(handle: DatabaseHandle): GroupCommitStats {
  if (!handle.groupCommit) throw new Error('SQLite reports its group commits');
  return handle.groupCommit;
}

describe('group commit on SQLite, under the HTTP layer', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-gc-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('rolls back a failing transaction alone, even after it wrote; the rest of its batch commits', async () => {
    const handle = openDatabase(`sqlite:${join(dir, 'a.sqlite')}`);
    const db = handle.db.withTables<{ t: { n: number; note: string } }>();
    await sql`create table t (n integer primary key, note text not null)`.execute(db);
    const before = { ...stats(handle) };
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, n) =>
        db.transaction().execute(async (tx) => {
          await tx.insertInto('t').values({ n, note: 'first' }).execute();
          await tx.updateTable('t').set({ note: 'second' }).where('n', '=', n).execute();
          if (n % 4 === 0) throw new Error(`member ${n} fails after writing`);
          // A constraint error inside a member is that member's alone too.
          if (n % 4 === 1) await tx.insertInto('t').values({ n, note: 'duplicate' }).execute();
          return n;
        }),
      ),
    );
    const kept = (await db.selectFrom('t').select(['n', 'note']).orderBy('n').execute()).map((r) => `${r.n}:${r.note}`);
    expect(kept).toEqual(Array.from({ length: 20 }, (_, n) => n).filter((n) => n % 4 > 1).map((n) => `${n}:second`));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    const after = stats(handle);
    expect(after.members - before.members).toBe(20);
    expect(after.commits - before.commits).toBe(1);
    await handle.close();
  });

  it('bounds a batch at GROUP_COMMIT_MAX_MEMBERS transactions', async () => {
    const handle = openDatabase(`sqlite:${join(dir, 'b.sqlite')}`);
    const db = handle.db.withTables<{ t: { n: number } }>();
    await sql`create table t (n integer primary key)`.execute(db);
    const before = { ...stats(handle) };
    const total = GROUP_COMMIT_MAX_MEMBERS * 2 + 1;
    await Promise.all(Array.from({ length: total }, (_, n) => db.transaction().execute((tx) => tx.insertInto('t').values({ n }).execute())));
    expect(stats(handle).commits - before.commits).toBe(3);
    expect(Number((await db.selectFrom('t').select((eb) => eb.fn.countAll<number>().as('c')).executeTakeFirstOrThrow()).c)).toBe(total);
    await handle.close();
  });

  it('a read outside a transaction sees what this process committed, and never what a batch holds before its commit', async () => {
    const handle = openDatabase(`sqlite:${join(dir, 'c.sqlite')}`);
    const db = handle.db.withTables<{ t: { n: number } }>();
    await sql`create table t (n integer primary key)`.execute(db);
    const count = async () => Number((await db.selectFrom('t').select((eb) => eb.fn.countAll<number>().as('c')).executeTakeFirstOrThrow()).c);
    expect(await count()).toBe(0);
    let seenInside = -1;
    await db.transaction().execute(async (tx) => {
      await tx.insertInto('t').values({ n: 1 }).execute();
      // Same turn, outside the transaction: the uncommitted row is not visible.
      seenInside = await count();
    });
    expect(seenInside).toBe(0);
    // The commit has returned: the next read, still in this turn, sees it.
    expect(await count()).toBe(1);
    await handle.close();
  });
});
