import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.js';
import { createGateway, type Gateway } from '../src/gateway.js';
import { type BenchGateway, createBenchDatabase, median, postgresEnv, startGateway } from './support.js';

/**
 * Flat cost as data grows: each list's first page (default limit, a typical filter, a page deep in the list through its
 * cursor) and a by-id read, with the measured org at `small` rows, then at `large` rows while another org holds `large`
 * more. Rows are written straight into the database by INSERT ... SELECT over a generated series, one table at a time.
 */

export interface GrowthRead {
  table: string;
  read: string;
  smallMs: number;
  largeMs: number;
}

export interface GrowthBench {
  dialect: 'sqlite' | 'postgres';
  small: number;
  large: number;
  reads: GrowthRead[];
  /** Seconds each table took to grow from `small` to 2 x `large` rows. */
  seedSeconds: { table: string; seconds: number }[];
}

/** What differs between the dialects in the seeding SQL. */
interface Dialect {
  name: 'sqlite' | 'postgres';
  exec(statement: string): Promise<void>;
  first<T>(statement: string): Promise<T>;
  /** `prefix` goes before INSERT, `from` after SELECT ...: the rows `t` of from..to by step. */
  series(from: number, to: number, step: number): { prefix: string; from: string };
  pad(expr: string, width: number): string;
  /** ISO 8601 UTC text (as the gateway writes it) of 2020-01-01 plus `expr` seconds. */
  iso(expr: string): string;
  emptyBlob: string;
  /** After a load: planner statistics (what autovacuum would gather on PostgreSQL) or, on SQLite, the WAL written back and emptied. */
  settle(table: string): Promise<void>;
  close(): Promise<void>;
}

function sqliteDialect(path: string): Dialect {
  const db = new SQLite(path);
  db.pragma('busy_timeout = 30000');
  return {
    name: 'sqlite',
    exec: (statement) => Promise.resolve(void db.exec(statement)),
    first: <T>(statement: string) => Promise.resolve(db.prepare(statement).get() as T),
    series: (from, to, step) => ({
      prefix: `with recursive s(t) as (select ${from} union all select t + ${step} from s where t + ${step} <= ${to})`,
      from: 's',
    }),
    pad: (expr, width) => `printf('%0${width}d', ${expr})`,
    iso: (expr) => `strftime('%Y-%m-%dT%H:%M:%S.000Z', 1577836800 + (${expr}), 'unixepoch')`,
    emptyBlob: `x''`,
    // A long WAL slows every read of the serving process (each page is looked up in the WAL first): measure without one.
    settle: () => Promise.resolve(void db.pragma('wal_checkpoint(TRUNCATE)')),
    close: () => Promise.resolve(void db.close()),
  };
}

async function postgresDialect(url: string): Promise<Dialect> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    name: 'postgres',
    exec: async (statement) => void (await client.query(statement)),
    first: async <T>(statement: string) => (await client.query(statement)).rows[0] as T,
    series: (from, to, step) => ({ prefix: '', from: `generate_series(${from}, ${to}, ${step}) as s(t)` }),
    pad: (expr, width) => `lpad((${expr})::text, ${width}, '0')`,
    iso: (expr) => `to_char(timestamp '2020-01-01' + (${expr}) * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS".000Z"')`,
    emptyBlob: `''::bytea`,
    settle: async (table) => void (await client.query(`analyze ${table}`)),
    close: () => client.end(),
  };
}

/**
 * Row `t` of every table: even t belong to the measured org, odd t to the other one, so the two orgs' rows interleave
 * in time and in insertion order. `i` = (t + 1) / 2 numbers each org's rows from 1; row i of the measured org is t = 2i.
 */
interface Ids {
  bench: string;
  other: string;
  /** Each org's object definition (objects) and EDI partners (first: BUYERCO, second: OTHERCO). */
  object: Record<'bench' | 'other', string>;
  partners: Record<'bench' | 'other', [string, string]>;
}
const byOrg = (a: string, b: string) => `case when t % 2 = 0 then ${a} else ${b} end`;
const lit = (s: string) => `'${s.replaceAll("'", "''")}'`;
const I = '((t + 1) / 2)';
const pick = (expr: string, values: string[], otherwise: string) => `case ${expr} ${values.map((v, n) => `when ${n} then ${lit(v)}`).join(' ')} else ${lit(otherwise)} end`;
const idOf = (prefix: string, t: number) => `${prefix}_${String(t).padStart(12, '0')}`;
const isoOf = (t: number) => new Date(Date.UTC(2020, 0, 1) + t * 1000).toISOString();
/** The measured org's middle row: its number i and its t = 2i. */
interface Middle {
  i: number;
  t: number;
}
const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

const BRANDS = ['Michelin', 'Bridgestone', 'Goodyear', 'Continental', 'Pirelli', 'Yokohama', 'Hankook', 'Toyo', 'Falken', 'Nokian'];

/** One table: the INSERT ... SELECT of rows `t` (columns, then the SELECT list), and the reads measured on it. */
interface TableSpec {
  table: string;
  inserts(d: Dialect, ids: Ids): { table: string; columns: string; select: string }[];
  reads(m: Middle): { read: string; path: string; check: string }[];
}

const org = (ids: Ids) => byOrg(lit(ids.bench), lit(ids.other));

const TABLES: TableSpec[] = [
  {
    table: 'products',
    inserts: (d, ids) => [{
      table: 'products',
      columns: 'org_id, sku, sku_lower, name, name_lower, description, status, stock_qty, stock_status, bin_location, created_at, updated_at',
      select: `${org(ids)}, 'SKU-' || ${d.pad(I, 8)}, 'sku-' || ${d.pad(I, 8)}, ${pick(`${I} % 10`, BRANDS, '')} || ' Tyre ' || ${I},
        lower(${pick(`${I} % 10`, BRANDS, '')} || ' tyre ' || ${I}), null, case when ${I} % 50 = 0 then 'discontinued' else 'active' end,
        40, 'in_stock', null, ${d.iso('t')}, ${d.iso('t')}`,
    }],
    reads: (m) => [
      { read: 'GET /v1/products', path: '/v1/products', check: 'products' },
      { read: '?q=pirelli (10% of the rows)', path: '/v1/products?q=pirelli', check: 'products' },
      { read: 'page from the middle (cursor)', path: `/v1/products?cursor=${cursor({ s: `sku-${String(m.i).padStart(8, '0')}` })}`, check: 'products' },
      { read: 'GET /v1/products/:sku', path: `/v1/products/SKU-${String(m.i).padStart(8, '0')}`, check: 'product' },
    ],
  },
  {
    table: 'orders',
    inserts: (d, ids) => [
      {
        table: 'orders',
        columns: 'id, org_id, po_number, status, ship_to, notes, source, line_count, total_quantity, subtotal, last_event_id, created_at, updated_at',
        select: `'ord_' || ${d.pad('t', 12)}, ${org(ids)}, 'PO-' || ${d.pad(I, 8)},
          ${pick(`${I} % 20`, ['submitted', 'confirmed', 'processing', 'shipped', 'cancelled'], 'delivered')},
          '1 Bench Road, Springfield', null, 'api', 1, 4, 4000000, 'evt_' || ${d.pad('t', 12)}, ${d.iso('t')}, ${d.iso('t')}`,
      },
      {
        table: 'order_lines',
        columns: 'order_id, line_no, org_id, sku, product_name, quantity, unit_price, line_total',
        select: `'ord_' || ${d.pad('t', 12)}, 1, ${org(ids)}, 'SKU-00000001', 'Michelin Tyre 1', 4, 1000000, 4000000`,
      },
    ],
    reads: (m) => [
      { read: 'GET /v1/orders', path: '/v1/orders', check: 'orders' },
      { read: '?status=shipped (5%)', path: '/v1/orders?status=shipped', check: 'orders' },
      { read: 'page from the middle (cursor)', path: `/v1/orders?cursor=${cursor({ c: isoOf(m.t), i: idOf('ord', m.t) })}`, check: 'orders' },
      { read: 'GET /v1/orders/:id', path: `/v1/orders/${idOf('ord', m.t)}`, check: 'order' },
    ],
  },
  {
    table: 'warranty_claims',
    inserts: (d, ids) => [{
      table: 'warranty_claims',
      columns: 'id, org_id, number, claim_number, status, description, sku, dot_number, quantity, customer_ref, resolution, source, created_by, created_at, updated_at, dealer, contact_email',
      select: `'wc_' || ${d.pad('t', 12)}, ${org(ids)}, ${I}, 'WC-' || ${d.pad(I, 8)}, ${pick(`${I} % 20`, ['submitted', 'under_review', 'approved', 'denied'], 'closed')},
        'Sidewall bulge after 2,000 km', 'SKU-00000001', null, 1, null, null, 'api', 'key_bench', ${d.iso('t')}, ${d.iso('t')}, null, null`,
    }],
    reads: (m) => [
      { read: 'GET /v1/warranty-claims', path: '/v1/warranty-claims', check: 'claims' },
      { read: '?status=under_review (5%)', path: '/v1/warranty-claims?status=under_review', check: 'claims' },
      { read: 'page from the middle (cursor)', path: `/v1/warranty-claims?cursor=${cursor({ n: m.i })}`, check: 'claims' },
      { read: 'GET /v1/warranty-claims/:id', path: `/v1/warranty-claims/${idOf('wc', m.t)}`, check: 'claim' },
    ],
  },
  {
    table: 'object_rows',
    inserts: (d, ids) => [{
      table: 'object_rows',
      columns: 'object_id, id, org_id, key_value, data, created_at, updated_at, s1, n1',
      select: `${byOrg(lit(ids.object.bench), lit(ids.object.other))}, ${I}, ${org(ids)}, 'C' || ${I},
        '{"code":"C' || ${I} || '","make":"make-' || (${I} % 50) || '","year":' || (1990 + ${I} % 30) || '}',
        ${d.iso('t')}, ${d.iso('t')}, 'make-' || (${I} % 50), 1990 + ${I} % 30`,
    }],
    reads: (m) => [
      { read: 'GET /v1/objects/fitments', path: '/v1/objects/fitments', check: 'rows' },
      { read: '?make=make-17 (2%)', path: '/v1/objects/fitments?make=make-17', check: 'rows' },
      { read: 'page from the middle (cursor)', path: `/v1/objects/fitments?cursor=${cursor({ i: m.i })}`, check: 'rows' },
      { read: 'one row by its key (?code=)', path: `/v1/objects/fitments?code=C${m.i}`, check: 'rows' },
    ],
  },
  {
    table: 'telematics_connections',
    inserts: (d, ids) => [{
      table: 'telematics_connections',
      columns: 'id, org_id, provider, label, status, connect_token_hash, poll_interval_s, created_at, updated_at, next_poll_at, breaker_state, consecutive_failures, cooldown_s',
      // Due in 2999: the running gateway's poller leaves them alone.
      select: `'con_' || ${d.pad('t', 12)}, ${org(ids)}, 'vendor13', 'Fleet ' || ${I}, ${pick(`${I} % 20`, ['paused', 'reauth_required', 'disconnected'], 'active')},
        'bench-' || t, 300, ${d.iso('t')}, ${d.iso('t')}, '2999-01-01T00:00:00.000Z', 'closed', 0, 0`,
    }],
    reads: (m) => [
      { read: 'GET /v1/telematics/connections', path: '/v1/telematics/connections', check: 'connections' },
      { read: '?status=paused (5%)', path: '/v1/telematics/connections?status=paused', check: 'connections' },
      { read: 'page from the middle (cursor)', path: `/v1/telematics/connections?cursor=${cursor({ id: idOf('con', m.t) })}`, check: 'connections' },
      { read: 'GET /v1/telematics/connections/:id', path: `/v1/telematics/connections/${idOf('con', m.t)}`, check: 'connection' },
    ],
  },
  {
    table: 'edi_messages',
    inserts: (d, ids) => [{
      table: 'edi_messages',
      columns: 'id, org_id, direction, partner_id, type, control_number, status, size, sha256, raw, errors, http_status, result, related_id, order_id, created_at, updated_at, parent_id',
      select: `'msg_' || ${d.pad('t', 12)}, ${org(ids)}, case when ${I} % 10 = 0 then 'outbound' else 'inbound' end,
        case when ${I} % 5 = 0 then ${byOrg(lit(ids.partners.bench[0]), lit(ids.partners.other[0]))} else ${byOrg(lit(ids.partners.bench[1]), lit(ids.partners.other[1]))} end,
        case when ${I} % 10 = 0 then '855' when ${I} % 10 = 1 then '997' else '850' end, ${d.pad(I, 9)}, case when ${I} % 10 = 0 then 'generated' else 'accepted' end,
        0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', ${d.emptyBlob}, null, 200, null, null, null, ${d.iso('t')}, ${d.iso('t')}, null`,
    }],
    reads: (m) => [
      { read: 'GET /v1/edi/messages', path: '/v1/edi/messages', check: 'messages' },
      { read: '?type=997 (10%)', path: '/v1/edi/messages?type=997', check: 'messages' },
      { read: '?partner=BUYERCO (20%)', path: '/v1/edi/messages?partner=BUYERCO', check: 'messages' },
      { read: 'page from the middle (cursor)', path: `/v1/edi/messages?cursor=${cursor({ c: isoOf(m.t), i: idOf('msg', m.t) })}`, check: 'messages' },
      { read: 'GET /v1/edi/messages/:id', path: `/v1/edi/messages/${idOf('msg', m.t)}`, check: 'message' },
    ],
  },
  {
    table: 'outbox',
    inserts: (d, ids) => [{
      table: 'outbox',
      columns: 'id, org_id, destination, target, type, content_type, payload, status, attempts, next_attempt_at, last_error, created_at, delivered_at',
      // Queued ones are due in 2999 and this gateway has no hub: nothing delivers them meanwhile.
      select: `'evt_' || ${d.pad('t', 12)}, ${org(ids)}, 'hub', null, 'order.created', 'application/json', '{"po_number":"PO-' || ${I} || '"}',
        ${pick(`${I} % 50`, ['rejected', 'queued'], 'delivered')}, 1,
        case when ${I} % 50 = 1 then '2999-01-01T00:00:00.000Z' else '1970-01-01T00:00:00.000Z' end,
        case when ${I} % 50 = 0 then 'hub rejected: unknown sku' else null end, ${d.iso('t')}, case when ${I} % 50 > 1 then ${d.iso('t + 1')} else null end`,
    }],
    // No HTTP read: the operator's `deliveries list` and the public states modules show; measured in-process below.
    reads: () => [],
  },
  {
    table: 'audit_events',
    inserts: (d, ids) => [{
      table: 'audit_events',
      columns: 'id, at, actor, action, target, org_id, request_id',
      select: `'aud_' || ${d.pad('t', 12)}, ${d.iso('t')}, 'operator:bench', 'key.created', 'key_' || ${d.pad('t', 12)}, ${org(ids)}, null`,
    }],
    // The cursor's sequence number depends on insertion order: looked up once seeded (see auditCursor).
    reads: () => [
      { read: 'GET /admin/v1/audit (every org)', path: '/admin/v1/audit', check: 'events' },
      { read: '?org=bench', path: '/admin/v1/audit?org=bench', check: 'events' },
    ],
  },
];

/** The tables the growth bench seeds, in the order it seeds and publishes them. */
export const GROWTH_TABLES: readonly string[] = TABLES.map((t) => t.table);

/** Rows per INSERT statement, so that no one transaction (and SQLite's WAL) grows without bound. */
const CHUNK = 200_000;

async function insertRange(d: Dialect, spec: TableSpec, ids: Ids, from: number, to: number, step: number): Promise<void> {
  for (let start = from; start <= to; start += CHUNK * step) {
    const end = Math.min(to, start + (CHUNK - 1) * step);
    const { prefix, from: source } = d.series(start, end, step);
    for (const x of spec.inserts(d, ids)) await d.exec(`${prefix} insert into ${x.table} (${x.columns}) select ${x.select} from ${source}`);
  }
}


/** One read through HTTP, checked to answer 200 with what it should hold (a list: at least one row). */
async function getJson(dispatcher: Agent, url: string, headers: Record<string, string>, check: string): Promise<void> {
  const res = await request(url, { headers, dispatcher });
  const body = (await res.body.json()) as Record<string, unknown>;
  const found = body[check];
  if (res.statusCode !== 200 || found === undefined || (Array.isArray(found) && found.length === 0)) {
    throw new Error(`${url}: ${res.statusCode} ${JSON.stringify(body).slice(0, 300)}`);
  }
}

const OBJECT = {
  key: 'fitments',
  label: 'Bench fitments',
  read_scope: 'objects:fitments:read',
  write_scope: 'objects:fitments:write',
  key_field: 'code',
  fields: [
    { name: 'code', type: 'string', required: true, filterable: false },
    { name: 'make', type: 'string', required: false, filterable: true },
    { name: 'year', type: 'integer', required: false, filterable: true },
  ],
};

/** The orgs, their object and partners, made through the CLI as an operator would; the measured org's key comes after its object's scopes. */
async function setUp(gw: BenchGateway, d: Dialect, dir: string): Promise<{ ids: Ids; headers: Record<string, string> }> {
  gw.cli('orgs', 'create', 'bench');
  gw.cli('orgs', 'create', 'other');
  const file = join(dir, 'fitments.json');
  writeFileSync(file, JSON.stringify(OBJECT));
  for (const slug of ['bench', 'other']) {
    gw.cli('objects', 'define', '--org', slug, '--file', file);
    gw.cli('partners', 'create', '--org', slug, '--name', 'BUYERCO', '--isa', 'ZZ/BUYERCO', '--our-isa', `ZZ/${slug.toUpperCase()}GW`);
    gw.cli('partners', 'create', '--org', slug, '--name', 'OTHERCO', '--isa', 'ZZ/OTHERCO');
  }
  const idOfOrg = async (slug: string) => (await d.first<{ id: string }>(`select id from orgs where slug = ${lit(slug)}`)).id;
  const bench = await idOfOrg('bench');
  const other = await idOfOrg('other');
  const objectOf = async (orgId: string) => (await d.first<{ id: string }>(`select id from object_definitions where org_id = ${lit(orgId)}`)).id;
  const partnerOf = async (orgId: string, name: string) => (await d.first<{ id: string }>(`select id from edi_partners where org_id = ${lit(orgId)} and name = ${lit(name)}`)).id;
  const { key } = JSON.parse(gw.cli('keys', 'create', '--org', 'bench', '--scopes', `all,${OBJECT.read_scope}`, '--rate-limit', '100000000', '--json')) as { key: string };
  const ids: Ids = {
    bench,
    other,
    object: { bench: await objectOf(bench), other: await objectOf(other) },
    partners: {
      bench: [await partnerOf(bench, 'BUYERCO'), await partnerOf(bench, 'OTHERCO')],
      other: [await partnerOf(other, 'BUYERCO'), await partnerOf(other, 'OTHERCO')],
    },
  };
  return { ids, headers: { authorization: `Bearer ${key}` } };
}

/** The deliveries reads, which have no HTTP route: through the service the CLI's `deliveries list` calls, in this process. */
function deliveryReads(local: Gateway, m: Middle): { read: string; call: () => Promise<void> }[] {
  const service = local.services.deliveries;
  const rowsOf = async (p: Promise<unknown[]>) => {
    if ((await p).length === 0) throw new Error('deliveries: no rows');
  };
  return [
    { read: 'deliveries list --org bench', call: () => rowsOf(service.list({ orgSlug: 'bench', limit: 50 })) },
    { read: '--status rejected (2%)', call: () => rowsOf(service.list({ orgSlug: 'bench', status: 'rejected', limit: 50 })) },
    { read: 'public state by id', call: async () => rowsOf(Promise.resolve([...(await service.publicStates(local.database.db, [idOf('evt', m.t)])).values()])) },
  ];
}

/** One database with its serving gateway: the measured org holds `rows` rows of each table (and, when `other`, the other org as many). */
interface Side {
  rows: number;
  other: boolean;
  gw: BenchGateway;
  d: Dialect;
  /** The same database opened in this process, for the reads that have no HTTP route. */
  local: Gateway;
  ids: Ids;
  headers: Record<string, string>;
  admin: Record<string, string>;
  close(): Promise<void>;
}

async function openSide(rows: number, other: boolean, adminUrl: string | undefined): Promise<Side> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-growth-'));
  const pgDb = adminUrl ? await createBenchDatabase(adminUrl) : undefined;
  const databaseUrl = pgDb?.url ?? `sqlite:${join(dir, 'growth.sqlite')}`;
  const adminToken = randomBytes(24).toString('hex');
  const gw = await startGateway({
    ...(pgDb ? postgresEnv(pgDb.url) : { DATABASE_URL: databaseUrl }),
    GATEWAY_ADMIN_TOKEN: adminToken,
    // Seeded deliveries are dated 2020: the retention purge must not take them while they are measured.
    RETENTION_OUTBOX_DELIVERED_MS: String(100 * 365 * 86_400_000),
  });
  const d = pgDb ? await postgresDialect(pgDb.url) : sqliteDialect(databaseUrl.slice('sqlite:'.length));
  const { ids, headers } = await setUp(gw, d, dir);
  const local = await createGateway(loadConfig({ ...process.env, ...gw.env, LOG_LEVEL: 'silent' }), { migrate: false });
  const close = async () => {
    await local.close();
    await d.close();
    await gw.stop();
    await pgDb?.drop();
    rmSync(dir, { recursive: true, force: true });
  };
  return { rows, other, gw, d, local, ids, headers, admin: { authorization: `Bearer ${adminToken}` }, close };
}

/** Rows t of one table: the measured org's 1..rows (even t), and with `other` the other org's as many (odd t). */
async function seed(side: Side, spec: TableSpec): Promise<void> {
  await insertRange(side.d, spec, side.ids, side.other ? 1 : 2, 2 * side.rows, side.other ? 1 : 2);
  // Every table the load wrote (orders also fill order_lines): a table never analyzed is planned as if empty.
  for (const table of new Set(spec.inserts(side.d, side.ids).map((i) => i.table))) await side.d.settle(table);
}

/** The reads of one table on one side, each at the measured org's middle row. */
async function readsOf(side: Side, spec: TableSpec, dispatcher: Agent): Promise<{ read: string; call: () => Promise<void> }[]> {
  const m = { i: side.rows >> 1, t: 2 * (side.rows >> 1) };
  const http = spec.reads(m);
  if (spec.table === 'audit_events') {
    const { seq } = await side.d.first<{ seq: number }>(`select seq from audit_events where id = ${lit(idOf('aud', m.t))}`);
    http.push({ read: 'page from the middle (cursor)', path: `/admin/v1/audit?org=bench&cursor=${cursor({ seq: Number(seq) })}`, check: 'events' });
  }
  const calls = http.map((r) => ({ read: r.read, call: () => getJson(dispatcher, `${side.gw.url}${r.path}`, r.path.startsWith('/admin') ? side.admin : side.headers, r.check) }));
  return spec.table === 'outbox' ? [...calls, ...deliveryReads(side.local, m)] : calls;
}

/**
 * Median times of the same read on the two sides, called in turn (which side goes first alternates), so that whatever
 * else this shared machine does meanwhile falls on both alike.
 */
async function timePair(a: () => Promise<void>, b: () => Promise<void>, runs: number): Promise<[number, number]> {
  const ta: number[] = [];
  const tb: number[] = [];
  const time = async (call: () => Promise<void>, into: number[], keep: boolean) => {
    const t = performance.now();
    await call();
    if (keep) into.push(performance.now() - t);
  };
  for (let i = 0; i < runs + 5; i++) {
    const [first, second] = i % 2 === 0 ? [[a, ta], [b, tb]] as const : [[b, tb], [a, ta]] as const;
    await time(first[0], first[1], i >= 5);
    await time(second[0], second[1], i >= 5);
  }
  return [median(ta), median(tb)];
}

/**
 * Runs the growth table on SQLite, or on fresh PostgreSQL databases when `adminUrl` is given: two databases side by side,
 * one where the measured org holds `small` rows of each table (or of `tables`), one where it holds `large` and another org `large` more.
 */
export async function benchGrowth(opts: { adminUrl?: string; small?: number; large?: number; runs?: number; tables?: readonly string[] } = {}): Promise<GrowthBench> {
  const small = opts.small ?? 10_000;
  const large = opts.large ?? 1_000_000;
  const runs = opts.runs ?? 100;
  const lo = await openSide(small, false, opts.adminUrl);
  const hi = await openSide(large, true, opts.adminUrl).catch(async (err: unknown) => {
    await lo.close();
    throw err;
  });
  try {
    const reads: GrowthRead[] = [];
    const seedSeconds: GrowthBench['seedSeconds'] = [];
    for (const spec of TABLES.filter((t) => opts.tables === undefined || opts.tables.includes(t.table))) {
      await seed(lo, spec);
      const t0 = performance.now();
      await seed(hi, spec);
      seedSeconds.push({ table: spec.table, seconds: (performance.now() - t0) / 1000 });
      // Fresh connections for each table: the server has closed those left idle while the table was seeded.
      const dispatcher = new Agent();
      const [loReads, hiReads] = [await readsOf(lo, spec, dispatcher), await readsOf(hi, spec, dispatcher)];
      for (const [k, x] of loReads.entries()) {
        const y = hiReads[k];
        if (y === undefined) continue;
        const [smallMs, largeMs] = await timePair(x.call, y.call, runs);
        reads.push({ table: spec.table, read: x.read, smallMs, largeMs });
        process.stdout.write(`  ${spec.table} ${x.read}: ${smallMs.toFixed(2)} ms -> ${largeMs.toFixed(2)} ms (${(largeMs / smallMs).toFixed(2)}x)\n`);
      }
      await dispatcher.close();
    }
    return { dialect: lo.d.name, small, large, reads, seedSeconds };
  } finally {
    await hi.close();
    await lo.close();
  }
}
