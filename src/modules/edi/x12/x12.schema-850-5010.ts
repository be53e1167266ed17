import { ELEMENTS_850, N4_5010 } from './x12.schema-850.js';
import { collectIds, loop, seg as s, UNBOUNDED as N, type LoopRule, type TransactionSetSchema } from './x12.schema.js';

/**
 * 850 Purchase Order, 005010 structure. Differences from 004010 that partners hit: MTX (text) replaces MSG, and the
 * N9 loops take MTX, PWK and EFI. MSG is still taken before each MTX and NTE right after BEG, as in the 004010 table,
 * because partners moving to 005010 keep sending them.
 */

const text = (max: number): LoopRule['children'] => [s('MSG', 'O', max), s('MTX', 'O', max)];

const lm = (): LoopRule => loop('LM', 'O', N, [s('LM', 'M'), s('LQ', 'M', N)]);

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
  loop('N9', 'O', 1000, [s('N9', 'M'), s('DTM', 'O', N), s('MEA', 'O', 40), ...text(1000), s('PWK', 'O', N), s('EFI', 'O', N)]),
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

const root = loop('850', 'M', 1, [
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
  loop('N9', 'O', 1000, [s('N9', 'M'), s('DTM', 'O', N), ...text(1000), s('PWK', 'O', N), s('EFI', 'O', N)]),
  n1Heading,
  lm(),
  spi,
  loop('ADV', 'O', N, [s('ADV', 'M'), s('DTM', 'O', N), s('MTX', 'O', N)]),
  po1,
  loop('CTT', 'O', 1, [s('CTT', 'M'), s('AMT')]),
  s('SE', 'M'),
]);

export const SCHEMA_850_5010: TransactionSetSchema = {
  id: '850',
  version: '005010',
  root,
  ids: collectIds(root),
  elements: { ...ELEMENTS_850, N4: N4_5010 },
};
