import { randomUUID } from 'node:crypto';
import { readEdiFixture, seedEdiCatalog, seedPartners } from '../modules/edi/edi-support.js';
import { fitments } from '../modules/objects/fixtures.js';
import type { Harness } from '../support/harness.js';
import type { Call } from '../support/operations.js';

/** Every static scope plus the fitments object's: the key fixtures seed with. */
const SEED_SCOPES = 'all,objects:fitments:read,objects:fitments:write';

/**
 * For every operation: seeds what a successful call needs in `org` and returns that call. Each call is fresh (new SKU,
 * new PO number), so a fixture can be called again for a second success. The security and parity suites run over the
 * operation list and fail on an operation with no fixture here.
 */
export type Fixture = (h: Harness, org: string) => Promise<Call>;

const seeded = new WeakMap<Harness, Map<string, Promise<string>>>();
const unique = () => randomUUID().slice(0, 8).toUpperCase();

/** Seeds an org once per harness (catalog, partners, the fitments object) and returns a key with every scope. */
export function seedOrg(h: Harness, org: string): Promise<string> {
  let orgs = seeded.get(h);
  if (!orgs) seeded.set(h, (orgs = new Map<string, Promise<string>>()));
  let done = orgs.get(org);
  if (!done) {
    done = (async () => {
      await seedEdiCatalog(h, org);
      await h.gateway.services.objects.define(org, fitments);
      return (await h.key(org, SEED_SCOPES)).key;
    })();
    orgs.set(org, done);
  }
  return done;
}

async function post(h: Harness, key: string, url: string, payload: unknown): Promise<Record<string, unknown>> {
  const res = await h.request({ method: 'POST', url, payload: payload as object, key });
  if (res.statusCode >= 300) throw new Error(`seeding ${url}: ${res.body}`);
  return res.json();
}

async function newProduct(h: Harness, org: string): Promise<string> {
  const sku = `FX-${unique()}`;
  await post(h, await seedOrg(h, org), '/v1/products', { sku, name: 'Fixture tire', stock_qty: 12 });
  return sku;
}

const orderBody = (po: string) => ({ po_number: po, ship_to: 'Dealer 12, 1 Main St, Springfield', lines: [{ sku: 'TIRE-225', quantity: 4, unit_price: '129.99' }] });

async function newOrder(h: Harness, org: string): Promise<string> {
  const po = `PO-${unique()}`;
  await post(h, await seedOrg(h, org), '/v1/orders', orderBody(po));
  return po;
}

const claimBody = () => ({ sku: 'TIRE-225', dot_number: 'DOT U2LL LMLR 5107', quantity: 1, description: 'Sidewall bulge after 2,000 km' });

async function newClaim(h: Harness, org: string): Promise<string> {
  const res = await post(h, await seedOrg(h, org), '/v1/warranty-claims', claimBody());
  return (res.claim as { id: string }).id;
}

/** The org's trading partners (BuyerCo and DealerNet), seeded the first time: their ids. */
async function partnerIds(h: Harness, org: string): Promise<string[]> {
  await seedOrg(h, org);
  if ((await h.gateway.services.ediPartners.list(org)).length === 0) await seedPartners(h, org);
  return (await h.gateway.services.ediPartners.list(org)).map((p) => p.id);
}

/** A unique interchange: the 850 fixture with a fresh ISA13 and PO number. */
async function newInterchange(h: Harness, org: string): Promise<string> {
  await partnerIds(h, org);
  const control = String(Math.floor(Math.random() * 900_000_000) + 100_000_000);
  return readEdiFixture('po-4010-single.x12').replaceAll('000000101', control).replace(/BEG\*00\*SA\*[^*]+/, `BEG*00*SA*PO-${unique()}`);
}

async function newMessage(h: Harness, org: string): Promise<string> {
  const key = await seedOrg(h, org);
  const res = await h.request({ method: 'POST', url: '/v1/edi', payload: await newInterchange(h, org), headers: { 'content-type': 'text/plain' }, key });
  if (res.statusCode !== 200) throw new Error(`seeding an EDI message: ${res.body}`);
  return res.json<{ message_id: string }>().message_id;
}

let connects = 0;
/** A client address per connect, so fixtures never meet POST /connect's per-IP limit. */
const nextClientIp = () => `10.77.${Math.floor(++connects / 250) % 250}.${(connects % 250) + 1}`;

/** A connection made the way a fleet makes one: a connect token, then POST /connect against the harness's vendor simulator. */
export async function newConnection(h: Harness, org: string, provider: 'vendor13' | 'vendor1_livelink' = 'vendor13'): Promise<string> {
  await seedOrg(h, org);
  const { connect_token } = await h.gateway.services.connectTokens.issue({ org });
  const credentials = provider === 'vendor13' ? { api_key: 'fixture-key-0001' } : { username: 'fleet@fixture.example', password: 'fixture-pass' };
  const res = await h.request({ method: 'POST', url: '/connect', payload: { connect_token, provider, credentials }, remoteAddress: nextClientIp() });
  if (res.statusCode !== 200) throw new Error(`connect fixture: ${res.body}`);
  return res.json<{ connection_id: string }>().connection_id;
}

/** A queued replay sync of a new ISO connection of `org`: its connection and sync ids. */
async function newSync(h: Harness, org: string): Promise<{ connection_id: string; sync_id: string }> {
  const connectionId = await newConnection(h, org, 'vendor1_livelink');
  const orgId = (await h.gateway.services.orgs.bySlug(org)).id;
  const to = h.clock.now();
  const window = { from: new Date(to.getTime() - 6 * 3600_000), to };
  const sync = await h.gateway.database.db.transaction().execute((tx) => h.gateway.services.syncs.create(tx, orgId, connectionId, window));
  return { connection_id: connectionId, sync_id: sync.id };
}

/** A public https URL (a documentation address: nothing answers there), so no fixture call reaches out. */
const WEBHOOK_URL = 'https://203.0.113.10/hooks';

/** A webhook endpoint of `org`, disabled so nothing is ever sent to its URL; returns its id. */
async function newEndpoint(h: Harness, org: string): Promise<string> {
  const key = await seedOrg(h, org);
  const id = ((await post(h, key, '/v1/webhook-endpoints', { url: WEBHOOK_URL, event_types: ['*'] })).endpoint as { id: string }).id;
  const res = await h.request({ method: 'PATCH', url: `/v1/webhook-endpoints/${id}`, payload: { enabled: false }, key });
  if (res.statusCode !== 200) throw new Error(`disabling a webhook endpoint: ${res.body}`);
  return id;
}

/** A pending delivery (a test event, not yet sent) of a new endpoint of `org`. */
async function newWebhookDelivery(h: Harness, org: string): Promise<{ endpoint_id: string; delivery_id: string }> {
  const endpointId = await newEndpoint(h, org);
  const res = await h.request({ method: 'POST', url: `/v1/webhook-endpoints/${endpointId}/test`, key: await seedOrg(h, org) });
  if (res.statusCode !== 202) throw new Error(`a webhook test event: ${res.body}`);
  return { endpoint_id: endpointId, delivery_id: res.json<{ delivery: { id: string } }>().delivery.id };
}

/** An event of `org` (an inventory report's), as the events API lists it. */
async function newEvent(h: Harness, org: string): Promise<string> {
  const res = await post(h, await seedOrg(h, org), '/v1/inventory', { rows: [{ sku: 'TIRE-225', qty: 5 }] });
  return res.delivery_id as string;
}

export const FIXTURES: Record<string, Fixture> = {
  products_list: async (h, org) => (await newProduct(h, org), { query: { limit: '5' } }),
  products_get: async (h, org) => ({ params: { sku: await newProduct(h, org) } }),
  products_create: () => Promise.resolve({ body: { sku: `NEW-${unique()}`, name: 'New tire', stock_qty: 3 } }),
  products_update: async (h, org) => ({ params: { sku: await newProduct(h, org) }, body: { stock_qty: 2 } }),

  orders_list: async (h, org) => (await newOrder(h, org), { query: { limit: '5' } }),
  orders_get: async (h, org) => ({ params: { id_or_po_number: await newOrder(h, org) } }),
  orders_create: async (h, org) => (await seedOrg(h, org), { body: orderBody(`PO-${unique()}`) }),
  orders_ack: async (h, org) => ({ params: { id_or_po_number: await newOrder(h, org) } }),
  orders_set_status: async (h, org) => ({ params: { id_or_po_number: await newOrder(h, org) }, body: { status: 'confirmed' } }),

  inventory_update: async (h, org) => ({ body: { rows: [{ sku: await newProduct(h, org), qty: 7 }] } }),

  warranty_claims_list: async (h, org) => (await newClaim(h, org), { query: { limit: '5' } }),
  warranty_claims_get: async (h, org) => ({ params: { id_or_number: await newClaim(h, org) } }),
  warranty_claims_create: async (h, org) => (await seedOrg(h, org), { body: claimBody() }),
  warranty_claims_update: async (h, org) => ({ params: { id_or_number: await newClaim(h, org) }, body: { status: 'under_review' } }),

  objects_list_definitions: async (h, org) => (await seedOrg(h, org), { scope: 'objects:fitments:read' }),
  objects_query: async (h, org) => {
    await seedOrg(h, org);
    return { params: { object: 'fitments' }, query: { make: 'Toyota' }, mcpArgs: { object: 'fitments', filters: { make: 'Toyota' } }, scope: 'objects:fitments:read' };
  },
  objects_write: async (h, org) => {
    await seedOrg(h, org);
    const rows = [{ fitment_id: `F-${unique()}`, make: 'Toyota', year: 2021 }];
    return { params: { object: 'fitments' }, body: { rows }, scope: 'objects:fitments:write' };
  },

  telematics_connections_list: async (h, org) => (await newConnection(h, org), { query: { limit: '5' } }),
  telematics_connections_get: async (h, org) => ({ params: { connection_id: await newConnection(h, org) } }),
  telematics_connections_run: async (h, org) => ({ params: { connection_id: await newConnection(h, org) } }),
  telematics_connections_disconnect: async (h, org) => ({ params: { connection_id: await newConnection(h, org) } }),
  telematics_connections_replay: async (h, org) => ({
    params: { connection_id: await newConnection(h, org, 'vendor1_livelink') },
    body: { from: new Date(h.clock.now().getTime() - 6 * 3600_000).toISOString(), to: h.clock.now().toISOString() },
  }),

  telematics_syncs_list: async (h, org) => ({ params: { connection_id: (await newSync(h, org)).connection_id }, query: { limit: '5' } }),
  telematics_syncs_get: async (h, org) => ({ params: await newSync(h, org) }),
  telematics_syncs_cancel: async (h, org) => ({ params: await newSync(h, org) }),

  // A rare type, so the endpoint the create fixture leaves behind is hardly ever sent anything.
  webhook_endpoints_create: async (h, org) => (await seedOrg(h, org), { body: { url: WEBHOOK_URL, event_types: ['telematics.sync.failed'], description: 'Fixture' } }),
  webhook_endpoints_list: async (h, org) => (await newEndpoint(h, org), { query: { limit: '5' } }),
  webhook_endpoints_get: async (h, org) => ({ params: { endpoint_id: await newEndpoint(h, org) } }),
  webhook_endpoints_update: async (h, org) => ({ params: { endpoint_id: await newEndpoint(h, org) }, body: { description: 'Updated' } }),
  webhook_endpoints_delete: async (h, org) => ({ params: { endpoint_id: await newEndpoint(h, org) } }),
  webhook_endpoints_rotate_secret: async (h, org) => ({ params: { endpoint_id: await newEndpoint(h, org) } }),
  webhook_endpoints_test: async (h, org) => ({ params: { endpoint_id: await newEndpoint(h, org) } }),
  webhook_deliveries_list: async (h, org) => ({ params: { endpoint_id: (await newWebhookDelivery(h, org)).endpoint_id }, query: { limit: '5' } }),
  webhook_deliveries_retry: async (h, org) => ({ params: await newWebhookDelivery(h, org) }),
  events_list: async (h, org) => (await newEvent(h, org), { query: { limit: '5' } }),
  events_get: async (h, org) => ({ params: { event_id: await newEvent(h, org) } }),
  webhook_event_types_list: async (h, org) => (await seedOrg(h, org), {}),

  edi_submit: async (h, org) => ({ body: await newInterchange(h, org) }),
  edi_messages_list: async (h, org) => (await newMessage(h, org), { query: { limit: '5' } }),
  edi_messages_get: async (h, org) => ({ params: { id: await newMessage(h, org) } }),
  edi_partners_list: async (h, org) => (await partnerIds(h, org), { query: { limit: '1' } }),
  edi_partners_get: async (h, org) => ({ params: { id: (await partnerIds(h, org))[0] ?? 'tp_none' } }),
};


/** The dealer page portal fixtures call from: the one origin their keys list. */
export const PORTAL_ORIGIN = 'https://dealer.fixture.example';

const portalKeys = new WeakMap<Harness, Map<string, Promise<string>>>();

/** A portal key of `org` (seeded), listing PORTAL_ORIGIN: one per harness and org. */
export function portalKeyOf(h: Harness, org: string): Promise<string> {
  let orgs = portalKeys.get(h);
  if (!orgs) portalKeys.set(h, (orgs = new Map<string, Promise<string>>()));
  let key = orgs.get(org);
  if (!key) {
    key = (async () => {
      await seedOrg(h, org);
      return (await h.gateway.services.portalKeys.create({ org, dealer: 'Fixture dealer', origins: [PORTAL_ORIGIN] })).key;
    })();
    orgs.set(org, key);
  }
  return key;
}

const customerClaim = () => ({ description: 'Tread separation', sku: 'TIRE-225', customer_ref: `INV-${unique()}`, contact_email: 'driver@fixture.example' });

/** A claim filed through the org's portal key; returns what looks it up. */
async function newPortalClaim(h: Harness, org: string): Promise<{ number: string; ref: string }> {
  const body = customerClaim();
  const res = await h.request({
    method: 'POST',
    url: '/api/portal/v1/warranty-claims',
    payload: body,
    headers: { 'x-portal-key': await portalKeyOf(h, org), origin: PORTAL_ORIGIN },
    remoteAddress: nextClientIp(),
  });
  if (res.statusCode !== 201) throw new Error(`portal claim fixture: ${res.body}`);
  return { number: res.json<{ claim_number: string }>().claim_number, ref: body.customer_ref };
}

/** For every portal operation: a successful call with the org's portal key (the security suite checks the door over them). */
export const PORTAL_FIXTURES: Record<string, Fixture> = {
  portal_products_list: async (h, org) => (await newProduct(h, org), { query: { limit: '5' } }),
  portal_products_get: async (h, org) => ({ params: { sku: await newProduct(h, org) } }),
  portal_availability_check: async (h, org) => ({ query: { skus: `${await newProduct(h, org)},NO-SUCH-SKU` } }),
  portal_warranty_claims_create: async (h, org) => (await seedOrg(h, org), { body: customerClaim() }),
  portal_warranty_claims_status: async (h, org) => {
    const { number, ref } = await newPortalClaim(h, org);
    return { params: { claim_number: number }, query: { customer_ref: ref } };
  },
};
