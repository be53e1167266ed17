/*
 * Tire sizes as shoppers and catalogs spell them, reduced to one key per size so `225 45 17`, `22545R17`,
 * `225-45r17` and `P225/45R17` all find the tires sold as `225/45R17`. Pure: no database, no I/O.
 *
 * Keys: passenger (P-metric and unprefixed Euro-metric are the same size) `225/45R17`; light truck `LT245/75R16`
 * (prefix or suffix); trailer `ST205/75R15`; European commercial `215/65R16C`; flotation `33X12.50R15` (always
 * light truck, an `LT` suffix changes nothing). The construction letter (R, ZR) is not part of the key: retail
 * sizes are radial. Load index and speed rating are read when given and kept beside the key: a search that gives
 * them narrows to tires stored with the same ones (decisions.md).
 */

export type TireClass = 'passenger' | 'LT' | 'ST' | 'C' | 'flotation';

export interface TireSize {
  /** The normalized size the catalog indexes and searches by. */
  key: string;
  tireClass: TireClass;
  /** `94`, or `120/116` for an LT tire's single/dual load. */
  loadIndex?: string;
  /** `W` */
  speedRating?: string;
}

// Load index (`94`, an LT tire's `120/116`) and speed rating (every letter but I and O), bracketed on ZR sizes: `(94Y)`.
const SERVICE = String.raw`(?:\s*\(?(?<load>\d{2,3}(?:/\d{2,3})?)\s*(?<speed>[A-HJ-NP-Z])\)?(?![A-Z0-9]))?`;
const METRIC = String.raw`(?<prefix>P|LT|ST)?\s*(?<width>\d{3})\s*[/\s-]?\s*(?<aspect>\d{2})\s*(?:Z?R|[/\s-])?\s*(?<rim>\d{2}(?:\.5)?)(?<suffix>LT|ST|C)?`;
const FLOTATION = String.raw`(?<dia>\d{2}(?:\.5)?)\s*[X×*]\s*(?<section>\d{1,2}(?:\.\d{1,2})?)\s*(?:Z?R|[/\s-])?\s*(?<frim>\d{2}(?:\.5)?)(?:LT)?`;
const BODY = `(?:${FLOTATION}|${METRIC})${SERVICE}`;

const WHOLE = new RegExp(`^${BODY}$`);
// Inside a product name: not glued to the letters or digits around it.
const WITHIN = new RegExp(`(?<![A-Z0-9.])${BODY}(?![A-Z0-9])`, 'g');

const between = (n: number, lo: number, hi: number) => n >= lo && n <= hi;
const decimal = (text: string) => String(Number(text));

function fromMatch(m: RegExpExecArray): TireSize | undefined {
  const g = m.groups ?? {};
  // Digits alone (`2254517`) are a SKU or part number far more often than a size.
  if (/^\d+$/.test(m[0].trim())) return undefined;
  const service = { ...(g.load ? { loadIndex: g.load } : {}), ...(g.speed ? { speedRating: g.speed } : {}) };
  if (g.dia !== undefined && g.section !== undefined && g.frim !== undefined) {
    const [dia, section, rim] = [Number(g.dia), Number(g.section), Number(g.frim)];
    if (!between(dia, 20, 50) || !between(section, 6, 20) || !between(rim, 10, 26) || section >= dia) return undefined;
    return { key: `${decimal(g.dia)}X${section.toFixed(2)}R${decimal(g.frim)}`, tireClass: 'flotation', ...service };
  }
  const [width, aspect, rim] = [Number(g.width), Number(g.aspect), Number(g.rim)];
  if (!between(width, 105, 395) || width % 5 !== 0 || !between(aspect, 20, 95) || aspect % 5 !== 0 || !between(rim, 10, 30)) return undefined;
  if (g.prefix && g.suffix && g.prefix !== g.suffix) return undefined;
  const marked = g.prefix === 'LT' || g.suffix === 'LT' ? 'LT' : g.prefix === 'ST' || g.suffix === 'ST' ? 'ST' : g.suffix === 'C' ? 'C' : 'passenger';
  const size = `${width}/${aspect}R${decimal(g.rim ?? '')}`;
  const key = marked === 'LT' || marked === 'ST' ? `${marked}${size}` : marked === 'C' ? `${size}C` : size;
  return { key, tireClass: marked, ...service };
}

const canonical = (text: string) => text.toUpperCase().replace(/\s+/g, ' ').trim();

/** A search query that is a tire size and nothing else, or undefined (the query is then searched as text). */
export function parseTireSize(query: string): TireSize | undefined {
  const m = WHOLE.exec(canonical(query));
  return m ? fromMatch(m) : undefined;
}

/** The first tire size written in a text, with where it stands in the text's canonical form. */
function firstSize(text: string): { size: TireSize; at: number; length: number; canonical: string } | undefined {
  const upper = canonical(text);
  for (const m of upper.matchAll(WITHIN)) {
    const size = fromMatch(m);
    if (size) return { size, at: m.index, length: m[0].length, canonical: upper };
  }
  return undefined;
}

/** The first tire size written in a product's name (`Michelin Pilot Sport 4 225/45R17 94Y`), or undefined. */
export function findTireSize(text: string): TireSize | undefined {
  return firstSize(text)?.size;
}

/**
 * A search query holding a tire size: the size, and the query's other words (`michelin 225/45R17`, `225 45 17 pilot`),
 * lower-cased, each of which a product must also contain. Undefined when the query holds no size (a text search).
 */
export function parseSizeQuery(query: string): { size: TireSize; words: string[] } | undefined {
  const whole = parseTireSize(query);
  if (whole) return { size: whole, words: [] };
  const found = firstSize(query);
  if (!found) return undefined;
  const rest = `${found.canonical.slice(0, found.at)} ${found.canonical.slice(found.at + found.length)}`;
  return { size: found.size, words: rest.toLowerCase().split(' ').filter((w) => w !== '') };
}

/** A size as stored when given: the key, and its load index and speed rating when it has them (`225/45R17 94W`). */
export function formatTireSize(size: TireSize): string {
  return size.loadIndex && size.speedRating ? `${size.key} ${size.loadIndex}${size.speedRating}` : size.key;
}

/** What a product is searched by: the size, its single-tire load index (`120` of `120/116`) and its speed rating. */
export interface SearchedSize {
  key: string;
  loadIndex: string | null;
  speedRating: string | null;
}

const searched = (size: TireSize): SearchedSize => ({ key: size.key, loadIndex: size.loadIndex?.split('/')[0] ?? null, speedRating: size.speedRating ?? null });

/**
 * The size a product is searched by: the one given (stored by formatTireSize), else the first in its name. A size
 * given without load and speed takes the name's when the name has the same size.
 */
export function productSize(given: string | null, name: string): SearchedSize | null {
  const fromName = findTireSize(name);
  const stated = given === null ? undefined : parseTireSize(given);
  if (!stated) return fromName ? searched(fromName) : null;
  if (stated.loadIndex === undefined && fromName?.key === stated.key) return searched(fromName);
  return searched(stated);
}
