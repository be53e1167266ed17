import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findTireSize, formatTireSize, parseSizeQuery, parseTireSize, productSize } from '../../../src/modules/products/tire-size.js';

/** Spellings shoppers type and catalogs print, with the key each one must find. */
const SPELLINGS: [string, string][] = [
  ['225/45R17', '225/45R17'],
  ['225 45 17', '225/45R17'],
  ['22545R17', '225/45R17'],
  ['225/45/17', '225/45R17'],
  ['225-45r17', '225/45R17'],
  ['225-45-17', '225/45R17'],
  ['225/45 R17', '225/45R17'],
  ['225 / 45 R 17', '225/45R17'],
  ['  225/45r17  ', '225/45R17'],
  ['225/45ZR17', '225/45R17'],
  ['P225/45R17', '225/45R17'],
  ['p225 45 17', '225/45R17'],
  ['225/45R17 94W', '225/45R17'],
  ['225/45R17 94 W', '225/45R17'],
  ['225/45ZR17 (94Y)', '225/45R17'],
  ['LT245/75R16', 'LT245/75R16'],
  ['lt245 75 16', 'LT245/75R16'],
  ['245/75R16LT', 'LT245/75R16'],
  ['LT245/75R16 120/116S', 'LT245/75R16'],
  ['LT215/85R16', 'LT215/85R16'],
  ['ST205/75R15', 'ST205/75R15'],
  ['215/65R16C', '215/65R16C'],
  ['275/40R20', '275/40R20'],
  ['195/65R15 91H', '195/65R15'],
  ['155/80R13', '155/80R13'],
  ['33x12.50R15', '33X12.50R15'],
  ['33X12.5R15LT', '33X12.50R15'],
  ['33x12.50-15', '33X12.50R15'],
  ['35x12.50R20LT 121Q', '35X12.50R20'],
  ['31 x 10.50 R15', '31X10.50R15'],
  ['37x13.50R22', '37X13.50R22'],
];

/** Queries that are not a size: they stay substring searches. */
const NOT_SIZES = ['pilot', 'r17', '225/45', '2254517', 'MICH-225', '225/45R17 michelin', '999/45R17', '225/47R17', '225/45R99', '225/45R17 94W extra', '', 'LT225/45R17ST', '12x33R15'];

describe('tire sizes', () => {
  it.each(SPELLINGS)('parses %j as %s', (spelling, key) => {
    expect(parseTireSize(spelling)?.key).toBe(key);
  });

  it.each(NOT_SIZES)('does not take %j for a size', (query) => {
    expect(parseTireSize(query)).toBeUndefined();
  });

  it('keeps the class apart: LT and ST are their own sizes, P is the passenger size', () => {
    expect(parseTireSize('P245/75R16')?.tireClass).toBe('passenger');
    expect(parseTireSize('245/75R16')?.key).not.toBe(parseTireSize('LT245/75R16')?.key);
    expect(parseTireSize('ST205/75R15')?.key).not.toBe(parseTireSize('205/75R15')?.key);
    expect(parseTireSize('33x12.50R15')?.tireClass).toBe('flotation');
  });

  it('reads the load index and speed rating when given', () => {
    expect(parseTireSize('225/45R17 94W')).toEqual({ key: '225/45R17', tireClass: 'passenger', loadIndex: '94', speedRating: 'W' });
    expect(parseTireSize('LT245/75R16 120/116S')).toMatchObject({ loadIndex: '120/116', speedRating: 'S' });
    expect(parseTireSize('245/35ZR20 (95Y)')).toMatchObject({ key: '245/35R20', loadIndex: '95', speedRating: 'Y' });
    expect(parseTireSize('225/45R17')).toEqual({ key: '225/45R17', tireClass: 'passenger' });
  });

  it('finds the size in a product name', () => {
    const names: [string, string | undefined][] = [
      ['Michelin Pilot Sport 4 225/45R17 94Y', '225/45R17'],
      ['Bridgestone Turanza T005 205/55R16 91V', '205/55R16'],
      ['BFGoodrich All-Terrain T/A KO2 LT245/75R16 120/116S', 'LT245/75R16'],
      ['Toyo Open Country M/T 33x12.50R15LT', '33X12.50R15'],
      ['Carlisle Radial Trail HD ST205/75R15', 'ST205/75R15'],
      ['Pilot Sport', undefined],
      ['Model 2254517 kit', undefined],
      ['Part X225/45R17', undefined],
    ];
    for (const [name, key] of names) expect(findTireSize(name)?.key, name).toBe(key);
  });

  it('gives every spelling of one size the same key', () => {
    const size = fc.record({
      width: fc.integer({ min: 21, max: 79 }).map((n) => n * 5),
      aspect: fc.integer({ min: 4, max: 19 }).map((n) => n * 5),
      rim: fc.integer({ min: 10, max: 30 }),
    });
    const spell = fc.constantFrom(
      (w: number, a: number, r: number) => `${w}/${a}R${r}`,
      (w: number, a: number, r: number) => `${w} ${a} ${r}`,
      (w: number, a: number, r: number) => `${w}${a}r${r}`,
      (w: number, a: number, r: number) => `P${w}-${a}-${r}`,
      (w: number, a: number, r: number) => `${w}/${a}/${r}`,
    );
    fc.assert(
      fc.property(size, spell, ({ width, aspect, rim }, write) => {
        expect(parseTireSize(write(width, aspect, rim))?.key).toBe(`${width}/${aspect}R${rim}`);
      }),
    );
  });

  it('never throws on any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (text) => {
        parseTireSize(text);
        findTireSize(text);
        parseSizeQuery(text);
      }),
    );
  });

  it.each([
    ['225/45R17', '225/45R17', undefined, undefined, []],
    ['michelin 225/45R17', '225/45R17', undefined, undefined, ['michelin']],
    ['225 45 17 pilot', '225/45R17', undefined, undefined, ['pilot']],
    ['Pilot  Sport 225-45zr17 (94Y) XL', '225/45R17', '94', 'Y', ['pilot', 'sport', 'xl']],
    ['bfg LT245/75R16 120/116S ko2', 'LT245/75R16', '120/116', 'S', ['bfg', 'ko2']],
  ] as const)('reads %j as size %s (load %s, speed %s) and the words %j', (q, key, loadIndex, speedRating, words) => {
    const found = parseSizeQuery(q);
    expect(found && { key: found.size.key, loadIndex: found.size.loadIndex, speedRating: found.size.speedRating, words: found.words }).toEqual({ key, loadIndex, speedRating, words });
  });

  it.each(['michelin', 'r17', '225/45', 'sku 2254517', ''])('finds no size in %j (a text search)', (q) => {
    expect(parseSizeQuery(q)).toBeUndefined();
  });

  it('stores a given size with its service description, and searches the name\'s when the given one has none', () => {
    expect(formatTireSize(parseTireSize('p225/45zr17 94w') ?? fail())).toBe('225/45R17 94W');
    expect(productSize('225/45R17 94W', 'Potenza')).toEqual({ key: '225/45R17', loadIndex: '94', speedRating: 'W' });
    expect(productSize('225/45R17', 'Pilot Sport 4 225/45R17 94Y')).toEqual({ key: '225/45R17', loadIndex: '94', speedRating: 'Y' });
    expect(productSize('235/40R18', 'Pilot Sport 4 225/45R17 94Y')).toEqual({ key: '235/40R18', loadIndex: null, speedRating: null });
    expect(productSize(null, 'KO2 LT245/75R16 120/116S')).toEqual({ key: 'LT245/75R16', loadIndex: '120', speedRating: 'S' });
    expect(productSize(null, 'Valve stem kit')).toBeNull();
  });
});

function fail(): never {
  throw new Error('not a size');
}
