import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { buildApp } from '../app.js';
import { loadConfig, StartupError } from '../config.js';
import { createGateway, type Gateway } from '../gateway.js';
import { type HubSim, startHubSim } from '../sim/hub-sim.js';
import { startVendorSim, type VendorSim } from '../sim/vendor-sim.js';
import { startWebhookReceiverSim, type VerifiedDelivery, type WebhookReceiverSim } from '../sim/webhook-receiver-sim.js';
import { CLI_ACTOR } from '../platform/core/actor.js';

/** Written into the demo's data folder: only a folder holding it is ever wiped by the next run. */
const MARKER = 'DEMO-DATA';
const ORG = 'demo';
const PARTNER_ISA = 'ZZ/DEMOBUYER';
const OUR_ISA = 'ZZ/TIREGATEWAY';
const PROVIDER = 'vendor1_livelink';

const CATALOG = [
  { sku: 'MICH-225-45R17', name: 'Pilot Sport 4 225/45R17', description: 'Summer performance tire', stock_qty: 48, bin_location: 'A-01-03' },
  { sku: 'CONT-205-55R16', name: 'WinterContact TS 870 205/55R16', description: 'Winter tire', stock_qty: 6, bin_location: 'A-02-01' },
  { sku: 'BRID-265-70R17', name: 'Dueler A/T 265/70R17', description: 'All-terrain light truck tire', stock_qty: 20, bin_location: 'B-04-02' },
  { sku: 'GOOD-315-80R22.5', name: 'Fuel Max 315/80R22.5', description: 'Long-haul truck drive tire', stock_qty: 0, bin_location: 'C-01-01' },
  { sku: 'VALVE-KIT', name: 'Valve stem kit', description: 'Rubber snap-in valve stems, 4 pack', stock_qty: 300, bin_location: 'D-00-07' },
];

const FITMENTS = {
  key: 'fitments',
  label: 'Vehicle fitments',
  read_scope: 'objects:fitments:read',
  write_scope: 'objects:fitments:write',
  key_field: 'fitment_id',
  fields: [
    { name: 'fitment_id', type: 'string', required: true, max_length: 32 },
    { name: 'make', type: 'string', required: true, filterable: true, max_length: 40 },
    { name: 'model', type: 'string', max_length: 40 },
    { name: 'year', type: 'integer', min: 1950, max: 2100, filterable: true },
    { name: 'sku', type: 'string', filterable: true, max_length: 64 },
    { name: 'season', type: 'enum', enum_values: ['summer', 'winter', 'all_season'], filterable: true },
  ],
};

/** A small 004010 850 from the demo partner; fixed ISA13, so posting it again returns the stored answer. */
const PO_850 = [
  'ISA*00*          *00*          *ZZ*DEMOBUYER      *ZZ*TIREGATEWAY    *260601*1200*U*00401*000000001*0*P*>',
  'GS*PO*DEMOBUYER*TIREGW*20260601*1200*1*X*004010',
  'ST*850*0001',
  'BEG*00*SA*PO-EDI-1001**20260601',
  'N1*ST*SPRINGFIELD TIRE*92*STORE1',
  'N3*100 Main St',
  'N4*Springfield*IL*62701*US',
  'PO1*1*4*EA*129.99**VP*MICH-225-45R17',
  'PO1*2*1*EA*25.5**VP*VALVE-KIT',
  'CTT*2',
  'SE*9*0001',
  'GE*1*1',
  'IEA*1*000000001',
].map((segment) => `${segment}~\n`).join('');

export interface DemoOptions {
  port: number;
  host: string;
  dataDir: string;
  /** Print the keys and URLs as one JSON object instead of the banner. */
  json?: boolean;
}

/** A port the OS says is free: the gateway's origin goes into its config before it listens. */
async function freePort(host: string): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolvePort(addr.port) : reject(new Error('no free port'))));
    });
  });
}

/** A fresh data folder each run; refuses to wipe a folder the demo did not make. */
function freshDataDir(dir: string): void {
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    if (!existsSync(join(dir, MARKER))) throw new StartupError(`${dir} is not empty and not a demo data folder; pick another with --data-dir`);
    rmSync(dir, { recursive: true, force: true });
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, MARKER), 'Made by `gateway demo`; the next run deletes this folder.\n');
}

/** One JSON call to the running gateway, as a user's client makes it; anything but 2xx stops the demo with the answer. */
async function call(base: string, method: string, path: string, body: unknown, headers: Record<string, string>): Promise<Record<string, unknown>> {
  const contentType: Record<string, string> = body === undefined ? {} : { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' };
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...contentType, ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new StartupError(`demo set-up: ${method} ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

interface Seeded {
  key: string;
  portalKey: string;
  connectionId: string;
  orgId: string;
}

/** The demo org, set up as an operator would: the CLI's services for org, key, partner and object; HTTP for the rest. */
async function seed(gw: Gateway, base: string, adminToken: string): Promise<Seeded> {
  const org = await gw.services.orgs.create(ORG, 'Demo Tire Co', CLI_ACTOR);
  const { key } = await gw.services.apiKeys.create({ orgSlug: ORG, scopes: 'all,objects:fitments:read,objects:fitments:write', name: 'demo' }, CLI_ACTOR);
  await gw.services.ediPartners.create({ org: ORG, name: 'Demo Buyer', isa: PARTNER_ISA, ourIsa: OUR_ISA });
  await gw.services.objects.define(ORG, FITMENTS);
  const bearer = { authorization: `Bearer ${key}` };
  for (const product of CATALOG) await call(base, 'POST', '/v1/products', product, bearer);
  await call(base, 'POST', '/v1/objects/fitments', { rows: [{ fitment_id: 'AUDI-A4-2020', make: 'Audi', model: 'A4', year: 2020, sku: 'MICH-225-45R17', season: 'summer' }] }, bearer);
  const admin = { authorization: `Bearer ${adminToken}` };
  const token = await call(base, 'POST', '/admin/v1/connect-tokens', { org: ORG, provider: PROVIDER, label: 'Demo yard' }, admin);
  const connected = await call(base, 'POST', '/connect', {
    connect_token: token.connect_token,
    provider: PROVIDER,
    credentials: { username: 'fleet@demo.example', password: 'demo-password' },
    // As the hub's connect page would post it: fetch marks itself a browser request, so it names its origin.
  }, { origin: base });
  const portal = await call(base, 'POST', '/admin/v1/portal-keys', { org: ORG, dealer: 'Springfield Tire', origins: [base] }, admin);
  return { key, portalKey: String((portal.portal_key as { key: string }).key), connectionId: String(connected.connection_id), orgId: org.id };
}

interface Subscribed {
  receiverUrl: string;
  endpointId: string;
  secret: string;
}

/** The demo receiver subscribed to every event of the org, as a partner subscribes: over HTTP with the org's key. */
async function subscribeReceiver(base: string, key: string, receiver: WebhookReceiverSim): Promise<Subscribed> {
  const created = await call(base, 'POST', '/v1/webhook-endpoints', { url: receiver.url, event_types: ['*'], description: 'demo receiver' }, { authorization: `Bearer ${key}` });
  const secret = String(created.secret);
  receiver.trust(secret);
  return { receiverUrl: receiver.url, endpointId: String((created.endpoint as { id: string }).id), secret };
}

/** One line per delivery the demo receiver verified: what a partner's receiver would log. */
export function verifiedLine(d: VerifiedDelivery): string {
  return `webhook verified: ${d.type} ${d.id} (signed at ${new Date(d.timestamp * 1000).toISOString()})\n`;
}

type Ready = { base: string; hub: string; vendor: string; dataDir: string; adminToken: string; poFile: string } & Seeded & Subscribed;

function banner(o: Ready): string {
  const mcpConfig = JSON.stringify({ mcpServers: { 'tire-gateway': { type: 'http', url: `${o.base}/mcp`, headers: { Authorization: `Bearer ${o.key}` } } } }, null, 2);
  return `
Tire gateway demo
  gateway          ${o.base}   (SQLite in ${o.dataDir}, fresh each run)
  hub simulator    ${o.hub}    (receives the gateway's events)
  vendor simulator ${o.vendor} (plays the 21 telematics providers)
  webhook receiver ${o.receiverUrl} (subscribed to every event; verifies each delivery with the standardwebhooks library)
  org "${ORG}" (${o.orgId}): 5 tire products, EDI partner ${PARTNER_ISA}, object "fitments", a ${PROVIDER} connection, a portal key

Paste into a shell:

export G=${o.base} HUB=${o.hub} KEY=${o.key}
export ADMIN=${o.adminToken} PK=${o.portalKey}

# 1. the catalog
curl -s -H "Authorization: Bearer $KEY" $G/v1/products
# 2. create an order, then see order.created at the hub
curl -s -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' $G/v1/orders -d '{"po_number":"PO-1001","ship_to":"Springfield Tire, 100 Main St","lines":[{"sku":"MICH-225-45R17","quantity":4,"unit_price":"129.99"}]}'
curl -s "$HUB/v1/events?type=order.created"
# 3. move the order on (the hub gets order.status_changed)
curl -s -X POST -H "Authorization: Bearer $KEY" $G/v1/orders/PO-1001/ack
# 4. an inventory update (inventory.updated at the hub)
curl -s -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' $G/v1/inventory -d '{"rows":[{"sku":"CONT-205-55R16","qty":24},{"sku":"VALVE-KIT","qty":280}]}'
# 5. a warranty claim
curl -s -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' $G/v1/warranty-claims -d '{"description":"Sidewall bulge after 2,000 km","sku":"MICH-225-45R17","dot_number":"DOT U2LL LMLR 5107","quantity":1}'
# 6. an EDI 850 from the demo partner becomes order PO-EDI-1001 (the answer carries the 997)
curl -s -H "Authorization: Bearer $KEY" -H 'Content-Type: text/plain' $G/v1/edi --data-binary @${o.poFile}
# 7. rows of the operator-defined object "fitments"
curl -s -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' $G/v1/objects/fitments -d '{"rows":[{"fitment_id":"VW-GOLF-2019","make":"Volkswagen","model":"Golf","year":2019,"sku":"CONT-205-55R16","season":"winter"}]}'
curl -s -H "Authorization: Bearer $KEY" "$G/v1/objects/fitments?make=Audi"
# 8. the telematics connection (the poller already read it once): poll it now, then see the readings at the hub
curl -s -X POST -H "Authorization: Bearer $KEY" $G/v1/telematics/connections/${o.connectionId}/run
curl -s "$HUB/v1/events?type=telematics.event" | head -c 600; echo
# 9. the dealer portal's catalog, as a browser on an allowed origin
curl -s -H "X-Portal-Key: $PK" -H "Origin: $G" "$G/api/portal/v1/products?q=R17"
# 10. everything the hub has received, and the OpenAPI document
curl -s "$HUB/v1/events" | head -c 600; echo
curl -s $G/openapi.json | head -c 300; echo
# 11. webhooks: the receiver's deliveries (each verified one also prints a line below), and the events API
curl -s -H "Authorization: Bearer $KEY" $G/v1/webhook-endpoints/${o.endpointId}/deliveries | head -c 600; echo
curl -s -H "Authorization: Bearer $KEY" "$G/v1/events?limit=3" | head -c 600; echo

MCP client (Streamable HTTP; e.g. in an MCP client's config file):
${mcpConfig}

Dealer portal demo page (catalog and warranty-claim widgets):
  ${o.base}/portal/demo.html?key=${o.portalKey}

Demo ready. Ctrl-C stops the gateway, both simulators and the webhook receiver.
Verified webhook deliveries (a webhook.test first, then one per event you cause):
`;
}

/** The demo's keys and URLs for a script (`demo --json`): what the banner's export lines hold. */
function demoJson(o: Ready): Record<string, unknown> {
  return {
    gateway_url: o.base,
    hub_url: o.hub,
    vendor_url: o.vendor,
    data_dir: o.dataDir,
    org: { slug: ORG, id: o.orgId },
    api_key: o.key,
    admin_token: o.adminToken,
    portal_key: o.portalKey,
    connection_id: o.connectionId,
    po_850_file: o.poFile,
    mcp_url: `${o.base}/mcp`,
    portal_demo_url: `${o.base}/portal/demo.html?key=${o.portalKey}`,
    webhook_receiver: { url: o.receiverUrl, endpoint_id: o.endpointId, secret: o.secret },
  };
}

export async function startDemo(opts: DemoOptions): Promise<void> {
  const dataDir = resolve(opts.dataDir);
  freshDataDir(dataDir);
  const shownHost = opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host;
  const port = opts.port === 0 ? await freePort(opts.host) : opts.port;
  const base = `http://${shownHost}:${port}`;
  const adminToken = `demo-admin-${randomBytes(12).toString('hex')}`;
  let hub: HubSim | undefined;
  let vendor: VendorSim | undefined;
  let receiver: WebhookReceiverSim | undefined;
  let gw: Gateway | undefined;
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  const stopAll = async (): Promise<void> => {
    await app?.close();
    await gw?.close();
    await Promise.all([hub?.close(), vendor?.close(), receiver?.close()]);
  };
  try {
    hub = await startHubSim({ host: shownHost, port: 0 });
    vendor = await startVendorSim({ host: shownHost, port: 0 });
    // With --json, stdout is one JSON object: the delivery lines go to stderr.
    const out = opts.json ? process.stderr : process.stdout;
    receiver = await startWebhookReceiverSim({ host: shownHost, onVerified: (d) => out.write(verifiedLine(d)) });
    // The embedded default whatever the shell has set: the demo never touches a real database, Redis or vendor.
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'GATEWAY_SECRET', 'GATEWAY_SECRET_PREVIOUS', 'HUB_TOKEN', 'PROVIDERS_CONFIG', 'TRUST_PROXY']) delete env[name];
    for (const name of Object.keys(env)) if (name.startsWith('PROVIDER_')) delete env[name];
    const config = loadConfig({
      ...env,
      PORT: String(port),
      HOST: opts.host,
      PUBLIC_URL: base,
      DATABASE_URL: `sqlite:${join(dataDir, 'gateway.sqlite')}`,
      HUB_URL: hub.url,
      VENDOR_SIM_URL: vendor.url,
      GATEWAY_ADMIN_TOKEN: adminToken,
      CONNECT_ALLOWED_ORIGINS: base,
      // The demo receiver listens on loopback, which webhook endpoints may name only when the operator allows it.
      WEBHOOK_ALLOWED_HOSTS: shownHost,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    });
    gw = await createGateway(config);
    // Logs to stderr: stdout carries the banner someone copies from.
    app = await buildApp(gw, { logger: { level: config.LOG_LEVEL, stream: process.stderr } });
    await app.listen({ port, host: opts.host });
    gw.delivery.start();
    for (const worker of gw.workers) worker.start();
    const seeded = await seed(gw, base, adminToken);
    const poFile = join(dataDir, 'po-850.x12');
    writeFileSync(poFile, PO_850);
    const subscribed = await subscribeReceiver(base, seeded.key, receiver);
    const ready = { base, hub: hub.url, vendor: vendor.url, dataDir, adminToken, poFile, ...seeded, ...subscribed };
    process.stdout.write(opts.json ? `${JSON.stringify(demoJson(ready), null, 2)}\n` : banner(ready));
    // After the banner, so its verified line comes below it.
    await call(base, 'POST', `/v1/webhook-endpoints/${subscribed.endpointId}/test`, undefined, { authorization: `Bearer ${seeded.key}` });
  } catch (err) {
    await stopAll().catch(() => undefined);
    throw err;
  }
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('\nstopping the demo...\n');
    stopAll().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`error while stopping: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
