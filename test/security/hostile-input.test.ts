import type { InjectOptions } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audienceOf, type Operation } from '../../src/platform/operations/operation.js';
import { FIXTURES, PORTAL_FIXTURES, PORTAL_ORIGIN, seedOrg } from '../operations/fixtures.js';
import { dialects, type Harness, startHarness } from '../support/harness.js';
import type { Call } from '../support/operations.js';
import { doorHeaders, dumpDatabase, envelopeProblem, injectOrHang } from './support.js';

/** The process's own heartbeat moves on its timer, whatever the requests do. */
const HEARTBEAT = ['gateway_instances.heartbeat_ms'];

/**
 * Walks the OpenAPI document and sends every operation malformed input through its own door (a key with every
 * scope, the org's portal key, the operator token, or none for POST /connect). Every answer must be a 4xx in the
 * error envelope, never a 5xx or a hang, and a refused request must leave every table as it was.
 */

const SEED = Number(process.env.FC_SEED ?? 20_260_601);
const RUNS = Number(process.env.FC_RUNS ?? 12);

const MB = 1024 * 1024;
const HUGE = 'x'.repeat(MB);
const DEEP = 10_000;
/** JSON text nested DEEP levels: arrays, and objects under an unknown key. */
const deepArray = `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`;
const deepObject = `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`;

/** Raw JSON texts: numbers JSON.parse turns into something else, and strings storage cannot keep. */
const RAW_NUMBERS = ['1e400', '-1e400', '9007199254740993', '-9007199254740993', '1e-400', '-0', '0.1e999', '123456789012345678901234567890'];
const UNSAFE_STRINGS = ['"\\ud800"', '"a\\udc00b"', '"\\u0000"', '"ok\\u0000ok"', `"${HUGE}"`];
/** Strings a text field may legitimately hold; hostile as keys (unknown) and as numbers' or lists' values. */
const ODD_STRINGS = ['\u202e\u0645\u0631\u062d\u0628\u0627', '\u200f', '\ufeff', '\u200b\u200d', '\u{e0069}\u{e0067}\u{e006e}', '\u3164', 'a\ufe0f', 'e\u0301\u0301\u0301', '\ud83d\ude00', '${7*7}', '<script>', "' or 1=1 --", '../../etc/passwd'];
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];
/** A value of each JSON kind, for a field of another kind. */
const WRONG_KINDS = ['null', 'true', '[]', '{}', '"text"', '12.5', deepArray, deepObject, '[1e400]', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}'];

const json = (s: string) => JSON.stringify(s);
const kindOf = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

/** A hostile JSON text for a field whose valid value is `valid`: always of another kind, or a string storage refuses. */
function hostileFor(valid: unknown): fc.Arbitrary<string> {
  const kind = kindOf(valid);
  const pool = [
    ...WRONG_KINDS.filter((text) => kindOf(JSON.parse(text.length > 1000 ? '[]' : text)) !== kind || text.length > 1000),
    ...UNSAFE_STRINGS,
    ...(kind === 'string' ? RAW_NUMBERS : ['1e400', '-1e400', '9007199254740993', '-9007199254740993', '123456789012345678901234567890']),
    ...(kind === 'number' ? ODD_STRINGS.map(json) : []),
  ];
  return fc.constantFrom(...pool);
}

interface Mutation {
  label: string;
  /** The request to send, from the call's base request. */
  request: InjectOptions;
  /** MCP tool arguments, for API operations: the same hostile value as a tool call carries it. */
  mcpArgs?: Record<string, unknown> | undefined;
}

/** Replaces or adds `key: rawValue` in a JSON object's text (the value spliced in as text, so 1e400 stays 1e400). */
function withRawField(body: Record<string, unknown>, key: string, rawValue: string, duplicateFirst = false): string {
  const rest = Object.entries(body)
    .filter(([k]) => k !== key || duplicateFirst)
    .map(([k, v]) => `${json(k)}:${JSON.stringify(v)}`);
  return `{${[...rest, `${json(key)}:${rawValue}`].join(',')}}`;
}

const encodePath = (op: Operation, params: Record<string, string>) => op.path.replace(/:([a-z_]+)/g, (_m, name: string) => params[name] ?? `missing-${name}`);
const safeEncode = (s: string) => encodeURIComponent(s);
/** Path segments of odd shapes, already as they go on the wire. */
const ODD_SEGMENTS = [
  '..',
  '%2e%2e',
  '%2F',
  'a%2Fb',
  '%00',
  '%ED%A0%80',
  '%FF%FE',
  '%',
  '%zz',
  safeEncode('\u202e'),
  safeEncode('x\u{e0041}\u{e0042}'),
  safeEncode('\ud83d\ude00'),
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  '9007199254740993',
  '-0',
  '1e400',
  '%20',
  'x'.repeat(100_000),
  safeEncode("' or 1=1 --"),
];

/** The arbitrary of malformed requests for one operation, built on a valid call of it. */
function mutations(op: Operation, call: Call, door: Record<string, string>): fc.Arbitrary<Mutation> {
  const params = Object.fromEntries(Object.entries(call.params ?? {}).map(([k, v]) => [k, safeEncode(v)]));
  const path = encodePath(op, params);
  const query = new URLSearchParams(call.query ?? {}).toString();
  const url = (q: string, p = path) => (q ? `${p}?${q}` : p);
  const jsonBody = op.body !== undefined;
  const base = (call.body ?? {}) as Record<string, unknown>;
  const contentType = op.rawBody ? (op.rawBody.mediaTypes[0] ?? 'text/plain') : 'application/json';
  const validPayload = call.body === undefined ? undefined : op.rawBody ? (call.body as string) : JSON.stringify(call.body);
  const send = (payload: string | undefined, headers: Record<string, string> = {}, u = url(query)): InjectOptions => ({
    method: op.method,
    url: u,
    headers: { ...door, ...(payload === undefined ? {} : { 'content-type': contentType }), ...headers },
    ...(payload === undefined ? {} : { payload }),
  });
  const argsBase = { ...(call.params ?? {}), ...(call.query ?? {}), ...(op.rawBody ? {} : base) };
  const mcpWith = (extra: Record<string, unknown>) => (audienceOf(op) === 'api' && !op.absent?.mcp && !op.mcp ? { ...argsBase, ...extra } : undefined);

  const arbs: fc.Arbitrary<Mutation>[] = [];

  // An unknown query parameter, of any name and value: every operation's query is strict.
  arbs.push(
    fc.tuple(fc.constantFrom(...PROTO_KEYS, 'zz', '\u202e', 'x'.repeat(1000)), fc.constantFrom(...ODD_STRINGS, HUGE, '1e400', '-0', '9007199254740993')).map(([k, v]) => ({
      label: `unknown query parameter ${k.slice(0, 20)}=${v.slice(0, 20)}`,
      request: send(validPayload, {}, url([query, `${safeEncode(k)}=${safeEncode(v)}`].filter(Boolean).join('&'))),
      mcpArgs: mcpWith({ [k]: v }),
    })),
  );
  // A paging limit that is no positive whole number, or given twice.
  if (op.query && 'limit' in op.query.shape) {
    arbs.push(
      fc.constantFrom('abc', '-0', '0', '-1', '1e400', '9007199254740993', '5.5', 'NaN', 'Infinity', '%00', '%ED%A0%80', 'limit=1&limit').map((v) => ({
        label: `limit=${v}`,
        request: send(undefined, {}, url(v.includes('=') ? `limit=1&${v}=2` : `limit=${v}`)),
      })),
    );
    arbs.push(
      fc.constantFrom('!!!', 'not-a-cursor', '%00', 'eyJfX3Byb3RvX18iOnt9fQ', safeEncode('\u202e'), 'x'.repeat(10_000)).map((v) => ({
        label: `cursor=${v.slice(0, 20)}`,
        request: send(undefined, {}, url(`cursor=${v}`)),
      })),
    );
  }
  // A path parameter of an odd shape, with an otherwise valid request.
  if (op.params && Object.keys(op.params.shape).length > 0) {
    const names = Object.keys(op.params.shape);
    arbs.push(
      fc.tuple(fc.constantFrom(...names), fc.constantFrom(...ODD_SEGMENTS)).map(([name, segment]) => ({
        label: `path ${name}=${segment.slice(0, 20)}`,
        request: send(validPayload, {}, url(query, encodePath(op, { ...params, [name]: segment }))),
      })),
    );
  }
  if (jsonBody) {
    const fields = Object.keys(base);
    // The whole body of the wrong kind, not JSON, or missing what it needs.
    arbs.push(
      fc
        .constantFrom(...WRONG_KINDS.filter((t) => t !== '{}'), ...RAW_NUMBERS, ...UNSAFE_STRINGS, '', '{', '{"a":', "{'a':1}", '{"a":1,}', '\u0000', '\ufeff{}', 'NaN', '[]', 'undefined')
        .filter((t) => !(t === '' && fields.length === 0))
        .map((text) => ({ label: `body ${text.slice(0, 30)}`, request: send(text), mcpArgs: mcpWith({ zz: text.slice(0, 100) }) })),
    );
    if (fields.length > 0) {
      // A required field left out (every field of the valid body, in turn, where the schema says it is required).
      const required = fields.filter((f) => {
        const shape = (op.body as unknown as { shape?: Record<string, { safeParse(v: unknown): { success: boolean } }> }).shape;
        return shape?.[f]?.safeParse(undefined).success === false;
      });
      if (required.length > 0) {
        arbs.push(
          fc.constantFrom(...required).map((f) => {
            const { [f]: _dropped, ...rest } = base;
            return { label: `missing ${f}`, request: send(JSON.stringify(rest)), mcpArgs: mcpWith({ [f]: undefined }) };
          }),
        );
      }
      // A field of the wrong kind, or a string storage cannot keep; and the same as a duplicate key whose last value wins.
      arbs.push(
        fc
          .constantFrom(...fields)
          .chain((f) => fc.tuple(fc.constant(f), hostileFor(base[f]), fc.boolean()))
          .map(([f, raw, duplicate]) => ({
            label: `${duplicate ? 'duplicate ' : ''}${f}: ${raw.slice(0, 30)}`,
            request: send(withRawField(base, f, raw, duplicate)),
            mcpArgs: raw.length > 1000 ? undefined : mcpWith({ [f]: JSON.parse(raw) as unknown }),
          })),
      );
    }
    // An unknown key: prototype keys, unsafe, huge, bidirectional-override or empty names, with hostile values.
    arbs.push(
      fc
        .tuple(fc.constantFrom(...PROTO_KEYS, '\\u0000', '\\ud800', '\u202e', '', 'x'.repeat(10_000), '__proto__\\u0000'), fc.constantFrom('1', '{}', '{"polluted":true}', deepArray, '"\\u0000"', '9007199254740993'))
        .map(([rawKey, raw]) => ({
          label: `key ${rawKey.slice(0, 20)}: ${raw.slice(0, 20)}`,
          request: send(`${withRawField(base, '\u0001', raw).replace('"\\u0001"', `"${rawKey}"`)}`),
          mcpArgs: raw.length > 1000 || rawKey.includes('\\') ? undefined : mcpWith({ [rawKey]: JSON.parse(raw) as unknown }),
        })),
    );
  }
  if (op.rawBody) {
    arbs.push(
      fc.constantFrom('', '\u0000', 'ISA*\u0000', 'ISA', '\ud800', '\u202eISA*00*', `ISA${'*'.repeat(200)}~`, deepArray, HUGE, 'ISA*00*          *00*          *ZZ*'.padEnd(106, ' ') + '~GS*PO~ST*850*1~SE*1*1~GE*1*1~IEA*1*1~').map((text) => ({
        label: `raw body ${text.slice(0, 30)}`,
        request: send(text),
      })),
    );
  }
  // A body in a media type the operation does not take (or, for a body-less one, a body it does not take).
  if (jsonBody || op.rawBody) {
    arbs.push(
      fc
        .constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=zz', 'application/xml', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'text/html', '*/*', 'application/json-patch+json')
        .filter((t) => !(op.rawBody?.mediaTypes.includes(t) ?? false))
        .map((type) => ({ label: `content-type ${type}`, request: send(validPayload ?? '{}', { 'content-type': op.rawBody && type === 'text/plain' ? 'application/json' : type }) })),
    );
  } else if (op.method !== 'GET') {
    arbs.push(fc.constantFrom('{"zz":1}', '[]', '"x"', deepArray, '{"__proto__":{}}').map((text) => ({ label: `body on a body-less operation ${text.slice(0, 20)}`, request: send(text, { 'content-type': 'application/json' }) })));
  }
  return fc.oneof(...arbs);
}

interface DocOperation {
  operationId: string;
  method: string;
  /** OpenAPI's `{name}` form. */
  path: string;
}

/**
 * Tables a refused request may legitimately write: `POST /v1/edi` stores every authenticated body before reading it
 * ("nothing received is lost", docs/decisions.md, EDI), so a refused interchange adds its row and chunks, never
 * changing an existing one, and its `edi.message.received` event (a partner's webhook learns of refusals too).
 */
const KEPT_ON_REFUSAL: Record<string, readonly string[]> = { edi_submit: ['edi_messages', 'edi_message_chunks', 'webhook_events'] };

/** Malformed callback queries for an HTML page (the vendor's redirect back): a person reads its answer, so no envelope. */
const pageQueries: fc.Arbitrary<string> = fc
  .tuple(fc.subarray(['state', 'code', 'error', '__proto__', 'constructor', 'zz'], { minLength: 1 }), fc.constantFrom('', '%00', '%ED%A0%80', safeEncode('\u202e'), 'x'.repeat(100_000), '1e400', 'access_denied', 'state=a&state'))
  .map(([names, value]) => names.map((n) => `${n}=${value}`).join('&'));

describe.each(dialects)('hostile input on every operation in the OpenAPI document (%s)', (dialect) => {
  let h: Harness;
  let documented: DocOperation[];
  let byName: Map<string, Operation>;
  let apiKey: string;
  let portalKey: string;
  let ips = 0;
  beforeAll(async () => {
    // The clock stands still in tests: a per-minute budget would never refill over a few hundred requests.
    h = await startHarness(dialect, { env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
    // The process registers as an owner before its first claim; done here, so no request is seen adding its row.
    await h.gateway.instances.start();
    const doc = (await h.request({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { operationId: string }>> }>();
    documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ operationId: op.operationId, method, path })));
    byName = new Map(h.gateway.operations.map((e) => [e.operation.name, e.operation]));
    apiKey = await seedOrg(h, 'owner');
    portalKey = (await h.gateway.services.portalKeys.create({ org: 'owner', dealer: 'Fuzz dealer', origins: [PORTAL_ORIGIN], rate_limit_per_minute: 100_000, ip_rate_limit_per_minute: 100_000 })).key;
  });
  afterAll(() => h.close());

  const doorOf = (op: Operation) => doorHeaders(op, { apiKey, portalKey });
  /** A valid call: the operation's fixture where the security suite has one (so path ids exist), else its documented example. */
  const callOf = async (op: Operation): Promise<Call> => {
    const fixture = FIXTURES[op.name] ?? PORTAL_FIXTURES[op.name];
    if (fixture) return fixture(h, 'owner');
    return { ...(op.example.params ? { params: op.example.params } : {}), ...(op.example.query ? { query: op.example.query } : {}), ...(op.example.body === undefined ? {} : { body: op.example.body }) };
  };

  /** Operations outside the property, each with why: they take no input a client could get wrong. */
  const NO_INPUT = new Set(['healthz']);
  /** Documented routes that are pages, not operations (the OAuth redirect back): checked by their own property below. */
  const pages = () => documented.filter((d) => !NO_INPUT.has(d.operationId) && !byName.has(d.operationId));

  it('walks every documented operation (a new one is covered the day it is documented)', () => {
    expect(pages().map((d) => d.operationId)).toEqual(['connect_oauth_callback']);
    expect(documented.length).toBeGreaterThan(30);
  });

  it('refuses a `__proto__` key in MCP tool arguments as REST refuses it in a body, and creates nothing', async () => {
    const sku = 'PROTO-MCP-1';
    const payload = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"products_create","arguments":{"sku":"${sku}","name":"n","stock_qty":1,"__proto__":{"status":"discontinued"}}}}`;
    const headers = { authorization: `Bearer ${apiKey}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' };
    const res = await injectOrHang(h, { method: 'POST', url: '/mcp', headers, payload }, 'mcp __proto__');
    expect(envelopeProblem(res), res.body).toBeUndefined();
    expect(res.statusCode).toBe(400);
    expect(res.json<{ error: string }>().error).toContain('__proto__');
    expect((await h.request({ method: 'GET', url: `/v1/products/${sku}`, key: apiKey })).statusCode).toBe(404);
  });

  it('answers a malformed query to every documented page with a 4xx page, never a 5xx or a hang, and writes nothing', async () => {
    for (const page of pages()) {
      const before = await dumpDatabase(h, HEARTBEAT);
      await fc.assert(
        fc.asyncProperty(pageQueries, async (query) => {
          const res = await injectOrHang(h, { method: 'GET', url: `${page.path}?${query}` }, `${page.operationId}?${query.slice(0, 40)}`);
          expect(res.statusCode, `${page.operationId}?${query.slice(0, 60)}`).toBeGreaterThanOrEqual(400);
          expect(res.statusCode, `${page.operationId}?${query.slice(0, 60)}`).toBeLessThan(500);
          expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
        }),
        { seed: SEED, numRuns: RUNS },
      );
      expect(await dumpDatabase(h, HEARTBEAT), page.operationId).toEqual(before);
    }
  });

  it('answers malformed input to every operation with a 4xx envelope, never a 5xx or a hang, and writes nothing', { timeout: 600_000 }, async () => {
    const failures: string[] = [];
    for (const { operationId } of documented) {
      if (NO_INPUT.has(operationId)) continue;
      const op = byName.get(operationId);
      if (!op) continue;
      const call = await callOf(op);
      const door = doorOf(op);
      const before = await dumpDatabase(h, HEARTBEAT);
      const result = await fc.check(
        fc.asyncProperty(mutations(op, call, door), async (m) => {
          const request = { ...m.request, remoteAddress: `10.66.${Math.floor(++ips / 250) % 250}.${(ips % 250) + 1}` };
          const res = await injectOrHang(h, request, `${op.name}: ${m.label}`);
          const problem = envelopeProblem(res);
          if (problem) throw new Error(`${op.name} REST ${m.label}: ${problem}: ${res.body.slice(0, 300)}`);
          if (m.mcpArgs === undefined) return;
          const mcp = await injectOrHang(
            h,
            {
              method: 'POST',
              url: '/mcp',
              headers: { ...door, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
              payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: op.name, arguments: m.mcpArgs } },
            },
            `${op.name} MCP: ${m.label}`,
          );
          if (mcp.statusCode !== 200) {
            const mcpProblem = envelopeProblem(mcp);
            if (mcpProblem) throw new Error(`${op.name} MCP ${m.label}: ${mcpProblem}: ${mcp.body.slice(0, 300)}`);
            return;
          }
          const answer = JSON.parse(mcp.body) as { result?: { isError?: boolean; structuredContent?: { status?: number } } };
          const status = answer.result?.structuredContent?.status ?? 0;
          if (answer.result?.isError !== true || status < 400 || status >= 500) throw new Error(`${op.name} MCP ${m.label}: ${mcp.body.slice(0, 300)}`);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
      if (result.failed) failures.push(`${fc.defaultReportMessage(result) ?? op.name}\n(seed ${SEED}; rerun with FC_SEED=${SEED})`);
      const after = await dumpDatabase(h, HEARTBEAT);
      for (const table of Object.keys({ ...before, ...after })) {
        const was = before[table] ?? [];
        const now = after[table] ?? [];
        const kept = KEPT_ON_REFUSAL[op.name]?.includes(table) === true && was.every((row) => now.includes(row));
        if (!kept && JSON.stringify(was) !== JSON.stringify(now)) failures.push(`${op.name}: table ${table} changed on refused requests (seed ${SEED})`);
      }
    }
    expect(failures, failures.join('\n\n')).toEqual([]);
  });
});
