import { CURRENCY_CODES, ITEM_DESCRIPTION_TYPES, PURPOSE_CODES } from './x12.code-lists.js';
import { collectIds, elements, loop, seg, UNBOUNDED as N, type LoopRule, type SegmentElements, type StructureRule, type TransactionSetSchema } from './x12.schema.js';

/**
 * 850 Purchase Order, 004010 structure (x12.schema-850-5010.ts has 005010's); element sizes take the wider of the two
 * versions so a valid 005010 value is never rejected. Syntax notes are the standard's for each segment.
 */

const CODES: Readonly<Record<string, readonly string[]>> = {
  '353': PURPOSE_CODES,
  '349': ITEM_DESCRIPTION_TYPES,
  '100': CURRENCY_CODES,
};

const s = seg;

const lm = (): LoopRule => loop('LM', 'O', N, [s('LM', 'M'), s('LQ', 'M', N)]);

/** Text segments at a place in the loop: 004010 has MSG; 005010 has MTX (and keeps MSG for partners moving up). */
type TextSegments = (max: number) => StructureRule[];

/**
 * The 850's loops and segments. 004010 and 005010 differ only in their text segments and in what the N9 loops of the
 * heading and the PO1 loop take after the text (005010: PWK, EFI).
 */
export function structure850(text: TextSegments, n9Extra: readonly StructureRule[]): LoopRule {
  const n1Heading = loop('N1', 'O', 200, [
    s('N1', 'M'), s('N2', 'O', 2), s('N3', 'O', 2), s('N4', 'O', N), s('NX2', 'O', N), s('REF', 'O', 12), s('PER', 'O', N),
    s('SI', 'O', N), s('FOB'), s('TD1', 'O', 2), s('TD5', 'O', 12), s('TD3', 'O', 12), s('TD4', 'O', 5), s('PKG', 'O', 200),
  ]);

  const spi = loop('SPI', 'O', N, [
    s('SPI', 'M'), s('REF', 'O', 5), s('DTM', 'O', 5), ...text(50),
    loop('N1', 'O', 20, [s('N1', 'M'), s('N2', 'O', 2), s('N3', 'O', 2), s('N4'), s('REF', 'O', 20), s('G61'), ...text(50)]),
    loop('CB1', 'O', N, [s('CB1', 'M'), s('REF', 'O', 20), s('DTM', 'O', 5), s('LDT'), ...text(50)]),
  ]);

  const sln = loop('SLN', 'O', 1000, [
    s('SLN', 'M'), ...text(N), s('SI', 'O', N), s('PID', 'O', 1000), s('PO3', 'O', 104), s('TC2', 'O', N), s('ADV', 'O', N),
    s('DTM', 'O', 10), s('CTP', 'O', 25), s('PAM', 'O', 10), s('PO4'), s('TAX', 'O', 3),
    loop('N9', 'O', N, [s('N9', 'M'), s('DTM', 'O', N), ...text(N)]),
    loop('SAC', 'O', 25, [s('SAC', 'M'), s('CUR'), s('CTP')]),
    loop('QTY', 'O', N, [s('QTY', 'M'), s('SI', 'O', N)]),
    loop('N1', 'O', 10, [s('N1', 'M'), s('N2', 'O', 2), s('N3', 'O', 2), s('N4'), s('NX2', 'O', N), s('REF', 'O', 12), s('PER', 'O', 3), s('SI', 'O', N)]),
  ]);

  const po1 = loop('PO1', 'M', 100000, [
    s('PO1', 'M'), s('LIN', 'O', N), s('SI', 'O', N), s('CUR'), s('CN1'), s('PO3', 'O', 25),
    loop('CTP', 'O', N, [s('CTP', 'M'), s('CUR')]),
    s('PAM', 'O', 10), s('MEA', 'O', 40),
    loop('PID', 'O', 1000, [s('PID', 'M'), s('MEA', 'O', 10)]),
    s('PWK', 'O', 25), s('PO4', 'O', N), s('REF', 'O', N), s('PER', 'O', 3),
    loop('SAC', 'O', 25, [s('SAC', 'M'), s('CUR'), s('CTP')]),
    s('IT8'), s('CSH', 'O', N), s('ITD', 'O', 2), s('DIS', 'O', 20), s('INC'), s('TAX', 'O', N), s('FOB', 'O', N), s('SDQ', 'O', 500),
    s('IT3', 'O', 5), s('DTM', 'O', 10), s('TC2', 'O', N), s('TD1'), s('TD5', 'O', 12), s('TD3', 'O', 12), s('TD4', 'O', 5),
    s('PCT', 'O', N), s('MAN', 'O', 10), ...text(N), s('SPI', 'O', N), s('TXI', 'O', N), s('CTB', 'O', N),
    loop('QTY', 'O', N, [s('QTY', 'M'), s('SI', 'O', N)]),
    loop('SCH', 'O', 200, [s('SCH', 'M'), s('TD1', 'O', 2), s('TD5', 'O', 12), s('TD3', 'O', 12), s('TD4', 'O', 5), s('REF', 'O', N)]),
    loop('PKG', 'O', 200, [s('PKG', 'M'), s('MEA', 'O', N)]),
    loop('LS', 'O', 1, [
      s('LS', 'M'),
      loop('LDT', 'O', N, [s('LDT', 'M'), s('QTY', 'O', N), ...text(1), s('REF', 'O', 3), lm()]),
      s('LE', 'M'),
    ]),
    loop('N9', 'O', 1000, [s('N9', 'M'), s('DTM', 'O', N), s('MEA', 'O', 40), ...text(1000), ...n9Extra]),
    loop('N1', 'O', 200, [
      s('N1', 'M'), s('N2', 'O', 2), s('N3', 'O', 2), s('N4'), s('QTY', 'O', N), s('NX2', 'O', N), s('REF', 'O', 12), s('PER', 'O', 3),
      s('SI', 'O', N), s('DTM'), s('FOB'), s('SCH', 'O', 200), s('TD1', 'O', 2), s('TD5', 'O', 12), s('TD3', 'O', 12), s('TD4', 'O', 5),
      s('PKG', 'O', 200),
      loop('LDT', 'O', N, [s('LDT', 'M'), s('MAN', 'O', 10), s('QTY', 'O', 5), ...text(1), s('REF', 'O', 3)]),
    ]),
    sln,
    loop('AMT', 'O', N, [s('AMT', 'M'), s('REF'), s('PCT', 'O', N)]),
    lm(),
  ]);

    // NTE is in neither table; it sits where 003xxx had it (right after BEG) because partners still send it.

  return loop('850', 'M', 1, [
    s('ST', 'M'), s('BEG', 'M'), s('NTE', 'O', 100), s('CUR'), s('REF', 'O', N), s('PER', 'O', 3), s('TAX', 'O', N), s('FOB', 'O', N), s('CTP', 'O', N),
    s('PAM', 'O', 10), s('CSH', 'O', 5), s('TC2', 'O', N),
    loop('SAC', 'O', 25, [s('SAC', 'M'), s('CUR')]),
    s('ITD', 'O', N), s('DIS', 'O', 20), s('INC'), s('DTM', 'O', 10), s('LDT', 'O', 12), s('LIN', 'O', 5), s('SI', 'O', N),
    s('PID', 'O', 200), s('MEA', 'O', 40), s('PWK', 'O', 25), s('PKG', 'O', 200), s('TD1', 'O', 2), s('TD5', 'O', 12),
    s('TD3', 'O', 12), s('TD4', 'O', 5), s('MAN', 'O', 10), s('PCT', 'O', N), s('CTB', 'O', 5), s('TXI', 'O', N),
    loop('AMT', 'O', N, [
      s('AMT', 'M'), s('REF', 'O', N), s('DTM'), s('PCT', 'O', N),
      loop('FA1', 'O', N, [s('FA1', 'M'), s('FA2', 'M', N)]),
    ]),
    loop('N9', 'O', 1000, [s('N9', 'M'), s('DTM', 'O', N), ...text(1000), ...n9Extra]),
    n1Heading,
    lm(),
    spi,
    loop('ADV', 'O', N, [s('ADV', 'M'), s('DTM', 'O', N), s('MTX', 'O', N)]),
    po1,
    loop('CTT', 'O', 1, [s('CTT', 'M'), s('AMT')]),
    s('SE', 'M'),
  ]);
}

const pairs = (count: number, qualifier: string, value: string): string[] =>
  Array.from({ length: count * 2 }, (_, i) => (i % 2 === 0 ? qualifier : value));

/** P0607, P0809, ... P2425: each product id qualifier with its id. */
const productIdPairs = Array.from({ length: 10 }, (_, i) => `P${String(6 + 2 * i).padStart(2, '0')}${String(7 + 2 * i).padStart(2, '0')}`);

/** CUR07..CUR21: five date/time qualifier, date, time triples. */
const curDates = Array.from({ length: 5 }, () => ['374 X ID 3/3', '373 X DT 8/8', '337 X TM 4/8']).flat();

const N4_ELEMENTS = ['19 O AN 2/30', '156 O ID 2/2', '116 O ID 3/15', '26 O ID 2/3', '309 X ID 1/2', '310 O AN 1/30', '1715 X ID 1/3'];

/** Element rules of the 850 segments the gateway checks, as 004010 defines them; 005010 overrides N4 and adds MTX. */
export const ELEMENTS_850: Readonly<Record<string, SegmentElements>> = {
  BEG: elements(
    ['353 M ID 2/2', '92 M ID 2/2', '324 M AN 1/22', '328 O AN 1/30', '373 M DT 8/8', '367 O AN 1/30', '587 O ID 2/2',
      '1019 O ID 3/3', '1166 O ID 2/2', '1232 O ID 2/2', '786 O ID 2/2', '640 O ID 2/2'],
    CODES,
  ),
  CUR: elements(
    ['98 M ID 2/3', '100 M ID 3/3', '280 O R 4/10', '98 O ID 2/3', '100 O ID 3/3', '669 O ID 3/3', ...curDates],
    CODES,
    ['C0807', 'C0907', 'L101112', 'C1110', 'C1210', 'L131415', 'C1413', 'C1513', 'L161718', 'C1716', 'C1816', 'L192021', 'C2019', 'C2119'],
  ),
  REF: elements(['128 M ID 2/3', '127 X AN 1/50', '352 X AN 1/80', 'C040 O C'], {}, ['R0203']),
  PER: elements(
    ['366 M ID 2/2', '93 O AN 1/60', '365 X ID 2/2', '364 X AN 1/256', '365 X ID 2/2', '364 X AN 1/256', '365 X ID 2/2', '364 X AN 1/256', '443 O AN 1/20'],
    {},
    ['P0304', 'P0506', 'P0708'],
  ),
  DTM: elements(['374 M ID 3/3', '373 X DT 8/8', '337 X TM 4/8', '623 O ID 2/2', '1250 X ID 2/3', '1251 X AN 1/35'], {}, ['R020305', 'C0403', 'P0506']),
  N1: elements(['98 M ID 2/3', '93 X AN 1/60', '66 X ID 1/2', '67 X AN 2/80', '706 O ID 2/2', '98 O ID 2/3'], {}, ['R0203', 'P0304']),
  N2: elements(['93 M AN 1/60', '93 O AN 1/60']),
  N3: elements(['166 M AN 1/55', '166 O AN 1/55']),
  N4: elements(N4_ELEMENTS, {}, ['C0605']),
  PO1: elements(
    ['350 O AN 1/20', '330 X R 1/15', '355 O ID 2/2', '212 X R 1/17', '639 O ID 2/2', ...pairs(10, '235 X ID 2/2', '234 X AN 1/48')],
    {},
    ['C0302', 'C0504', ...productIdPairs],
  ),
  PID: elements(
    ['349 M ID 1/1', '750 O ID 2/3', '559 X ID 2/2', '751 X AN 1/12', '352 X AN 1/80', '752 O ID 2/2', '822 O AN 1/15', '1073 O ID 1/1', '819 O ID 2/3'],
    CODES,
    ['C0403', 'R0405', 'C0703', 'C0804', 'C0905'],
  ),
  NTE: elements(['363 O ID 3/3', '352 M AN 1/80']),
  MSG: elements(['933 M AN 1/264', '934 X ID 2/2', '1470 O N0 1/9'], {}, ['C0302']),
  CTT: elements(['354 M N0 1/6', '347 O R 1/10', '81 X R 1/10', '355 X ID 2/2', '183 X R 1/8', '355 X ID 2/2', '352 O AN 1/80'], {}, ['P0304', 'P0506']),
};

/** 005010's N4: N407 (country subdivision) excludes N402 and needs N404. */
export const N4_5010 = elements(N4_ELEMENTS, {}, ['E0207', 'C0605', 'C0704']);

const root = structure850((max) => [s('MSG', 'O', max)], []);

export const SCHEMA_850: TransactionSetSchema = {
  id: '850',
  version: '004010',
  root,
  ids: collectIds(root),
  elements: ELEMENTS_850,
};
