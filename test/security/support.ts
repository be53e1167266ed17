import type { InjectOptions } from 'fastify';
import { audienceOf, type Operation } from '../../src/platform/operations/operation.js';
import { PORTAL_ORIGIN } from '../operations/fixtures.js';
import { HARNESS_ADMIN_TOKEN, type Harness } from '../support/harness.js';
import { harnessTables } from '../support/row-counts.js';

/** One answer, or a rejection naming the request when the gateway does not answer in time (a hang, not a slow reply). */
export async function injectOrHang(h: Harness, opts: InjectOptions, label: string, ms = 15_000): Promise<Awaited<ReturnType<Harness['request']>>> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${label}`)), ms);
  });
  try {
    return await Promise.race([h.request(opts), hang]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Every row of every table of the harness's database, rows sorted, as one comparable value. `ignore` names
 * `table.column`s that legitimately change on a refused request (none so far: say why when adding one).
 */
export async function dumpDatabase(h: Harness, ignore: readonly string[] = []): Promise<Record<string, string[]>> {
  const { db } = h.gateway.database;
  const dump: Record<string, string[]> = {};
  for (const table of await harnessTables(h)) {
    const from = h.databaseSchema ? db.withSchema(h.databaseSchema) : db;
    const rows = (await from.selectFrom(table as never).selectAll().execute()) as Record<string, unknown>[];
    dump[table] = rows
      .map((row) => {
        const kept = Object.fromEntries(Object.entries(row).filter(([column]) => !ignore.includes(`${table}.${column}`)));
        return JSON.stringify(kept, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('hex') : typeof v === 'bigint' ? v.toString() : v));
      })
      .sort();
  }
  return dump;
}

/** The error envelope, checked without vitest's expect so a property can report what broke. */
export function envelopeProblem(res: { statusCode: number; body: string; headers: Record<string, unknown> }): string | undefined {
  if (res.statusCode < 400 || res.statusCode >= 500) return `status ${res.statusCode}`;
  const type = res.headers['content-type'];
  if (typeof type !== 'string' || !type.startsWith('application/json')) return `content-type ${JSON.stringify(type)}`;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(res.body) as Record<string, unknown>;
  } catch {
    return 'body is not JSON';
  }
  if (body.ok !== false) return 'ok is not false';
  if (body.status !== res.statusCode) return `status field ${String(body.status)}`;
  if (typeof body.error !== 'string' || body.error === '') return 'no error text';
  if (typeof body.code !== 'string' || !/^[a-z][a-z_]*$/.test(body.code)) return `code ${String(body.code)}`;
  if (typeof body.request_id !== 'string' || body.request_id === '') return 'no request_id';
  return undefined;
}

/** The headers that open an operation's door: the API key, the portal key from its listed origin, or the admin token. */
export function doorHeaders(op: Operation, keys: { apiKey: string; portalKey: string }): Record<string, string> {
  switch (audienceOf(op)) {
    case 'api':
      return { authorization: `Bearer ${keys.apiKey}` };
    case 'portal':
      return { 'x-portal-key': keys.portalKey, origin: PORTAL_ORIGIN };
    case 'operator':
      return { authorization: `Bearer ${HARNESS_ADMIN_TOKEN}` };
    default:
      return {};
  }
}
