import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { fitments, variant, visits } from './fixtures.js';

type Row = Record<string, unknown>;

describe.each(dialects)('object definitions (%s)', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(dialect);
    await h.org('acme');
  });
  afterAll(async () => h.close());

  const define = (def: unknown, org = 'acme') => h.gateway.services.objects.define(org, def);
  const refused = (def: unknown, message: RegExp, code = 'invalid_input') =>
    expect(define(def)).rejects.toMatchObject({ code, message: expect.stringMatching(message) as unknown });

  /** An org with one object and its rows, written through the API. */
  const orgWith = async (org: string, def: object, rows: Row[]) => {
    await h.org(org);
    await define(def, org);
    const scopes = `${(def as { read_scope: string }).read_scope},${(def as { write_scope: string }).write_scope}`;
    const key = (await h.key(org, scopes, { rateLimit: 100_000 })).key;
    if (rows.length) {
      const res = await h.request({ method: 'POST', url: `/v1/objects/${(def as { key: string }).key}`, key, payload: { rows } });
      expect(res.statusCode, res.body).toBe(200);
    }
    const read = async (query = '') => {
      const res = await h.request({ method: 'GET', url: `/v1/objects/${(def as { key: string }).key}?limit=1000${query}`, key });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ rows: Row[] }>().rows;
    };
    return { key, read };
  };

  describe('valid definitions', () => {
    it('defines an object, lists it and shows it with its row count', async () => {
      const result = await define(fitments);
      expect(result).toMatchObject({ created: true, rows_checked: 0, rows_rewritten: 0 });
      expect(result.definition).toMatchObject({ key: 'fitments', label: 'Vehicle fitments', version: 1, key_field: 'fitment_id', write_scope: 'objects:fitments:write' });
      expect(result.definition.fields.find((f) => f.name === 'notes')).toEqual({ name: 'notes', type: 'string', required: false, filterable: false, max_length: 200 });
      await define(visits);
      expect((await h.gateway.services.objects.listDefinitions('acme')).map((d) => d.key)).toEqual(['fitments', 'visits']);
      expect(await h.gateway.services.objects.showDefinition('acme', 'fitments')).toMatchObject({ key: 'fitments', row_count: 0 });
    });

    it('accepts a read-only object without key field, and null for the optional parts', async () => {
      const def = { key: 'lookup', label: 'Lookup', read_scope: 'objects:lookup:read', write_scope: null, key_field: null, fields: [{ name: 'code', type: 'string' }] };
      expect((await define(def)).definition).toMatchObject({ write_scope: null, key_field: null });
    });

    it('accepts every field type with its options', async () => {
      const def = {
        key: 'all-types',
        label: 'All types',
        read_scope: 'objects:shared:read',
        write_scope: 'objects:shared:write',
        key_field: 'code',
        fields: [
          { name: 'code', type: 'integer', required: true },
          { name: 's', type: 'string', max_length: 500, filterable: true },
          { name: 'i', type: 'integer', min: -5, max: 5, filterable: true },
          { name: 'n', type: 'number', min: -0.5, max: 0.5, filterable: true },
          { name: 'b', type: 'boolean', filterable: true },
          { name: 'd', type: 'date', filterable: true },
          { name: 'dt', type: 'datetime', filterable: true },
          { name: 'e', type: 'enum', enum_values: ['a', 'b'], filterable: true },
        ],
      };
      expect((await define(def)).definition.fields).toHaveLength(8);
    });

    it('refuses an unknown org', async () => {
      await expect(h.gateway.services.objects.define('no-such-org', fitments)).rejects.toMatchObject({ code: 'not_found' });
      await expect(h.gateway.services.objects.showDefinition('acme', 'nothing')).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  describe('invalid definitions are refused with a clear message', () => {
    const eightStrings = Array.from({ length: 9 }, (_, i) => ({ name: `s${i}`, type: 'string', filterable: true }));
    const nineNumbers = Array.from({ length: 9 }, (_, i) => ({ name: `n${i}`, type: 'integer', filterable: true }));
    const cases: [string, unknown, RegExp][] = [
      ['not an object', 'fitments', /expected object/],
      ['an array', [fitments], /expected object/],
      ['a missing key', variant(fitments, (d) => Reflect.deleteProperty(d, 'key')), /key: /],
      ['an upper-case key', variant(fitments, (d) => (d.key = 'Fitments')), /key: must be a slug/],
      ['a key with a space', variant(fitments, (d) => (d.key = 'fit ments')), /key: must be a slug/],
      ['an empty label', variant(fitments, (d) => (d.label = ' ')), /label: /],
      ['a static read scope', variant(fitments, (d) => (d.read_scope = 'products:read')), /read_scope: must be an object read scope/],
      ['a missing read scope', variant(fitments, (d) => Reflect.deleteProperty(d, 'read_scope')), /read_scope: /],
      ['a write scope that reads', variant(fitments, (d) => (d.write_scope = 'objects:fitments:read')), /write_scope: must be an object write scope/],
      ['no fields', variant(fitments, (d) => (d.fields = [])), /fields: must list at least one field/],
      ['fields not a list', variant(fitments, (d) => Object.assign(d, { fields: { make: 'string' } })), /fields: /],
      ['an unknown property', variant(fitments, (d) => Object.assign(d, { owner: 'ops' })), /owner/],
      ['an unknown field property', variant(fitments, (d) => Object.assign(d.fields[1] ?? {}, { unique: true })), /fields\.1\.unique: is unknown/],
      ['an upper-case field name', variant(fitments, (d) => Object.assign(d.fields[1] ?? {}, { name: 'Make' })), /fields\.1\.name: must be lowercase/],
      ['a duplicate field name', variant(fitments, (d) => Object.assign(d.fields[2] ?? {}, { name: 'make' })), /fields\.2\.name: duplicate field name make/],
      ['a reserved field name', variant(fitments, (d) => Object.assign(d.fields[2] ?? {}, { name: 'limit' })), /limit is reserved/],
      ['an unknown type', variant(fitments, (d) => Object.assign(d.fields[1] ?? {}, { type: 'text' })), /fields\.1\.type: /],
      ['an enum without values', variant(fitments, (d) => Reflect.deleteProperty(d.fields[7] ?? {}, 'enum_values')), /enum_values: is required for enum fields/],
      ['empty enum values', variant(fitments, (d) => Object.assign(d.fields[7] ?? {}, { enum_values: [] })), /fields\.7\.enum_values: /],
      ['repeated enum values', variant(fitments, (d) => Object.assign(d.fields[7] ?? {}, { enum_values: ['a', 'a'] })), /must not repeat a value/],
      ['enum values on a string', variant(fitments, (d) => Object.assign(d.fields[1] ?? {}, { enum_values: ['a'] })), /only applies to enum fields, not string/],
      ['max_length on an integer', variant(fitments, (d) => Object.assign(d.fields[2] ?? {}, { max_length: 4 })), /only applies to string fields, not integer/],
      ['min on a string', variant(fitments, (d) => Object.assign(d.fields[1] ?? {}, { min: 1 })), /fields\.1\.min: only applies to integer and number fields/],
      ['min above max', variant(fitments, (d) => Object.assign(d.fields[2] ?? {}, { min: 2000, max: 1990 })), /fields\.2\.min: must not be above max/],
      ['a fractional integer bound', variant(fitments, (d) => Object.assign(d.fields[2] ?? {}, { max: 2000.5 })), /must be a whole number for integer fields/],
      ['a long filterable string', variant(fitments, (d) => Object.assign(d.fields[1] ?? {}, { max_length: 501 })), /filterable string fields allow at most 500/],
      ['required as text', variant(fitments, (d) => Object.assign(d.fields[1] ?? {}, { required: 'yes' })), /fields\.1\.required: /],
      ['an unknown key field', variant(fitments, (d) => (d.key_field = 'vin')), /key_field: vin is not one of the fields/],
      ['an optional key field', variant(fitments, (d) => (d.key_field = 'year')), /key_field: year must be a required field/],
      ['a boolean key field', variant(fitments, (d) => Object.assign(d, { key_field: 'flag', fields: [...d.fields, { name: 'flag', type: 'boolean', required: true }] })), /key_field: flag must be of type string, integer, enum, date/],
      ['nine filterable strings', variant(visits, (d) => Object.assign(d, { fields: eightStrings })), /at most 8 filterable string, enum, date and datetime fields/],
      ['nine filterable numbers', variant(visits, (d) => Object.assign(d, { fields: nineNumbers })), /at most 8 filterable integer, number and boolean fields/],
    ];
    it.each(cases)('refuses %s', async (_label, def, message) => {
      await refused(def, message);
    });

    it('reports every problem at once', async () => {
      const def = variant(fitments, (d) => {
        d.key = 'Bad';
        d.read_scope = 'x';
      });
      await refused(def, /key: must be a slug.*; read_scope: must be an object read scope/);
    });
  });

  describe('redefinition against existing rows', () => {
    const base = { ...visits, key: 'cars', read_scope: 'objects:cars:read', write_scope: 'objects:cars:write', key_field: 'plate' };
    const rows = [{ plate: 'AB-123', odometer: 1200 }, { plate: 'CD-456', odometer: 50 }, { plate: 'EF-789' }];

    it('accepts a compatible change and keeps the rows', async () => {
      const { read } = await orgWith('redef-ok', base, rows);
      const wider = variant(base, (d) => d.fields.push({ name: 'colour', type: 'string', required: false, filterable: false }));
      const result = await define(wider, 'redef-ok');
      expect(result).toMatchObject({ created: false, rows_checked: 3, rows_rewritten: 0 });
      expect(result.definition.version).toBe(2);
      expect(await read()).toEqual(rows.map((r) => ({ odometer: null, colour: null, ...r })));
    });

    it('skips the row check when only label or scopes change', async () => {
      await orgWith('redef-label', base, rows);
      const result = await define({ ...base, label: 'Cars we service' }, 'redef-label');
      expect(result).toMatchObject({ created: false, rows_checked: 0, definition: { label: 'Cars we service', version: 2 } });
    });

    it.each([
      ['a new required field', variant(base, (d) => d.fields.push({ name: 'vin', type: 'string', required: true, filterable: false })), /3 of 3 existing rows do not fit.*vin: is required/],
      ['a type change the data does not fit', variant(base, (d) => Object.assign(d.fields[0] ?? {}, { type: 'integer' })), /3 of 3 existing rows.*plate: must be a whole number/],
      ['a tighter bound', variant(base, (d) => Object.assign(d.fields[1] ?? {}, { min: 100 })), /1 of 3 existing rows.*odometer: must be at least 100/],
      ['a shorter max_length', variant(base, (d) => Object.assign(d.fields[0] ?? {}, { max_length: 5 })), /3 of 3 existing rows.*must be at most 5 characters/],
      ['optional to required', variant(base, (d) => Object.assign(d.fields[1] ?? {}, { required: true })), /1 of 3 existing rows.*odometer: is required/],
    ])('refuses %s and changes nothing', async (_label, def, message) => {
      const org = `redef-${_label.replace(/[^a-z]+/g, '-')}`.slice(0, 60);
      const { read } = await orgWith(org, base, rows);
      await expect(define(def, org)).rejects.toMatchObject({ code: 'rows_do_not_fit', message: expect.stringMatching(message) as unknown });
      expect((await h.gateway.services.objects.showDefinition(org, 'cars')).version).toBe(1);
      expect(await read()).toEqual(rows.map((r) => ({ odometer: null, ...r })));
    });

    it('refuses a new key field whose values repeat, and accepts one whose values are unique', async () => {
      const def = variant(base, (d) => d.fields.push({ name: 'owner', type: 'string', required: false, filterable: false }));
      const { key, read } = await orgWith('redef-key', def, [
        { plate: 'AB-123', owner: 'ann' },
        { plate: 'CD-456', owner: 'ann' },
      ]);
      const byOwner = variant(def, (d) => {
        d.key_field = 'owner';
        Object.assign(d.fields[2] ?? {}, { required: true });
      });
      await expect(define(byOwner, 'redef-key')).rejects.toMatchObject({ code: 'rows_do_not_fit', message: expect.stringMatching(/owner: repeats owner ann/) as unknown });
      const keyless = variant(def, (d) => Object.assign(d, { key_field: null }));
      expect((await define(keyless, 'redef-key')).rows_rewritten).toBe(2);
      // Without a key field, rows append: the same plate is now a second row.
      await h.request({ method: 'POST', url: '/v1/objects/cars', key, payload: { rows: [{ plate: 'AB-123' }] } });
      expect((await read()).filter((r) => r.plate === 'AB-123')).toHaveLength(2);
    });

    it('fills the index of a field that becomes filterable, and drops the data of a removed field', async () => {
      const def = variant(base, (d) => d.fields.push({ name: 'colour', type: 'string', required: false, filterable: false }));
      const { read } = await orgWith('redef-filter', def, [
        { plate: 'AB-123', colour: 'red', odometer: 10 },
        { plate: 'CD-456', colour: 'blue', odometer: 20 },
      ]);
      const filterable = variant(def, (d) => Object.assign(d.fields[2] ?? {}, { filterable: true }));
      expect((await define(filterable, 'redef-filter')).rows_rewritten).toBe(2);
      expect(await read('&colour=red')).toEqual([{ plate: 'AB-123', odometer: 10, colour: 'red' }]);

      const withoutColour = variant(base, () => undefined);
      expect((await define(withoutColour, 'redef-filter')).rows_rewritten).toBe(2);
      expect(await read()).toEqual([{ plate: 'AB-123', odometer: 10 }, { plate: 'CD-456', odometer: 20 }]);
      const back = await define(def, 'redef-filter');
      expect(back.rows_rewritten).toBe(0);
      expect(await read()).toEqual([{ plate: 'AB-123', odometer: 10, colour: null }, { plate: 'CD-456', odometer: 20, colour: null }]);
    });

    it('re-types a filterable field when the data fits, and refuses to drop an enum value in use', async () => {
      const def = variant(base, (d) => {
        d.fields.push({ name: 'grade', type: 'string', required: false, filterable: true });
        d.fields.push({ name: 'level', type: 'string', required: false, filterable: true });
      });
      const { key, read } = await orgWith('redef-kind', def, [{ plate: 'AB-123', grade: 'gold' }, { plate: 'CD-456' }]);
      const levelAsNumber = variant(def, (d) => Object.assign(d.fields[3] ?? {}, { type: 'integer' }));
      expect((await define(levelAsNumber, 'redef-kind')).rows_checked).toBe(2);
      await h.request({ method: 'POST', url: '/v1/objects/cars', key, payload: { rows: [{ plate: 'GH-000', level: 3 }] } });
      expect(await read('&level=3')).toEqual([{ plate: 'GH-000', odometer: null, grade: null, level: 3 }]);
      const asEnum = variant(levelAsNumber, (d) => Object.assign(d.fields[2] ?? {}, { type: 'enum', enum_values: ['gold', 'silver'] }));
      expect((await define(asEnum, 'redef-kind')).rows_checked).toBe(3);
      expect(await read('&grade=gold')).toEqual([{ plate: 'AB-123', odometer: null, grade: 'gold', level: null }]);
      const dropGold = variant(asEnum, (d) => Object.assign(d.fields[2] ?? {}, { enum_values: ['silver'] }));
      await expect(define(dropGold, 'redef-kind')).rejects.toMatchObject({ code: 'rows_do_not_fit', message: expect.stringMatching(/grade: must be one of: silver/) as unknown });
    });
  });
});
