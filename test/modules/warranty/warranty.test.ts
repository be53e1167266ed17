import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_STATUSES, type ClaimStatus } from '../../../src/modules/warranty/claim-states.js';
import { typedQuery } from '../../../src/platform/operations/query-string.js';
import { expectError, itChecksAuth } from '../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';

interface ClaimBody {
  id: string;
  claim_number: string;
  status: ClaimStatus;
  description: string;
  sku: string | null;
  dot_number: string | null;
  quantity: number | null;
  customer_ref: string | null;
  resolution: string | null;
  history: { from: ClaimStatus | null; to: ClaimStatus; at: string; key_id: string }[];
  created_at: string;
  updated_at: string;
}

/** The lifecycle the issue fixes, written out independently of the code under test. */
const ALLOWED: Record<ClaimStatus, ClaimStatus[]> = {
  submitted: ['under_review', 'approved', 'denied', 'closed'],
  under_review: ['approved', 'denied', 'closed'],
  approved: ['closed'],
  denied: ['under_review', 'closed'],
  closed: [],
};

describe.each(dialects)('warranty claims (%s)', (dialect) => {
  let h: Harness;
  let rw: string;
  let rwKeyId: string;
  beforeAll(async () => {
    h = await startHarness(dialect);
    const key = await h.key('acme', 'warranty:read,warranty:write,products:write', { rateLimit: 100_000 });
    rw = key.key;
    rwKeyId = key.id;
    const product = await h.request({ method: 'POST', url: '/v1/products', key: rw, payload: { sku: 'Pilot-225-45R17', name: 'Pilot Sport' } });
    expect(product.statusCode, product.body).toBe(201);
  });
  afterAll(async () => h.close());

  const create = (payload: unknown, key = rw) =>
    h.request({ method: 'POST', url: '/v1/warranty-claims', payload: payload as object, key });
  const patch = (ref: string, payload: unknown, key = rw) =>
    h.request({ method: 'PATCH', url: `/v1/warranty-claims/${ref}`, payload: payload as object, key });
  const claimOf = (res: { json<T>(): T }) => res.json<{ claim: ClaimBody }>().claim;
  const newClaim = async (payload: object = { description: 'Sidewall bulge after 2,000 km' }, key = rw) => {
    const res = await create(payload, key);
    expect(res.statusCode, res.body).toBe(201);
    return claimOf(res);
  };
  const claimCount = async (key = rw) =>
    (await h.request({ method: 'GET', url: '/v1/warranty-claims?limit=200', key })).json<{ claims: unknown[] }>().claims.length;

  describe('auth', () => {
    itChecksAuth(() => h, { method: 'GET', url: '/v1/warranty-claims', scope: 'warranty:read' });
    itChecksAuth(() => h, { method: 'GET', url: '/v1/warranty-claims/WC-000001', scope: 'warranty:read' });
    itChecksAuth(() => h, { method: 'POST', url: '/v1/warranty-claims', scope: 'warranty:write', payload: { description: 'x' } });
    itChecksAuth(() => h, { method: 'PATCH', url: '/v1/warranty-claims/WC-000001', scope: 'warranty:write', payload: { status: 'closed' } });

    it('refuses writes to a read-only key', async () => {
      const reader = await h.key('acme', 'warranty:read');
      const body = expectError(await create({ description: 'x' }, reader.key), 403, 'missing_scope');
      expect(body.error).toBe('missing scope: warranty:write');
    });
  });

  describe('create', () => {
    it('files a claim as submitted with a claim number and a first history entry', async () => {
      const org = await h.key('create-org', 'warranty:read,warranty:write');
      const at = h.clock.now().toISOString();
      const res = await create({ description: 'Tread separation' }, org.key);
      expect(res.statusCode, res.body).toBe(201);
      const body = res.json<{ ok: boolean; claim: ClaimBody }>();
      expect(body.ok).toBe(true);
      expect(body.claim).toMatchObject({
        claim_number: 'WC-000001',
        status: 'submitted',
        description: 'Tread separation',
        sku: null,
        dot_number: null,
        quantity: null,
        customer_ref: null,
        resolution: null,
        created_at: at,
        updated_at: at,
      });
      expect(body.claim.id).toMatch(/^wc_[0-9a-z]{26}$/);
      expect(body.claim.history).toEqual([{ from: null, to: 'submitted', at, key_id: org.id }]);
      expect(claimOf(await create({ description: 'Second' }, org.key)).claim_number).toBe('WC-000002');
    });

    it('stores the SKU as the catalog spells it and the DOT code normalised', async () => {
      const claim = await newClaim({
        description: 'Bead damage',
        sku: 'pilot-225-45r17',
        dot_number: 'dot u2ll lmlr 5107',
        quantity: 4,
        customer_ref: 'RMA-88',
      });
      expect(claim).toMatchObject({ sku: 'Pilot-225-45R17', dot_number: 'DOT U2LLLMLR 5107', quantity: 4, customer_ref: 'RMA-88' });
    });

    it.each([
      ['DOT U2LL LMLR 5107', 'DOT U2LLLMLR 5107'],
      ['U2LLLMLR5107', 'DOT U2LLLMLR 5107'],
      ['DOT AB CD 0120', 'DOT ABCD 0120'],
      ['DOT 4B3 ABCDEF 2223', 'DOT 4B3ABCDEF 2223'],
      ['  DOT  A1B2   C3D4  1526 ', 'DOT A1B2C3D4 1526'],
      ['DOT XY7R 2326', 'DOT XY7R 2326'],
    ])('accepts the DOT code %s', async (dot, normalised) => {
      expect((await newClaim({ description: 'DOT check', dot_number: dot })).dot_number).toBe(normalised);
    });

    it.each([
      ['', /no symbols/],
      ['DOT', /no symbols/],
      ['DOT U2LL LMLR 51O7', /letter O/],
      ['DOT U2IL LMLR 5107', /letter I/],
      ['DOT SQ12 5107', /letter S/],
      ['DOT U2LL-LMLR 5107', /only letters, digits and spaces/],
      ['DOT U2LL LMLR', /4-digit date code/],
      ['DOT U2LL LMLR 517', /4-digit date code/],
      ['DOT U2 5107', /8 to 13/],
      ['DOT 4B3 ABCDEF HJ 2223', /8 to 13/],
      ['DOT U2LL LMLR 0007', /week 00 does not exist/],
      ['DOT U2LL LMLR 5407', /week 54 does not exist/],
      ['DOT U2LL LMLR 0199', /in the future/],
      ['DOT U2LL LMLR 3026', /in the future/],
    ])('refuses the DOT code %j', async (dot, message) => {
      const before = await claimCount();
      const body = expectError(await create({ description: 'DOT check', dot_number: dot }), 400, 'invalid_input');
      expect(body.error).toMatch(message);
      // The schema refuses characters outside the DOT format ("invalid body: ..."); the service checks the rest.
      expect(body.details).toEqual([{ path: 'dot_number', message: expect.stringMatching(message) as string }]);
      expect(body.error).toMatch(/^(invalid body: dot_number: )?dot_number /);
      expect(await claimCount()).toBe(before);
    });

    it.each([
      ['no body fields', {}],
      ['a missing description', { sku: 'Pilot-225-45R17' }],
      ['an empty description', { description: '' }],
      ['a blank description', { description: '   ' }],
      ['a description over 4000 chars', { description: 'x'.repeat(4001) }],
      ['a numeric description', { description: 42 }],
      ['quantity 0', { description: 'x', quantity: 0 }],
      ['a negative quantity', { description: 'x', quantity: -2 }],
      ['a fractional quantity', { description: 'x', quantity: 1.5 }],
      ['a quantity as text', { description: 'x', quantity: '2' }],
      ['a customer_ref over 128 chars', { description: 'x', customer_ref: 'r'.repeat(129) }],
      ['an empty customer_ref', { description: 'x', customer_ref: '' }],
      ['a numeric sku', { description: 'x', sku: 12 }],
      ['an unknown field', { description: 'x', priority: 'high' }],
      ['a status on create', { description: 'x', status: 'approved' }],
      ['a numeric dot_number', { description: 'x', dot_number: 5107 }],
    ])('refuses %s with 400 and writes nothing', async (_label, payload) => {
      const before = await claimCount();
      expectError(await create(payload), 400, 'invalid_input');
      expect(await claimCount()).toBe(before);
    });

    it('refuses an SKU outside the catalog and keeps numbering gap-free', async () => {
      const org = await h.key('sku-org', 'warranty:read,warranty:write');
      await newClaim({ description: 'first' }, org.key);
      const body = expectError(await create({ description: 'x', sku: 'NOT-IN-CATALOG' }, org.key), 422, 'unknown_sku');
      expect(body.error).toBe('unknown sku NOT-IN-CATALOG: it is not in your catalog');
      expect(body.details).toEqual([{ path: 'sku', message: 'unknown sku NOT-IN-CATALOG: it is not in your catalog' }]);
      expect(body.param).toBe('sku');
      expect((await newClaim({ description: 'second' }, org.key)).claim_number).toBe('WC-000002');
    });

    it('refuses a body that is not a JSON object', async () => {
      expectError(await h.request({ method: 'POST', url: '/v1/warranty-claims', key: rw, payload: '[1]', headers: { 'content-type': 'application/json' } }), 400);
      expectError(await h.request({ method: 'POST', url: '/v1/warranty-claims', key: rw, payload: '{"description":', headers: { 'content-type': 'application/json' } }), 400);
    });

    it('numbers 200 concurrent creates WC-000001..WC-000200, unique and gap-free', async () => {
      const org = await h.key('busy-org', 'warranty:read,warranty:write', { rateLimit: 100_000 });
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => create({ description: `claim ${i}` }, org.key)));
      for (const res of results) expect(res.statusCode, res.body).toBe(201);
      const numbers = results.map((r) => claimOf(r).claim_number).sort();
      expect(numbers).toEqual(Array.from({ length: 200 }, (_, i) => `WC-${String(i + 1).padStart(6, '0')}`));
      expect(new Set(results.map((r) => claimOf(r).id)).size).toBe(200);
    });
  });

  describe('transitions', () => {
    /** A fresh claim moved to `status` by the shortest allowed path. */
    const claimIn = async (status: ClaimStatus): Promise<ClaimBody> => {
      const claim = await newClaim();
      if (status !== 'submitted') {
        const res = await patch(claim.id, { status });
        expect(res.statusCode, res.body).toBe(200);
      }
      return claim;
    };

    const pairs = CLAIM_STATUSES.flatMap((from) => CLAIM_STATUSES.map((to) => [from, to] as const));
    it.each(pairs.filter(([from, to]) => ALLOWED[from].includes(to)))('allows %s -> %s', async (from, to) => {
      const claim = await claimIn(from);
      h.clock.advance(1000);
      const res = await patch(claim.claim_number, { status: to });
      expect(res.statusCode, res.body).toBe(200);
      const moved = claimOf(res);
      expect(moved.status).toBe(to);
      expect(moved.history.at(-1)).toEqual({ from, to, at: h.clock.now().toISOString(), key_id: rwKeyId });
      expect(moved.updated_at).toBe(h.clock.now().toISOString());
    });

    it.each(pairs.filter(([from, to]) => !ALLOWED[from].includes(to)))('refuses %s -> %s with 409 and the allowed next states', async (from, to) => {
      const claim = await claimIn(from);
      const body = expectError(await patch(claim.id, { status: to }), 409, 'invalid_transition');
      expect(body.details).toEqual({ status: from, requested: to, allowed: ALLOWED[from] });
      expect(body.error).toContain(`cannot move from ${from} to ${to}`);
      const after = claimOf(await h.request({ method: 'GET', url: `/v1/warranty-claims/${claim.id}`, key: rw }));
      expect(after.status).toBe(from);
      expect(after.history).toHaveLength(from === 'submitted' ? 1 : 2);
    });

    it('refuses an unknown status with 400', async () => {
      const claim = await newClaim();
      for (const status of ['lost', '', 'SUBMITTED', 3, null]) {
        expectError(await patch(claim.id, { status }), 400, 'invalid_input');
      }
    });

    it('keeps the full history through an appeal, with the key of each change', async () => {
      const reviewer = await h.key('acme', 'warranty:read,warranty:write');
      const claim = await newClaim();
      const steps: [ClaimStatus, string][] = [
        ['under_review', rw], ['denied', reviewer.key], ['under_review', rw], ['approved', reviewer.key], ['closed', rw],
      ];
      for (const [status, key] of steps) {
        h.clock.advance(60_000);
        expect((await patch(claim.id, { status }, key)).statusCode).toBe(200);
      }
      const got = claimOf(await h.request({ method: 'GET', url: `/v1/warranty-claims/${claim.claim_number}`, key: rw }));
      expect(got.history.map((e) => [e.from, e.to, e.key_id])).toEqual([
        [null, 'submitted', rwKeyId],
        ['submitted', 'under_review', rwKeyId],
        ['under_review', 'denied', reviewer.id],
        ['denied', 'under_review', rwKeyId],
        ['under_review', 'approved', reviewer.id],
        ['approved', 'closed', rwKeyId],
      ]);
      const times = got.history.map((e) => e.at);
      expect([...times].sort()).toEqual(times);
      expect(new Set(times).size).toBe(times.length);
    });
  });

  describe('resolution', () => {
    it('sets, changes and clears the resolution while open, without a history entry', async () => {
      const claim = await newClaim();
      const set = claimOf(await patch(claim.id, { resolution: 'Replaced under warranty' }));
      expect(set).toMatchObject({ resolution: 'Replaced under warranty', status: 'submitted' });
      expect(set.history).toHaveLength(1);
      expect(claimOf(await patch(claim.id, { resolution: null })).resolution).toBeNull();
    });

    it('closes with a resolution in one change, then refuses any further change', async () => {
      const claim = await newClaim();
      const closed = claimOf(await patch(claim.id, { status: 'closed', resolution: 'Customer withdrew' }));
      expect(closed).toMatchObject({ status: 'closed', resolution: 'Customer withdrew' });
      const body = expectError(await patch(claim.id, { resolution: 'Changed later' }), 409, 'invalid_transition');
      expect(body.error).toMatch(/closed: its resolution can no longer change/);
      expect(body.details).toEqual({ status: 'closed', allowed: [] });
      expectError(await patch(claim.id, { status: 'closed', resolution: 'x' }), 409, 'invalid_transition');
      expect(claimOf(await h.request({ method: 'GET', url: `/v1/warranty-claims/${claim.id}`, key: rw })).resolution).toBe('Customer withdrew');
    });

    it.each([
      ['an empty change', {}],
      ['a resolution over 4000 chars', { resolution: 'x'.repeat(4001) }],
      ['a numeric resolution', { resolution: 7 }],
      ['an unknown field', { description: 'new text' }],
    ])('refuses %s with 400', async (_label, payload) => {
      const claim = await newClaim();
      expectError(await patch(claim.id, payload), 400, 'invalid_input');
    });

    it('answers 404 for a claim that does not exist', async () => {
      expectError(await patch('WC-999999', { status: 'closed' }), 404, 'not_found');
      expectError(await patch('wc_nope', { status: 'closed' }), 404, 'not_found');
    });
  });

  describe('read', () => {
    it('gets a claim by id or by claim number in any case', async () => {
      const claim = await newClaim({ description: 'lookup' });
      for (const ref of [claim.id, claim.claim_number, claim.claim_number.toLowerCase()]) {
        const res = await h.request({ method: 'GET', url: `/v1/warranty-claims/${ref}`, key: rw });
        expect(res.statusCode, res.body).toBe(200);
        expect(claimOf(res)).toEqual(claim);
      }
      expectError(await h.request({ method: 'GET', url: '/v1/warranty-claims/WC-999999', key: rw }), 404, 'not_found');
      expectError(await h.request({ method: 'GET', url: '/v1/warranty-claims/nothing', key: rw }), 404, 'not_found');
    });

    it('lists newest first with cursor paging and a status filter', async () => {
      const org = await h.key('list-org', 'warranty:read,warranty:write');
      const made: ClaimBody[] = [];
      for (let i = 0; i < 5; i++) made.push(await newClaim({ description: `claim ${i}` }, org.key));
      await patch(made[1]?.id ?? '', { status: 'approved' }, org.key);
      await patch(made[3]?.id ?? '', { status: 'approved' }, org.key);

      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const url: string = `/v1/warranty-claims?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
        const page = (await h.request({ method: 'GET', url, key: org.key })).json<{ claims: ClaimBody[]; next_cursor: string | null }>();
        expect(page.claims.length).toBeLessThanOrEqual(2);
        seen.push(...page.claims.map((c) => c.claim_number));
        cursor = page.next_cursor;
      } while (cursor);
      expect(seen).toEqual(['WC-000005', 'WC-000004', 'WC-000003', 'WC-000002', 'WC-000001']);

      const approved = (await h.request({ method: 'GET', url: '/v1/warranty-claims?status=approved', key: org.key })).json<{ claims: ClaimBody[]; next_cursor: null }>();
      expect(approved.claims.map((c) => c.claim_number)).toEqual(['WC-000004', 'WC-000002']);
      expect(approved.claims[0]?.history.map((e) => e.to)).toEqual(['submitted', 'approved']);
      expect(approved.next_cursor).toBeNull();
      const closed = (await h.request({ method: 'GET', url: '/v1/warranty-claims?status=closed', key: org.key })).json<{ claims: ClaimBody[] }>();
      expect(closed.claims).toEqual([]);
    });

    it.each(['status=lost', 'status=', 'limit=0', 'limit=201', 'limit=abc', 'cursor=%%%', 'cursor=eyJ4IjoxfQ', 'sort=asc'])(
      'refuses the list query %s with 400',
      async (query) => {
        expectError(await h.request({ method: 'GET', url: `/v1/warranty-claims?${query}`, key: rw }), 400, 'invalid_input');
      },
    );
  });

  describe('isolation', () => {
    it('keeps claims and numbering per org: another org\'s claim is a 404 everywhere', async () => {
      const mine = await newClaim({ description: 'acme claim' });
      const other = await h.key('other-org', 'warranty:read,warranty:write');
      for (const ref of [mine.id, mine.claim_number]) {
        expectError(await h.request({ method: 'GET', url: `/v1/warranty-claims/${ref}`, key: other.key }), 404, 'not_found');
        expectError(await patch(ref, { status: 'closed' }, other.key), 404, 'not_found');
      }
      const theirs = await newClaim({ description: 'their first' }, other.key);
      expect(theirs.claim_number).toBe('WC-000001');
      const list = (await h.request({ method: 'GET', url: '/v1/warranty-claims', key: other.key })).json<{ claims: ClaimBody[] }>();
      expect(list.claims.map((c) => c.id)).toEqual([theirs.id]);
      expect(claimOf(await h.request({ method: 'GET', url: `/v1/warranty-claims/${mine.id}`, key: rw })).status).toBe('submitted');
    });
  });

  describe('hub events', () => {
    it('queues warranty_claim.created and warranty_claim.updated in the outbox with the claim', async () => {
      const org = await h.key('events-org', 'warranty:read,warranty:write');
      const claim = await newClaim({ description: 'evented' }, org.key);
      h.clock.advance(1000);
      await patch(claim.id, { status: 'under_review' }, org.key);
      await patch(claim.id, { resolution: 'Inspecting' }, org.key);
      expectError(await patch(claim.id, { status: 'submitted' }, org.key), 409);
      const rows = await h.gateway.database.db
        .selectFrom('outbox')
        .select(['type', 'org_id', 'payload'])
        .where('org_id', '=', (await h.org('events-org')).id)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      const events = rows.map((r) => JSON.parse(r.payload) as { type: string; org_id: string; occurred_at: string; data: ClaimBody & { previous_status?: string } });
      expect(events.map((e) => e.type).sort()).toEqual(['warranty_claim.created', 'warranty_claim.updated', 'warranty_claim.updated']);
      const created = events.find((e) => e.type === 'warranty_claim.created');
      expect(created?.data).toMatchObject({ id: claim.id, claim_number: 'WC-000001', status: 'submitted' });
      expect(created?.occurred_at).toBe(claim.created_at);
      const updates = events.filter((e) => e.type === 'warranty_claim.updated').map((e) => [e.data.previous_status, e.data.status, e.data.resolution]);
      expect(updates).toEqual(expect.arrayContaining([['submitted', 'under_review', null], ['under_review', 'under_review', 'Inspecting']]));
    });
  });

  describe('input rules', () => {
    const get = (ref: string, query = '') => h.request({ method: 'GET', url: `/v1/warranty-claims/${ref}${query}`, key: rw });

    it('refuses an unknown query parameter on the by-id GET and on the list', async () => {
      const claim = await newClaim();
      const body = expectError(await get(claim.id, '?expand=history'), 400, 'invalid_input');
      expect(body.error).toMatch(/^invalid query: /);
      expect(body.error).toContain('expand');
      expectError(await h.request({ method: 'GET', url: '/v1/warranty-claims?expand=history', key: rw }), 400, 'invalid_input');
      expect((await get(claim.id)).statusCode).toBe(200);
    });

    it.each([
      ['a right-to-left override', '%E2%80%AE', 'U+202E'],
      ['a zero-width space', '%E2%80%8B', 'U+200B'],
      ['a byte order mark', '%EF%BB%BF', 'U+FEFF'],
      ['a no-break space', '%C2%A0', 'U+00A0'],
    ])('refuses a claim reference with %s on get and update', async (_label, encoded, codePoint) => {
      const claim = await newClaim();
      for (const ref of [`${claim.claim_number}${encoded}`, `${encoded}${claim.id}`]) {
        const got = expectError(await get(ref), 400, 'invalid_input');
        expect(got.error).toContain(codePoint);
        expect(got.details).toEqual([{ path: 'id_or_number', message: expect.stringContaining(codePoint) as string }]);
        expectError(await patch(ref, { status: 'closed' }), 400, 'invalid_input');
      }
      expect(claimOf(await get(claim.id)).status).toBe('submitted');
    });

    it.each([
      ['an sku with a zero-width space', { sku: 'Pilot-225-45R17\u200b' }, 'sku'],
      ['an sku with a bidi override', { sku: '\u202ePilot-225-45R17' }, 'sku'],
      ['an sku with a space', { sku: 'Pilot 225' }, 'sku'],
      ['a dot_number with a bidi override', { dot_number: 'DOT U2LL LMLR 5107\u202e' }, 'dot_number'],
      ['a dot_number with a byte order mark', { dot_number: '\ufeffDOT U2LL LMLR 5107' }, 'dot_number'],
      ['a dot_number with a tab', { dot_number: 'DOT U2LL\tLMLR 5107' }, 'dot_number'],
      ['a dot_number over 40 characters', { dot_number: `DOT ${' '.repeat(33)}U2LLLMLR5107` }, 'dot_number'],
      ['a description with a control character', { description: 'Bulge\u0007' }, 'description'],
      ['a customer_ref with an escape character', { customer_ref: 'RMA-\u001b[31m88' }, 'customer_ref'],
    ])('refuses %s with 400 naming the field, and writes nothing', async (_label, fields, field) => {
      const before = await claimCount();
      const body = expectError(await create({ description: 'x', ...fields }), 400, 'invalid_input');
      expect(body.details).toEqual([{ path: field, message: expect.any(String) as string }]);
      expect(await claimCount()).toBe(before);
    });

    it('keeps tabs and line breaks in free text', async () => {
      const claim = await newClaim({ description: 'Bulge on the sidewall.\n\tSeen at 2,000 km.\r\nPhotos attached.', customer_ref: 'Ticket 88 / Smith' });
      expect(claim.description).toBe('Bulge on the sidewall.\n\tSeen at 2,000 km.\r\nPhotos attached.');
      expect(claim.customer_ref).toBe('Ticket 88 / Smith');
      expect(claimOf(await patch(claim.id, { resolution: 'Replaced.\nCredit note CN-12.' })).resolution).toBe('Replaced.\nCredit note CN-12.');
      expectError(await patch(claim.id, { resolution: 'Replaced\u0008' }), 400, 'invalid_input');
    });

    it('takes an empty body with Content-Type: application/json on the body-less GETs', async () => {
      const claim = await newClaim();
      for (const url of ['/v1/warranty-claims', `/v1/warranty-claims/${claim.id}`]) {
        const empty = await h.request({ method: 'GET', url, key: rw, payload: '', headers: { 'content-type': 'application/json' } });
        expect(empty.statusCode).toBe(200);
      }
    });
  });

  describe('idempotency', () => {
    const keyed = (method: 'POST' | 'PATCH', url: string, payload: object, key: string, idempotencyKey: string) =>
      h.request({ method, url, key, payload, headers: { 'idempotency-key': idempotencyKey } });
    const createdEvents = async (slug: string) =>
      (
        await h.gateway.database.db
          .selectFrom('outbox')
          .select('type')
          .where('org_id', '=', (await h.org(slug)).id)
          .where('type', '=', 'warranty_claim.created')
          .execute()
      ).length;

    it('replays a retried create with the same Idempotency-Key: the same claim, no second claim, numbers gap-free', async () => {
      const org = await h.key('idem-org', 'warranty:read,warranty:write');
      const payload = { description: 'Retried over a flaky link', quantity: 2, customer_ref: 'RMA-7' };
      const first = await keyed('POST', '/v1/warranty-claims', payload, org.key, 'claim-retry-1');
      expect(first.statusCode, first.body).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const again = await keyed('POST', '/v1/warranty-claims', payload, org.key, 'claim-retry-1');
      expect(again.statusCode, again.body).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(claimOf(again)).toEqual(claimOf(first));
      expect(claimOf(first).claim_number).toBe('WC-000001');
      expect(await claimCount(org.key)).toBe(1);
      expect(await createdEvents('idem-org')).toBe(1);

      const reused = expectError(await keyed('POST', '/v1/warranty-claims', { description: 'Another claim' }, org.key, 'claim-retry-1'), 422, 'idempotency_key_reused');
      expect(reused.error).toContain('claim-retry-1');
      expect((await newClaim({ description: 'next' }, org.key)).claim_number).toBe('WC-000002');
      expect(await claimCount(org.key)).toBe(2);
      expect(await createdEvents('idem-org')).toBe(2);
    });

    it('replays a retried move instead of refusing it as a second move', async () => {
      const claim = await newClaim();
      const url = `/v1/warranty-claims/${claim.claim_number}`;
      const move = { status: 'approved', resolution: 'Replaced under warranty' };
      const first = await keyed('PATCH', url, move, rw, `move-${claim.id}`);
      expect(first.statusCode, first.body).toBe(200);
      const again = await keyed('PATCH', url, move, rw, `move-${claim.id}`);
      expect(again.statusCode, again.body).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(claimOf(again)).toEqual(claimOf(first));
      expect(claimOf(again).history).toHaveLength(2);
      // Without the key the same move is what it is: a second move from approved to approved.
      const body = expectError(await patch(claim.id, move), 409, 'invalid_transition');
      expect(body.details).toEqual({ status: 'approved', requested: 'approved', allowed: ['closed'] });
    });

    describe('across a crash after commit', () => {
      it('a retried create replays the committed claim: one claim, one event, numbering gap-free', async () => {
        const org = await h.key('crash-org', 'warranty:read,warranty:write');
        const payload = { description: 'Filed just before the crash' };
        h.crashAfterCommit('warranty_claims_create');
        expect((await keyed('POST', '/v1/warranty-claims', payload, org.key, 'crash-create')).statusCode).toBe(500);
        const retry = await keyed('POST', '/v1/warranty-claims', payload, org.key, 'crash-create');
        expect(retry.statusCode, retry.body).toBe(201);
        expect(retry.headers['idempotent-replayed']).toBe('true');
        expect(claimOf(retry)).toMatchObject({ claim_number: 'WC-000001', description: 'Filed just before the crash' });
        expect(await claimCount(org.key)).toBe(1);
        expect(await createdEvents('crash-org')).toBe(1);
        expect((await newClaim({ description: 'after' }, org.key)).claim_number).toBe('WC-000002');
      });

      it('a retried move replays the committed move instead of a 409', async () => {
        const org = await h.key('crash-move-org', 'warranty:read,warranty:write');
        const claim = await newClaim({ description: 'to be moved' }, org.key);
        const move = { status: 'denied', resolution: 'Road hazard' };
        h.crashAfterCommit('warranty_claims_update');
        expect((await keyed('PATCH', `/v1/warranty-claims/${claim.id}`, move, org.key, 'crash-move')).statusCode).toBe(500);
        const retry = await keyed('PATCH', `/v1/warranty-claims/${claim.id}`, move, org.key, 'crash-move');
        expect(retry.statusCode, retry.body).toBe(200);
        expect(retry.headers['idempotent-replayed']).toBe('true');
        expect(claimOf(retry)).toMatchObject({ status: 'denied', resolution: 'Road hazard' });
        expect(claimOf(retry).history.map((e) => e.to)).toEqual(['submitted', 'denied']);
      });
    });
  });

  describe('operation examples', () => {
    it('are valid against the operation schemas', () => {
      const ops = h.gateway.operations.map((e) => e.operation).filter((op) => op.name.startsWith('warranty_'));
      expect(ops.map((op) => op.name).sort()).toEqual(['warranty_claims_create', 'warranty_claims_get', 'warranty_claims_list', 'warranty_claims_update']);
      for (const op of ops) {
        if (op.params) expect(op.params.safeParse(op.example.params ?? {}).success, op.name).toBe(true);
        if (op.query) expect(op.query.safeParse(typedQuery(op.query, op.example.query ?? {})).success, op.name).toBe(true);
        if (op.body) expect(op.body.safeParse(op.example.body).error, op.name).toBeUndefined();
        expect(op.output.safeParse(op.example.response).error, op.name).toBeUndefined();
      }
    });
  });
});
