/**
 * Code lists the gateway checks (AK403 7). Only lists held complete are here: a partial list would reject valid
 * codes. Elements whose X12 dictionaries run to hundreds of codes (REF01, DTM01, N101, PER01, PO103, PO106...) get
 * the code-shape check in the validator instead.
 */

/** 353 Transaction Set Purpose Code (BEG01). */
export const PURPOSE_CODES: readonly string[] = [
  '00', '01', '02', '03', '04', '05', '06', '07', '08', '10', '11', '12', '13', '14', '15', '16', '17', '18', '19', '20', '21', '22',
  '25', '26', '27', '28', '30', '31', '32', '33', '34', '35', '36', '37', '38', 'ZZ',
];

/** 349 Item Description Type (PID01). */
export const ITEM_DESCRIPTION_TYPES: readonly string[] = ['F', 'S', 'X'];

/** 100 Currency Code (CUR02, CUR05): ISO 4217 alphabetic codes in force (2024 list, funds and X-codes included). */
export const CURRENCY_CODES: readonly string[] = (
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF ' +
  'CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD ' +
  'HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA ' +
  'MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB ' +
  'RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN ' +
  'UYI UYU UYW UZS VED VES VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XTS XUA XXX YER ZAR ZMW ' +
  'ZWG ZWL'
).split(' ');

/** 715 Functional Group Acknowledge Code (AK901). */
export const GROUP_ACK_CODES: readonly string[] = ['A', 'E', 'M', 'P', 'R', 'W', 'X'];

/** 717 Transaction Set Acknowledgment Code (AK501). */
export const SET_ACK_CODES: readonly string[] = ['A', 'E', 'M', 'R', 'W', 'X'];

/**
 * ID elements whose codes come from outside X12 (116 postal code, 26 country, 156 state or province, 1715 country
 * subdivision): their values follow the outside list (`V6B 5J4`, `90501-1234`), so only type and size are checked.
 */
export const EXTERNAL_CODE_ELEMENTS: ReadonlySet<string> = new Set(['116', '26', '156', '1715']);

/** Every code of X12's own dictionaries is upper-case letters and digits: anything else is no code of any list, in any version. */
export function isCodeShaped(value: string): boolean {
  return /^[A-Z0-9]+$/.test(value);
}
