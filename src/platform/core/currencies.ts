import { z } from 'zod';

/**
 * ISO 4217 active currency codes by their minor-unit digits (the ISO list, not CLDR's display digits, which differ
 * for IQD, LAK, RSD and others). Funds and precious-metal codes without minor units (XAU, XDR, XTS, XXX, ...) are left
 * out: nothing is priced in them. Withdrawn codes (HRK, ANG, SLL, ZWL, BGN since the euro) are left out too.
 */
const CODES_BY_DIGITS: Readonly<Record<0 | 2 | 3 | 4, string>> = {
  0: 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF',
  2:
    'AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF CHW ' +
    'CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ' +
    'ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV ' +
    'MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD ' +
    'SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG',
  3: 'BHD IQD JOD KWD LYD OMR TND',
  4: 'CLF UYW',
};

const MINOR_DIGITS: ReadonlyMap<string, number> = new Map(
  Object.entries(CODES_BY_DIGITS).flatMap(([digits, codes]) => codes.split(' ').map((code) => [code, Number(digits)] as const)),
);

/** The digits after the point of an amount payable in this currency (USD 2, JPY 0, KWD 3), or undefined for an unknown code. */
export function minorDigitsOf(code: string): number | undefined {
  return MINOR_DIGITS.get(code);
}

/** An ISO 4217 code as an input: three capital letters naming an active currency. */
export function currencyCode(what: string) {
  return z
    .string()
    .regex(/^[A-Z]{3}$/, { error: `${what} must be an ISO 4217 code: three capital letters (e.g. USD, EUR, JPY)` })
    .refine((code) => MINOR_DIGITS.has(code), { error: (issue) => `${what} ${String(issue.input)} is not an active ISO 4217 currency code` });
}
