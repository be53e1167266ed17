import type { Harness } from '../../support/harness.js';

export interface OrderBody {
  id: string;
  po_number: string;
  status: string;
  ship_to: string;
  notes: string | null;
  source: string;
  currency: string;
  lines: { line_no: number; sku: string; product_name: string; quantity: number; currency: string; unit_price: string; line_total: string }[];
  totals: { line_count: number; total_quantity: number; subtotal: string };
  created_at: string;
  updated_at: string;
  delivery: { status: string; attempts: number; last_error: string | null };
}

/** The catalog the order tests order from: two active tires and an inactive one. */
export async function seedCatalog(h: Harness, orgSlug: string): Promise<void> {
  const { key } = await h.key(orgSlug, 'products:write');
  const products = [
    { sku: 'TIRE-225', name: 'Touring 225/45R17' },
    { sku: 'Tire-Mud', name: 'Mud Terrain 265/70R17' },
    { sku: 'OLD-1', name: 'Discontinued tread', status: 'inactive' },
  ];
  for (const payload of products) {
    const res = await h.request({ method: 'POST', url: '/v1/products', payload, key });
    if (res.statusCode !== 201) throw new Error(`seeding ${payload.sku}: ${res.body}`);
  }
}

export function orderPayload(po: string, lines: { sku: string; quantity: number; unit_price: string }[] = [{ sku: 'tire-225', quantity: 4, unit_price: '129.99' }]) {
  return { po_number: po, ship_to: 'Dealer 12, 1 Main St, Springfield', lines };
}
