/**
 * Tire Identification Number (the "DOT code", 49 CFR 574.5): an optional `DOT` mark, a plant code (2 symbols, 3 for
 * plants coded since 2015), a size code and an optional manufacturer's code (6 symbols together in the 13-symbol
 * format), then a 4-digit date code: week (01-53) and year. Spaces are optional.
 */

// 49 CFR 574.5 leaves out G, I, O, Q, S and Z because they are read as 6, 1, 0, 0, 5 and 2.
const TIN_SYMBOL = /^[ABCDEFHJKLMNPRTUVWXY0-9]$/;
const EXCLUDED_LETTER = /^[GIOQSZ]$/;
/** Plant + size code at least (2 + 2); the 13-symbol format has 9 (3 + 6). */
const MIN_BODY = 4;
const MAX_BODY = 9;

type DotCheck = { ok: true; value: string } | { ok: false; message: string };

/** ISO week of the year for the "not made in the future" check. */
function isoWeek(at: Date): { year: number; week: number } {
  const date = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const day = date.getUTCDay() || 7;
  date.setUTCDate(date.getUTCDate() + 4 - day);
  const yearStart = Date.UTC(date.getUTCFullYear(), 0, 1);
  return { year: date.getUTCFullYear(), week: Math.ceil(((date.getTime() - yearStart) / 86_400_000 + 1) / 7) };
}

/** Checks the shape of a DOT code and returns it normalised as `DOT <plant+size+option> <date>`. */
export function checkDotNumber(input: string, now: Date): DotCheck {
  let symbols = input.trim().toUpperCase().replace(/ +/g, '');
  if (symbols.startsWith('DOT')) symbols = symbols.slice(3);
  if (symbols === '') return { ok: false, message: 'dot_number has no symbols after DOT' };

  for (const ch of symbols) {
    if (TIN_SYMBOL.test(ch)) continue;
    if (EXCLUDED_LETTER.test(ch)) {
      return { ok: false, message: `dot_number cannot contain the letter ${ch}: DOT codes never use G, I, O, Q, S or Z` };
    }
    return { ok: false, message: 'dot_number may contain only letters, digits and spaces' };
  }

  const date = symbols.slice(-4);
  if (!/^\d{4}$/.test(date)) {
    return { ok: false, message: 'dot_number must end with the 4-digit date code: week and year, e.g. 2319 for week 23 of 2019' };
  }
  const body = symbols.slice(0, -4);
  if (body.length < MIN_BODY || body.length > MAX_BODY) {
    return {
      ok: false,
      message: `dot_number has ${symbols.length} symbols; a DOT code has 8 to 13 (plant code, size code, optional code, 4-digit date code)`,
    };
  }

  const week = Number(date.slice(0, 2));
  const year = 2000 + Number(date.slice(2));
  if (week < 1 || week > 53) return { ok: false, message: `dot_number date code ${date}: week ${date.slice(0, 2)} does not exist (01-53)` };
  const current = isoWeek(now);
  // One week of slack: the factory's week may already have turned where the tire was made.
  if (year > current.year || (year === current.year && week > current.week + 1)) {
    return { ok: false, message: `dot_number date code ${date} is in the future (week ${date.slice(0, 2)} of ${year})` };
  }
  return { ok: true, value: `DOT ${body} ${date}` };
}
