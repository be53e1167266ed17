import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedefineProgress } from '../../../src/modules/objects/redefine.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';

type Row = Record<string, unknown>;

/** More rows than one check slice (2,000) and many rewrite slices (100). */
const ROWS = 2600;

interface Field {
  name: string;
  type: string;
  required: boolean;
  filterable?: boolean;
}
const plate: Field = { name: 'plate', type: 'string', required: true, filterable: true };
const vin: Field = { name: 'vin', type: 'string', required: false };
const colour: Field = { name: 'colour', type: 'string', required: false };
const cars = {
  key: 'cars',
  label: 'Cars',
  read_scope: 'objects:cars:read',
  write_scope: 'objects:cars:write',
  key_field: 'plate',
  fields: [plate, vin, colour],
};
const withFields = (fields: Field[], extra: Row = {}) => ({ ...cars, ...extra, fields });
const car = (i: number): Row => ({ plate: `P-${i}`, vin: `V-${i}`, colour: i % 2 === 0 ? 'red' : 'blue' });

describe.each(dialects)('objects define over many rows, in slices (%s)', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    // A slice target no rewrite slice reaches: slices stay REWRITE_SLICE rows, which the counts below rely on.
    h = await startHarness(dialect, { env: { SQLITE_SLICE_TARGET_MS: '1000' } });
  });
  afterAll(async () => h.close());

  /** An org whose `cars` holds ROWS rows, written through the API; its key, and readers and writers of its rows. */
  async function orgWithCars(org: string) {
    await h.org(org);
    await h.gateway.services.objects.define(org, cars);
    const key = (await h.key(org, 'objects:cars:read,objects:cars:write', { rateLimit: 100_000 })).key;
    const write = (rows: Row[]) => h.request({ method: 'POST', url: '/v1/objects/cars', key, payload: { rows } });
    for (let start = 0; start < ROWS; start += 1000) {
      const res = await write(Array.from({ length: Math.min(1000, ROWS - start) }, (_, i) => car(start + i)));
      expect(res.statusCode, res.body).toBe(200);
    }
    const query = (q = '') => h.request({ method: 'GET', url: `/v1/objects/cars?limit=1000${q}`, key });
    const all = async (q = '') => {
      const rows: Row[] = [];
      for (let cursor = ''; ; ) {
        const res = await query(`${q}${cursor}`);
        expect(res.statusCode, res.body).toBe(200);
        const page = res.json<{ rows: Row[]; next_cursor: string | null }>();
        rows.push(...page.rows);
        if (!page.next_cursor) return rows;
        cursor = `&cursor=${page.next_cursor}`;
      }
    };
    return { key, write, query, all };
  }
  const define = (org: string, def: unknown, onProgress?: (p: RedefineProgress) => void | Promise<void>) => h.gateway.services.objects.define(org, def, onProgress);

  it('refuses a definition a row written between two check slices does not fit, and changes nothing', async () => {
    const { write, all } = await orgWithCars('slices-refuse');
    const colourRequired = withFields([plate, vin, { ...colour, required: true }]);
    let written = false;
    const attempt = define('slices-refuse', colourRequired, async (p) => {
      if (p.phase !== 'check' || written) return;
      written = true;
      // Between the first and second read slice: a row without a colour, fine under the definition in force.
      const res = await write([{ plate: 'LATE-1' }]);
      expect(res.statusCode, res.body).toBe(200);
    });
    await expect(attempt).rejects.toMatchObject({ code: 'rows_do_not_fit', message: expect.stringMatching(/^cannot redefine cars: 1 of 2601 existing rows do not fit .*colour: is required.*nothing changed$/) as unknown });
    expect((await h.gateway.services.objects.showDefinition('slices-refuse', 'cars')).version).toBe(1);
    expect((await all()).find((r) => r.plate === 'LATE-1')).toEqual({ plate: 'LATE-1', vin: null, colour: null });
  });

  it('rewrites in slices: writes between slices go through, are re-checked, and end in the new form', async () => {
    const { write, query, all } = await orgWithCars('slices-writes');
    const other = await orgWithCars('slices-other');
    const filterable = withFields([plate, vin, { ...colour, filterable: true }]);
    const seen: string[] = [];
    const result = await define('slices-writes', filterable, async (p) => {
      if (seen.includes(p.phase)) return;
      seen.push(p.phase);
      if (p.phase === 'check') {
        // Written while the rows are checked: judged again when the definition switches, rewritten with the others.
        expect((await write([{ plate: 'DURING-CHECK', colour: 'green' }])).statusCode).toBe(200);
        return;
      }
      // Between two rewrite slices: the object's writes and other orgs' writes are taken; a filter on the field
      // being rewritten waits (rows not rewritten yet do not hold it), unfiltered reads answer.
      expect((await write([{ plate: 'DURING-REWRITE', colour: 'green' }])).statusCode).toBe(200);
      expect((await other.write([{ plate: 'OTHER-ORG' }])).statusCode).toBe(200);
      const filtered = await query('&colour=red');
      expect(filtered.statusCode).toBe(409);
      expect(filtered.json()).toMatchObject({ ok: false, code: 'concurrent_change', error: expect.stringMatching(/object cars is being redefined: .*filters on colour answer once that is done; try again shortly/) as unknown });
      expect((await query('&plate=P-7')).json<{ rows: Row[] }>().rows).toEqual([car(7)]);
    });
    expect(seen).toEqual(['check', 'rewrite']);
    expect(result).toMatchObject({ rows_checked: ROWS + 1, rows_rewritten: ROWS + 1, rows_resumed: 0, definition: { version: 2 } });
    expect(await all('&colour=red')).toHaveLength(ROWS / 2);
    expect((await all('&colour=green')).map((r) => r.plate)).toEqual(['DURING-CHECK', 'DURING-REWRITE']);
    expect(await all()).toHaveLength(ROWS + 2);
  });

  it('a rewrite cut short leaves the new definition switched and is finished by the next define, each row rewritten once', async () => {
    const { write, query, all } = await orgWithCars('slices-resume');
    const byVin = withFields([plate, { ...vin, required: true }, colour], { key_field: 'vin' });
    let slices = 0;
    const cut = define('slices-resume', byVin, (p) => {
      if (p.phase === 'rewrite' && ++slices === 2) throw new Error('killed after two rewrite slices');
    });
    await expect(cut).rejects.toThrow('killed after two rewrite slices');
    expect((await h.gateway.services.objects.showDefinition('slices-resume', 'cars')).version).toBe(2);
    // Rows not rewritten yet still hold their plate as key: writes (upserts on vin) and vin filters wait.
    const refusedWrite = await write([{ plate: 'NEW', vin: 'V-NEW' }]);
    expect(refusedWrite.statusCode).toBe(409);
    expect(refusedWrite.json<{ error: string }>().error).toMatch(/being redefined: .*writes are taken once that is done/);
    expect((await query('&vin=V-1')).statusCode).toBe(409);
    expect(await all()).toHaveLength(ROWS);

    const resumed = await define('slices-resume', byVin);
    expect(resumed).toMatchObject({ rows_resumed: ROWS - 2 * 100, rows_rewritten: 0, rows_checked: 0, definition: { version: 3, key_field: 'vin' } });
    expect((await query('&vin=V-1')).json<{ rows: Row[] }>().rows).toEqual([car(1)]);
    const upsert = await write([{ plate: 'P-1-NEW', vin: 'V-1' }]);
    expect(upsert.statusCode, upsert.body).toBe(200);
    expect(await all()).toHaveLength(ROWS);
    expect((await query('&vin=V-1')).json<{ rows: Row[] }>().rows).toEqual([{ plate: 'P-1-NEW', vin: 'V-1', colour: null }]);
  });
});
