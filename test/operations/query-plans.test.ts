import SQLite from 'better-sqlite3';
import { CompiledQuery, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { audienceOf, type Operation } from '../../src/platform/operations/operation.js';
import { dialects, HARNESS_ADMIN_TOKEN, type Harness, startHarness } from '../support/harness.js';
import { type Call, callRest } from '../support/operations.js';
import { FIXTURES, PORTAL_FIXTURES, PORTAL_ORIGIN, portalKeyOf, seedOrg } from './fixtures.js';

/**
 * Flat cost as data grows starts with the plan: every read operation (each list and by-id read, derived from the
 * operation list) is answered by statements that find their rows through an index, never by scanning a table.
 * A test cannot time a read at 1,000,000 rows, so it pins the plans instead. On PostgreSQL sequential scans are
 * switched off for the EXPLAIN: a tiny test table would otherwise always be scanned, index or not.
 */

interface Captured {
  sql: string;
  parameters: readonly unknown[];
}

/** Every statement the process sends while `capturing` is on: better-sqlite3 statement runs and pg client queries. */
function captureStatements(): { start(): void; stop(): Captured[] } {
  let capturing = false;
  let seen: Captured[] = [];
  const probe = new SQLite(':memory:').prepare('select 1');
  const statement = Object.getPrototypeOf(probe) as Record<'all' | 'get' | 'iterate', (...args: unknown[]) => unknown>;
  for (const method of ['all', 'get', 'iterate'] as const) {
    const original = statement[method];
    vi.spyOn(statement, method).mockImplementation(function (this: { source: string }, ...args: unknown[]) {
      if (capturing) seen.push({ sql: this.source, parameters: Array.isArray(args[0]) ? (args[0] as unknown[]) : args });
      return original.apply(this, args);
    });
  }
  // Taken unbound on purpose: it is called back with the client it was called on.
  const query = Reflect.get(pg.Client.prototype, 'query') as (...args: unknown[]) => unknown;
  vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    const [first, second] = args;
    if (capturing && typeof first === 'string') seen.push({ sql: first, parameters: Array.isArray(second) ? second : [] });
    else if (capturing && typeof first === 'object' && first !== null && 'text' in first) {
      const q = first as { text: string; values?: unknown[] };
      seen.push({ sql: q.text, parameters: q.values ?? [] });
    }
    return query.apply(this, args) as never;
  });
  return {
    start: () => {
      seen = [];
      capturing = true;
    },
    stop: () => {
      capturing = false;
      return seen;
    },
  };
}

/**
 * Plan steps that read a whole table: SQLite's `SCAN <table>` without an index; PostgreSQL's `Seq Scan`, or an index
 * walked from end to end to filter its rows (an index scan with a `Filter` and no `Index Cond`: a table scan in order).
 * An index walked only for its order under a LIMIT, with nothing to filter, is fine on both.
 */
function tableScans(plan: readonly string[]): string[] {
  const scans: string[] = [];
  plan.forEach((line, i) => {
    if (/^\s*SCAN \w+(?: AS \w+)?$/.test(line.trim()) || /Seq Scan on \w+/.test(line)) scans.push(line);
    if (!/Index (?:Only )?Scan/.test(line)) return;
    const details: string[] = [];
    for (const next of plan.slice(i + 1)) {
      if (next.includes('->')) break;
      details.push(next.trim());
    }
    const filtered = details.some((d) => d.startsWith('Filter:'));
    const searched = details.some((d) => d.startsWith('Index Cond:'));
    if (filtered && !searched) scans.push(`${line.trim()} (${details.join('; ')})`);
  });
  return scans;
}

describe.each(dialects)('every read operation finds its rows through an index (%s)', (dialect) => {
  let h: Harness;
  let reads: Operation[];
  let capture: ReturnType<typeof captureStatements>;

  beforeAll(async () => {
    // Spied here, not when the suite is collected: each dialect's suite spies and restores in its own turn.
    capture = captureStatements();
    h = await startHarness(dialect);
    reads = h.gateway.operations.map((e) => e.operation).filter((op) => op.method === 'GET');
    await seedOrg(h, 'plans');
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await h.close();
  });

  async function planOf(statement: Captured): Promise<string[]> {
    const db = h.gateway.database.db;
    if (h.gateway.database.dialect === 'sqlite') {
      const result = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${statement.sql}`, [...statement.parameters]));
      return result.rows.map((r) => r.detail);
    }
    return db.transaction().execute(async (tx) => {
      await sql`set local enable_seqscan = off`.execute(tx);
      const result = await tx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${statement.sql}`, [...statement.parameters]));
      return result.rows.map((r) => r['QUERY PLAN']);
    });
  }

  /** A successful call of each read through its own door: the fixtures for API and portal keys, the example for the operator's. */
  async function callFor(op: Operation): Promise<{ call: Call; credential: string | undefined; headers: Record<string, string> }> {
    const audience = audienceOf(op);
    if (audience === 'operator') {
      const example = op.example as { params?: Record<string, string>; query?: Record<string, string> };
      const query = example.query === undefined ? undefined : Object.fromEntries(Object.entries(example.query).map(([k, v]) => [k, k === 'org' ? 'plans' : v]));
      return { call: { ...(example.params ? { params: example.params } : {}), ...(query ? { query } : {}) }, credential: HARNESS_ADMIN_TOKEN, headers: {} };
    }
    const fixture = (audience === 'portal' ? PORTAL_FIXTURES : FIXTURES)[op.name];
    if (fixture === undefined) throw new Error(`${op.name} has no fixture`);
    const call = await fixture(h, 'plans');
    if (audience === 'portal') return { call, credential: undefined, headers: { 'x-portal-key': await portalKeyOf(h, 'plans'), origin: PORTAL_ORIGIN } };
    return { call, credential: await seedOrg(h, 'plans'), headers: {} };
  }

  /** A list's sync orders (updated_since, created_since), each asked from long ago so every row is in them. */
  function sinceQueries(op: Operation): Record<string, string>[] {
    const shape = (op.query as { shape?: Record<string, unknown> } | undefined)?.shape ?? {};
    return ['updated_since', 'created_since'].filter((name) => name in shape).map((name) => ({ [name]: '2000-01-01T00:00:00Z' }));
  }

  const hasQuery = (op: Operation, name: string) => name in ((op.query as { shape?: Record<string, unknown> } | undefined)?.shape ?? {});

  it('covers the read operations and the sync orders of the partner lists', () => {
    const synced = reads.filter((op) => sinceQueries(op).length > 0).map((op) => op.name);
    expect(synced).toEqual(
      expect.arrayContaining(['products_list', 'orders_list', 'warranty_claims_list', 'edi_messages_list', 'telematics_connections_list']),
    );
  });

  /** Reads answered from the code (a catalog), with no database at all. */
  const FROM_CODE = new Set(['webhook_event_types_list']);

  it('covers the read operations', () => {
    expect(reads.length).toBeGreaterThan(10);
  });

  it('plans every statement of every read operation without a table scan', async () => {
    const scans: string[] = [];
    let checked = 0;
    for (const op of reads) {
      const { call, credential, headers } = await callFor(op);
      // The fixture's call, then the same with the filters of the operation's example (a list's filters plan differently).
      const example = (op.example as { query?: Record<string, string> }).query;
      const calls = example === undefined || audienceOf(op) === 'operator' ? [call] : [call, { ...call, query: { ...call.query, ...example } }];
      for (const since of sinceQueries(op)) calls.push({ ...call, query: { ...call.query, ...since } }, { ...call, query: { ...call.query, ...example, ...since } });
      // A catalog search by tire size takes its own index (products_org_size_idx), with and without a sync order, also
      // with a load index, speed rating and other words narrowing it.
      if (hasQuery(op, 'q')) {
        calls.push({ ...call, query: { ...call.query, q: '225 45 17' } }, { ...call, query: { ...call.query, q: 'michelin 225/45R17 94W' } });
        calls.push(...sinceQueries(op).map((since) => ({ ...call, query: { ...call.query, q: 'P225/45R17', ...since } })));
        calls.push(...sinceQueries(op).map((since) => ({ ...call, query: { ...call.query, q: 'pilot 225/45R17 94Y', ...since } })));
      }
      for (const variant of calls) {
        capture.start();
        const answer = await callRest(h, op, variant, credential, headers);
        const statements = capture.stop().filter((s) => /^\s*select\b/i.test(s.sql));
        // The example's values may name nothing in this org (a 404 still ran its statements); the fixture's call must succeed.
        expect(answer.status, `${op.name}: ${JSON.stringify(answer.payload).slice(0, 300)}`).toBeLessThan(variant === call ? 300 : 500);
        if (FROM_CODE.has(op.name)) continue;
        expect(statements.length, `${op.name} ran no SELECT while captured`).toBeGreaterThan(0);
        for (const statement of statements) {
          checked++;
          for (const line of tableScans(await planOf(statement))) scans.push(`${op.name}: ${line.trim()} in ${statement.sql.slice(0, 160)}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(reads.length);
    expect(reads.filter((op) => hasQuery(op, 'q')).map((op) => op.name)).toEqual(expect.arrayContaining(['products_list', 'portal_products_list']));
    expect(scans).toEqual([]);
  });

  it('reads an EDI message\'s bytes only when include=raw asks for them', async () => {
    // A reply kept on its row can be megabytes (a 997 to 40,000 sets): selecting it for every by-id answer fetched it
    // for nothing (1 MB on PostgreSQL: 4.2 ms against 0.1 ms without it, docs/decisions.md).
    const op = reads.find((o) => o.name === 'edi_messages_get');
    if (op === undefined) throw new Error('edi_messages_get is not a read operation');
    const { call, credential, headers } = await callFor(op);
    const bytesRead = async (query: Record<string, string>) => {
      capture.start();
      const answer = await callRest(h, op, { ...call, query }, credential, headers);
      const statements = capture.stop();
      expect(answer.status, JSON.stringify(answer.payload).slice(0, 300)).toBe(200);
      return statements.filter((s) => /"edi_message_chunks"/.test(s.sql) || (/from "edi_messages"/.test(s.sql) && /select \*|"raw"/.test(s.sql))).map((s) => s.sql);
    };
    expect(await bytesRead({})).toEqual([]);
    expect(await bytesRead({ include: 'raw' })).not.toEqual([]);
  });

  it('seeks the index to a later page\'s cursor instead of walking down to it', async () => {
    // An index search on the org alone, with the cursor as a filter, reads every row above the cursor: page 5,000 of a
    // list costs 5,000 pages. The paged statement (a LIMIT and a comparison) must have the comparison in its search.
    const walked: string[] = [];
    const paged: string[] = [];
    for (const op of reads) {
      const { call, credential, headers } = await callFor(op);
      for (const since of [{}, ...sinceQueries(op)]) {
      const listed = { ...call, query: { ...call.query, ...since, limit: '1' } };
      const first = await callRest(h, op, listed, credential, headers);
      const cursor = first.payload.next_cursor;
      if (typeof cursor !== 'string') continue;
      capture.start();
      const answer = await callRest(h, op, { ...listed, query: { ...listed.query, cursor } }, credential, headers);
      const statements = capture.stop().filter((s) => /^\s*select\b/i.test(s.sql) && /\blimit\b/i.test(s.sql) && /[<>]/.test(s.sql));
      expect(answer.status, `${op.name}: ${JSON.stringify(answer.payload).slice(0, 300)}`).toBe(200);
      paged.push([op.name, ...Object.keys(since)].join(' '));
      for (const statement of statements) {
        const plan = await planOf(statement);
        if (!plan.some((line) => /^\s*SEARCH .*[<>]/.test(line) || /Index Cond: .*[<>]/.test(line))) walked.push(`${op.name}: ${plan.join('; ')} in ${statement.sql.slice(0, 200)}`);
      }
      }
    }
    expect(paged).toEqual(expect.arrayContaining(['orders_list', 'edi_messages_list', 'products_list updated_since', 'orders_list created_since', 'edi_messages_list updated_since', 'warranty_claims_list updated_since', 'warranty_claims_list created_since']));
    expect(walked).toEqual([]);
  });
});
