import type { ElementRule } from './x12.schema.js';
import { X12_CODES } from './x12.types.js';

interface ElementProblem {
  code: string;
  message: string;
}

const NUMERIC = /^-?\d+$/;
const DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/;
const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** X12 basic and extended character sets exclude control characters. */
function hasControlChar(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 32 || code === 127) return true;
  }
  return false;
}

/** Numeric lengths count digits only: sign and decimal point are not part of the X12 length. */
function digitCount(value: string): number {
  let n = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 48 && code <= 57) n++;
  }
  return n;
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** CCYYMMDD, or YYMMDD in older versions. */
export function isValidDate(value: string): boolean {
  if (!/^(\d{6}|\d{8})$/.test(value)) return false;
  const offset = value.length - 6;
  const year = value.length === 8 ? Number(value.slice(0, 4)) : 2000 + Number(value.slice(0, 2));
  const month = Number(value.slice(2 + offset, 4 + offset));
  const day = Number(value.slice(4 + offset, 6 + offset));
  if (month < 1 || month > 12 || day < 1) return false;
  const max = month === 2 && !isLeap(year) ? 28 : (DAYS[month - 1] ?? 0);
  return day <= max;
}

/** HHMM, HHMMSS or HHMMSSd..d. */
export function isValidTime(value: string): boolean {
  if (!/^\d{4}(\d{2}\d{0,2})?$/.test(value)) return false;
  const hh = Number(value.slice(0, 2));
  const mm = Number(value.slice(2, 4));
  const ss = value.length >= 6 ? Number(value.slice(4, 6)) : 0;
  return hh < 24 && mm < 60 && ss < 60;
}

/** Checks one present (non-empty) value against its rule: syntax, then length, then date/time and code list. */
export function checkElementValue(value: string, rule: ElementRule): ElementProblem | undefined {
  const { type } = rule;
  if (type === 'C') return undefined;
  const numeric = type === 'N0' || type === 'N2' || type === 'R';
  if (hasControlChar(value)) return { code: X12_CODES.invalidCharacter, message: 'contains a control character' };
  if (numeric && !(type === 'R' ? DECIMAL : NUMERIC).test(value)) {
    return { code: X12_CODES.invalidCharacter, message: `'${value}' is not a valid ${type === 'R' ? 'decimal' : 'integer'}` };
  }
  if (type === 'DT' && !/^\d+$/.test(value)) return { code: X12_CODES.invalidDate, message: `'${value}' is not a date` };
  if (type === 'TM' && !/^\d+$/.test(value)) return { code: X12_CODES.invalidTime, message: `'${value}' is not a time` };
  const length = numeric ? digitCount(value) : value.length;
  if (length < rule.min) return { code: X12_CODES.elementTooShort, message: `length ${length} is below the minimum ${rule.min}` };
  if (length > rule.max) return { code: X12_CODES.elementTooLong, message: `length ${length} is above the maximum ${rule.max}` };
  if (type === 'DT' && !isValidDate(value)) return { code: X12_CODES.invalidDate, message: `'${value}' is not a valid date` };
  if (type === 'TM' && !isValidTime(value)) return { code: X12_CODES.invalidTime, message: `'${value}' is not a valid time` };
  if (rule.codes !== undefined && !rule.codes.has(value)) {
    return { code: X12_CODES.invalidCode, message: `'${value}' is not a valid code for element ${rule.ref}` };
  }
  return undefined;
}
