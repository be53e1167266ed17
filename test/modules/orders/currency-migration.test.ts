import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODULES } from '../../../src/modules/index.js';
import { migrateToLatest, migrationsOf } from '../../../src/platform/db/migrate.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import type { OrderBody } from './orders-support.js';

// The gateway as it was before orders had a currency: every migration (platform and modules) before 0030_orders_currency.
const CURRENCY = '0030_orders_currency';
const FROM_CURRENCY = Object.keys(migrationsOf(MODULES)).filter((name) => name >= CURRENCY);

describe.each(dialects)('0030_orders_currency on a database with orders (%s)', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(dialect, { migrateBefore: CURRENCY });
  });
  afterAll(() => h.close());

  it('gives the orders that exist USD, and they read back as decimal strings', async () => {
    const org = await h.org('acme');
    const db = h.gateway.database.db;
    const at = '2026-06-01T12:00:00.000Z';
    await sql`insert into orders (id, org_id, po_number, status, ship_to, notes, source, line_count, total_quantity, subtotal, last_event_id, created_at, updated_at)
      values (${'ord_old'}, ${org.id}, ${'PO-OLD'}, ${'submitted'}, ${'Dock 1'}, ${null}, ${'api'}, ${1}, ${4}, ${5199600}, ${'evt_old'}, ${at}, ${at})`.execute(db);
    await sql`insert into order_lines (order_id, line_no, org_id, sku, product_name, quantity, unit_price, line_total)
      values (${'ord_old'}, ${1}, ${org.id}, ${'TIRE-225'}, ${'Touring'}, ${4}, ${1299900}, ${5199600})`.execute(db);

    expect(FROM_CURRENCY[0]).toBe(CURRENCY);
    expect(await migrateToLatest(db, MODULES)).toEqual(FROM_CURRENCY);

    const { key } = await h.key('acme', 'orders:read');
    const res = await h.request({ method: 'GET', url: '/v1/orders/PO-OLD', key });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ order: OrderBody }>().order).toMatchObject({
      currency: 'USD',
      lines: [{ currency: 'USD', unit_price: '129.9900', line_total: '519.96' }],
      totals: { subtotal: '519.96' },
    });
  });
});
