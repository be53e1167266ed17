import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, itChecksAuth } from '../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { fitments, priceList, visits } from './fixtures.js';

type Row = Record<string, unknown>;
interface RowsPage {
  rows: Row[];
  next_cursor: string | null;
}

const FIT_SCOPES = 'objects:fitments:read,objects:fitments:write';

/** Twelve fitments, each filter value below picking a known subset. */
const seed: Row[] = [
  { fitment_id: 'F01', make: 'Audi', year: 2020, load_index: 91, oe: true, released_on: '2020-01-15', verified_at: '2026-05-01T10:00:00.000Z', season: 'summer' },
  { fitment_id: 'F02', make: 'Audi', year: 2021, load_index: 91.5, oe: false, released_on: '2021-02-01', verified_at: '2026-05-01T12:00:00+02:00', season: 'winter', notes: 'run-flat' },
  { fitment_id: 'F03', make: 'BMW', year: 2020, load_index: 94, oe: true, released_on: '2020-01-15', season: 'all_season' },
  { fitment_id: 'F04', make: 'bmw', year: 2019, load_index: 94, oe: false, season: 'summer' },
  { fitment_id: 'F05', make: 'Volvo', year: 2020, load_index: 100.25, season: 'winter' },
  { fitment_id: 'F06', make: 'Volvo', year: 2022, oe: true, released_on: '2022-12-31', verified_at: '2026-05-02T00:00:00Z' },
  { fitment_id: 'F07', make: 'Audi', year: 2020, load_index: 91, oe: true, season: 'summer' },
  { fitment_id: 'F08', make: 'Kia', year: 2023 },
  { fitment_id: 'F09', make: 'Kia', year: 2023, load_index: 0, oe: false },
  { fitment_id: 'F10', make: 'Audi', year: 1999, load_index: 88, season: 'all_season' },
  { fitment_id: 'F11', make: 'Audi', year: 2020, oe: false, season: 'winter' },
  { fitment_id: 'F12', make: 'Ford', year: 2020, load_index: 91, oe: true, season: 'summer' },
];

describe.each(dialects)('dynamic objects over REST (%s)', (dialect) => {
  let h: Harness;
  let rw: string;
  beforeAll(async () => {
    h = await startHarness(dialect);
    for (const org of ['acme', 'auth-org']) {
      await h.org(org);
      for (const def of [fitments, priceList, visits]) await h.gateway.services.objects.define(org, def);
    }
    rw = (await h.key('acme', `${FIT_SCOPES},objects:visits:read,objects:visits:write,objects:prices:read`, { rateLimit: 100_000 })).key;
    const res = await write('fitments', seed);
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(async () => h.close());

  function write(object: string, rows: unknown, key = rw) {
    return h.request({ method: 'POST', url: `/v1/objects/${object}`, key, payload: { rows } });
  }
  const query = (object: string, qs = '', key = rw) => h.request({ method: 'GET', url: `/v1/objects/${object}${qs ? `?${qs}` : ''}`, key });
  const ids = async (qs: string) => {
    const res = await query('fitments', qs);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<RowsPage>().rows.map((r) => r.fitment_id);
  };
  const count = async (object = 'fitments') => (await query(object, 'limit=1000')).json<RowsPage>().rows.length;

  describe('auth and per-object scopes', () => {
    itChecksAuth(() => h, { method: 'GET', url: '/v1/objects/fitments', scope: 'objects:fitments:read' });
    itChecksAuth(() => h, { method: 'POST', url: '/v1/objects/fitments', scope: 'objects:fitments:write', payload: { rows: [{ fitment_id: 'A', make: 'x' }] } });

    it('needs the object\'s own read scope: another object\'s scope or its write scope is not enough', async () => {
      for (const scopes of ['objects:visits:read', 'objects:fitments:write', 'objects:fitments-x:read']) {
        const key = (await h.key('acme', scopes)).key;
        const body = expectError(await query('fitments', '', key), 403, 'missing_scope');
        expect(body.error).toBe('missing scope: objects:fitments:read');
      }
    });

    it('needs the write scope to write, and writes nothing without it', async () => {
      const reader = (await h.key('acme', 'objects:fitments:read')).key;
      const body = expectError(await write('fitments', [{ fitment_id: 'NO', make: 'x' }], reader), 403, 'missing_scope');
      expect(body.error).toBe('missing scope: objects:fitments:write');
      expect(await ids('fitment_id=NO')).toEqual([]);
    });

    it('answers 405 with Allow: GET for a read-only object, whatever the key holds', async () => {
      const res = await write('price-list', [{ sku: 'A', price: 1 }]);
      expectError(res, 405, 'method_not_allowed');
      expect(res.headers.allow).toBe('GET');
      expect(await count('price-list')).toBe(0);
    });

    it('answers 404 for an unknown object before looking at scopes', async () => {
      expectError(await query('nothing'), 404, 'not_found');
      expectError(await write('nothing', [{ a: 1 }]), 404, 'not_found');
      const none = (await h.key('acme', 'products:read')).key;
      expectError(await query('nothing', '', none), 404, 'not_found');
    });

    it('lists only the objects the key can read, with whether it can write them', async () => {
      const key = (await h.key('acme', 'objects:fitments:read,objects:prices:read,objects:visits:write')).key;
      const res = await h.request({ method: 'GET', url: '/v1/objects', key });
      expect(res.statusCode, res.body).toBe(200);
      const listed = res.json<{ objects: { key: string; writable: boolean; filterable_fields: string[]; row_schema: { required: string[] } }[] }>().objects;
      expect(listed.map((o) => [o.key, o.writable])).toEqual([['fitments', false], ['price-list', false]]);
      const fit = listed[0];
      expect(fit?.filterable_fields).toEqual(['fitment_id', 'make', 'year', 'load_index', 'oe', 'released_on', 'verified_at', 'season']);
      expect(fit?.row_schema.required).toEqual(['fitment_id', 'make']);
      const none = (await h.key('acme', 'products:read')).key;
      expect((await h.request({ method: 'GET', url: '/v1/objects', key: none })).json<{ objects: unknown[] }>().objects).toEqual([]);
    });
  });

  describe('paths and query strings', () => {
    it.each([
      ['an unknown parameter', '?x=1'],
      ['a paging parameter (the list is not paged)', '?limit=5'],
      ['a filter', '?make=Audi'],
    ])('refuses GET /v1/objects with %s with 400', async (_label, qs) => {
      const body = expectError(await h.request({ method: 'GET', url: `/v1/objects${qs}`, key: rw }), 400, 'invalid_input');
      expect(body.error).toMatch(/^invalid query: /);
    });

    it.each([
      ['a right-to-left override', 'fit%E2%80%AEments'],
      ['a zero-width space', 'fitments%E2%80%8B'],
      ['a capital letter', 'Fitments'],
      ['a space', 'fit%20ments'],
      ['more than 63 characters', 'a'.repeat(64)],
    ])('refuses an object key with %s with 400, before looking for the object', async (_label, object) => {
      for (const res of [await query(object), await write(object, [{ fitment_id: 'P1', make: 'x' }])]) {
        const body = expectError(res, 400, 'invalid_input');
        expect(body.error).toMatch(/^invalid path: object: object must be an object key/);
      }
      expect(await ids('fitment_id=P1')).toEqual([]);
    });

    it('takes a filter named like the path parameter as a filter', async () => {
      const body = expectError(await query('fitments', 'object=fitments'), 400, 'invalid_input');
      expect(body.error).toMatch(/object: is not a field of fitments/);
    });
  });

  describe('Idempotency-Key', () => {
    const post = (rows: unknown, idem: string) => h.request({ method: 'POST', url: '/v1/objects/visits', key: rw, payload: { rows }, headers: { 'idempotency-key': idem } });
    const plates = async (plate: string) => (await query('visits', `plate=${plate}&limit=1000`)).json<RowsPage>().rows.length;

    it('replays a write sent again with the same key: the rows are written once', async () => {
      const first = await post([{ plate: 'IK-1', odometer: 1 }], `ik-1-${dialect}`);
      expect(first.statusCode, first.body).toBe(200);
      const again = await post([{ plate: 'IK-1', odometer: 1 }], `ik-1-${dialect}`);
      expect(again.statusCode).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(first.body);
      expect(await plates('IK-1')).toBe(1);
      expectError(await post([{ plate: 'IK-1', odometer: 2 }], `ik-1-${dialect}`), 422, 'idempotency_key_reused');
      expect(await plates('IK-1')).toBe(1);
    });

    it('replays the answer committed with the rows when the process dies after the commit', async () => {
      const payload = { rows: [{ plate: 'IK-CRASH', odometer: 9 }] };
      const idem = `ik-crash-${dialect}`;
      // The write commits, then the process "dies" before it could answer.
      h.crashAfterCommit('objects_write');
      expect((await post(payload.rows, idem)).statusCode).toBe(500);
      expect(await plates('IK-CRASH')).toBe(1);

      const retry = await post(payload.rows, idem);
      expect(retry.statusCode, retry.body).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.json()).toEqual({ ok: true, written: 1, rows: [{ plate: 'IK-CRASH', odometer: 9 }] });
      expect(await plates('IK-CRASH')).toBe(1);
    });

    it('stores nothing replayable for a refused write: a 422 replays as the 422', async () => {
      const bad = await post([{ odometer: 1 }], `ik-bad-${dialect}`);
      expectError(bad, 422, 'row_invalid');
      const again = await post([{ odometer: 1 }], `ik-bad-${dialect}`);
      expectError(again, 422, 'row_invalid');
      expect(again.headers['idempotent-replayed']).toBe('true');
    });
  });

  describe('isolation', () => {
    it('keeps rows per org even for an object of the same key', async () => {
      const other = (await h.key('auth-org', FIT_SCOPES)).key;
      expect((await query('fitments', '', other)).json<RowsPage>().rows).toEqual([]);
      expect((await write('fitments', [{ fitment_id: 'F01', make: 'Other org' }], other)).statusCode).toBe(200);
      expect((await query('fitments', 'fitment_id=F01', rw)).json<RowsPage>().rows[0]?.make).toBe('Audi');
      const stranger = (await h.key('no-objects-org', FIT_SCOPES)).key;
      expectError(await query('fitments', '', stranger), 404, 'not_found');
      expectError(await write('fitments', [{ fitment_id: 'X', make: 'y' }], stranger), 404, 'not_found');
    });
  });

  describe('writing', () => {
    it('answers { ok, written, rows } with every field, null where absent', async () => {
      const res = await write('visits', [{ plate: 'AB-1', odometer: 10 }, { plate: 'AB-2' }]);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ ok: true, written: 2, rows: [{ plate: 'AB-1', odometer: 10 }, { plate: 'AB-2', odometer: null }] });
    });

    it('appends rows of an object without key field', async () => {
      const before = await count('visits');
      await write('visits', [{ plate: 'ZZ-9' }]);
      await write('visits', [{ plate: 'ZZ-9' }]);
      expect(await count('visits')).toBe(before + 2);
    });

    it('upserts on the key field: an existing key replaces the row in place, a new key appends', async () => {
      const res = await write('fitments', [
        { fitment_id: 'F03', make: 'BMW', year: 2024, season: 'winter' },
        { fitment_id: 'F13', make: 'Mini', year: 2024 },
      ]);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json<{ written: number }>().written).toBe(2);
      expect(await count()).toBe(13);
      const f03 = (await query('fitments', 'fitment_id=F03')).json<RowsPage>().rows;
      expect(f03).toEqual([{ fitment_id: 'F03', make: 'BMW', year: 2024, load_index: null, oe: null, released_on: null, verified_at: null, season: 'winter', notes: null }]);
      // Replaced in place: the filters see the new values only, and the row keeps its position.
      expect(await ids('year=2024')).toEqual(['F03', 'F13']);
      expect(await ids('season=all_season')).toEqual(['F10']);
      expect((await ids('limit=3')).slice(0, 3)).toEqual(['F01', 'F02', 'F03']);
      const restore = await write('fitments', [seed[2]]);
      expect(restore.statusCode).toBe(200);
    });

    it('refuses the whole request with 422 and details per row and field, writing nothing', async () => {
      const before = await count();
      const rows = [
        { fitment_id: 'NEW-1', make: 'Seat' },
        { fitment_id: 'NEW-2', make: 'x'.repeat(41), year: 2020.5, load_index: 'heavy', oe: 'yes', released_on: '2024-02-30', verified_at: '2026-05-01 10:00', season: 'spring', colour: 'red' },
        { make: 'Seat', year: 1900, load_index: -1 },
        'not a row',
        { fitment_id: 'NEW-1', make: 'Seat' },
        { fitment_id: 12, make: null, year: '2020', notes: 5 },
        null,
      ];
      const res = await write('fitments', rows);
      const body = expectError(res, 422, 'row_invalid');
      expect(body.error).toBe(
        '6 of 7 rows are invalid, nothing was written: row 1 make: must be at most 40 characters; row 1 year: must be a whole number; ' +
          'row 1 load_index: must be a number; row 1 oe: must be true or false; row 1 released_on: must be a date as YYYY-MM-DD; ' +
          'row 1 verified_at: must be an ISO 8601 date-time with a time zone, e.g. 2026-06-01T12:00:00Z; ' +
          'row 1 season: must be one of: summer, winter, all_season; row 1 colour: is not a field of fitments; ' +
          'row 2 fitment_id: is required; row 2 year: must be at least 1950; 8 more in details',
      );
      expect(body.details).toEqual([
        { row: 1, field: 'make', message: 'must be at most 40 characters' },
        { row: 1, field: 'year', message: 'must be a whole number' },
        { row: 1, field: 'load_index', message: 'must be a number' },
        { row: 1, field: 'oe', message: 'must be true or false' },
        { row: 1, field: 'released_on', message: 'must be a date as YYYY-MM-DD' },
        { row: 1, field: 'verified_at', message: 'must be an ISO 8601 date-time with a time zone, e.g. 2026-06-01T12:00:00Z' },
        { row: 1, field: 'season', message: 'must be one of: summer, winter, all_season' },
        { row: 1, field: 'colour', message: 'is not a field of fitments' },
        { row: 2, field: 'fitment_id', message: 'is required' },
        { row: 2, field: 'year', message: 'must be at least 1950' },
        { row: 2, field: 'load_index', message: 'must be at least 0' },
        { row: 3, field: null, message: 'must be an object of field values' },
        { row: 4, field: 'fitment_id', message: 'repeats fitment_id NEW-1 of row 0' },
        { row: 5, field: 'fitment_id', message: 'must be a string' },
        { row: 5, field: 'make', message: 'is required' },
        { row: 5, field: 'year', message: 'must be a whole number' },
        { row: 5, field: 'notes', message: 'must be a string' },
        { row: 6, field: null, message: 'must be an object of field values' },
      ]);
      expect(await count()).toBe(before);
      expect(await ids('fitment_id=NEW-1')).toEqual([]);
    });

    it('refuses a value above the field maximum', async () => {
      const body = expectError(await write('fitments', [{ fitment_id: 'N', make: 'x', year: 2101 }]), 422, 'row_invalid');
      expect(body.details).toEqual([{ row: 0, field: 'year', message: 'must be at most 2100' }]);
    });

    it.each([
      ['no rows key', {}],
      ['rows not a list', { rows: { fitment_id: 'A' } }],
      ['no rows', { rows: [] }],
      ['1001 rows', { rows: Array.from({ length: 1001 }, (_, i) => ({ fitment_id: `B${i}`, make: 'x' })) }],
      ['an extra key', { rows: [{ fitment_id: 'A', make: 'x' }], upsert: false }],
    ])('refuses a body with %s with 400', async (_label, payload) => {
      const before = await count();
      expectError(await h.request({ method: 'POST', url: '/v1/objects/fitments', key: rw, payload }), 400, 'invalid_input');
      expect(await count()).toBe(before);
    });

    it('writes 1000 rows in one request', async () => {
      const rows = Array.from({ length: 1000 }, (_, i) => ({ plate: `BULK-${i}`, odometer: i }));
      const res = await write('visits', rows);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json<{ written: number }>().written).toBe(1000);
      const got = (await query('visits', 'plate=BULK-999')).json<RowsPage>().rows;
      expect(got).toEqual([{ plate: 'BULK-999', odometer: 999 }]);
    });
  });

  describe('filters', () => {
    it.each([
      ['string (exact, case-sensitive)', 'make=Audi', ['F01', 'F02', 'F07', 'F10', 'F11']],
      ['string other case', 'make=bmw', ['F04']],
      ['integer', 'year=2020', ['F01', 'F03', 'F05', 'F07', 'F11', 'F12']],
      ['integer with a sign and zeros', 'year=%2B02023', ['F08', 'F09']],
      ['number', 'load_index=91.5', ['F02']],
      ['number written differently', 'load_index=9.15e1', ['F02']],
      ['number that is whole', 'load_index=91', ['F01', 'F07', 'F12']],
      ['number zero', 'load_index=0', ['F09']],
      ['boolean true', 'oe=true', ['F01', 'F03', 'F06', 'F07', 'F12']],
      ['boolean 0', 'oe=0', ['F02', 'F04', 'F09', 'F11']],
      ['boolean in capitals', 'oe=FALSE', ['F02', 'F04', 'F09', 'F11']],
      ['date', 'released_on=2020-01-15', ['F01', 'F03']],
      ['datetime in UTC', 'verified_at=2026-05-01T10:00:00Z', ['F01', 'F02']],
      ['datetime with an offset', 'verified_at=2026-05-02T02:00:00%2B02:00', ['F06']],
      ['enum', 'season=winter', ['F02', 'F05', 'F11']],
      ['key field', 'fitment_id=F08', ['F08']],
      ['two filters AND together', 'make=Audi&year=2020', ['F01', 'F07', 'F11']],
      ['three filters', 'make=Audi&year=2020&oe=true', ['F01', 'F07']],
      ['filters with no match', 'make=Audi&season=all_season&year=2020', []],
      ['a value no row has', 'make=Tesla', []],
    ])('filters by %s', async (_label, qs, expected) => {
      expect(await ids(qs)).toEqual(expected);
    });

    it.each([
      ['an unknown field', 'colour=red', /colour: is not a field of fitments \(filterable: fitment_id, make, year/],
      ['a field that is not filterable', 'notes=x', /notes: is not filterable/],
      ['a repeated filter', 'make=Audi&make=BMW', /make: is given more than once/],
      ['a fractional integer', 'year=2020.5', /year: must be a whole number/],
      ['a word for an integer', 'year=twenty', /year: must be a whole number/],
      ['an empty integer', 'year=', /year: must be a whole number/],
      ['a word for a number', 'load_index=heavy', /load_index: must be a number/],
      ['Infinity', 'load_index=Infinity', /load_index: must be a number/],
      ['yes for a boolean', 'oe=yes', /oe: must be true or false/],
      ['an impossible date', 'released_on=2021-02-29', /released_on: must be a date as YYYY-MM-DD/],
      ['a datetime without zone', 'verified_at=2026-05-01T10:00:00', /verified_at: must be an ISO 8601 date-time/],
      ['a value outside the enum', 'season=spring', /season: must be one of: summer, winter, all_season/],
      ['two bad filters at once', 'year=x&oe=maybe', /year: must be a whole number; oe: must be true or false/],
      ['limit 0', 'limit=0', /limit/],
      ['limit 1001', 'limit=1001', /limit/],
      ['a bad cursor', 'cursor=bm90LWpzb24', /invalid cursor/],
    ])('refuses %s with 400', async (_label, qs, message) => {
      const body = expectError(await query('fitments', qs), 400, 'invalid_input');
      expect(body.error).toMatch(message);
    });

    it('pages with a cursor in first-written order, filters included', async () => {
      const seen: unknown[] = [];
      let cursor: string | null = null;
      do {
        const qs: string = `make=Audi&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
        const page: RowsPage = (await query('fitments', qs)).json<RowsPage>();
        expect(page.rows.length).toBeLessThanOrEqual(2);
        seen.push(...page.rows.map((r) => r.fitment_id));
        cursor = page.next_cursor;
      } while (cursor);
      expect(seen).toEqual(['F01', 'F02', 'F07', 'F10', 'F11']);
      const all = (await query('fitments', 'limit=1000')).json<RowsPage>();
      expect(all.next_cursor).toBeNull();
      expect(all.rows.map((r) => r.fitment_id).slice(0, 12)).toEqual(seed.map((r) => r.fitment_id));
    });
  });
});
