import { ELEMENTS_850, N4_5010, structure850 } from './x12.schema-850.js';
import { collectIds, seg as s, UNBOUNDED as N, type TransactionSetSchema } from './x12.schema.js';

/**
 * 850 Purchase Order, 005010 structure. Differences from 004010 that partners hit: MTX (text) replaces MSG, and the
 * N9 loops take MTX, PWK and EFI. MSG is still taken before each MTX and NTE right after BEG, as in the 004010 table,
 * because partners moving to 005010 keep sending them.
 */

const root = structure850((max) => [s('MSG', 'O', max), s('MTX', 'O', max)], [s('PWK', 'O', N), s('EFI', 'O', N)]);

export const SCHEMA_850_5010: TransactionSetSchema = {
  id: '850',
  version: '005010',
  root,
  ids: collectIds(root),
  elements: { ...ELEMENTS_850, N4: N4_5010 },
};
