import { GROUP_ACK_CODES, SET_ACK_CODES } from './x12.code-lists.js';
import { collectIds, elements, loop, seg as s, UNBOUNDED as N, type TransactionSetSchema } from './x12.schema.js';

/** 997 Functional Acknowledgment (004010 and 005010 share the structure; 005010 adds AK103 and AK203). */

const CODES: Readonly<Record<string, readonly string[]>> = {
  '715': GROUP_ACK_CODES,
  '717': SET_ACK_CODES,
};

const root = loop('997', 'M', 1, [
  s('ST', 'M'),
  s('AK1', 'M'),
  loop('AK2', 'O', N, [s('AK2', 'M'), loop('AK3', 'O', N, [s('AK3', 'M'), s('AK4', 'O', 99)]), s('AK5', 'M')]),
  s('AK9', 'M'),
  s('SE', 'M'),
]);

export const SCHEMA_997: TransactionSetSchema = {
  id: '997',
  version: '004010',
  root,
  ids: collectIds(root),
  elements: {
    AK1: elements(['479 M ID 2/2', '28 M N0 1/9', '480 O AN 1/12']),
    AK2: elements(['143 M ID 3/3', '329 M AN 4/9', '1705 O AN 1/35']),
    AK3: elements(['721 M ID 2/3', '719 M N0 1/10', '447 O AN 1/4', '720 O ID 1/3']),
    AK4: elements(['C030 M C', '725 O N0 1/4', '723 M ID 1/3', '724 O AN 1/99']),
    AK5: elements(['717 M ID 1/1', '718 O ID 1/3', '718 O ID 1/3', '718 O ID 1/3', '718 O ID 1/3', '718 O ID 1/3'], CODES),
    AK9: elements(
      ['715 M ID 1/1', '97 M N0 1/6', '123 M N0 1/6', '2 M N0 1/6', '716 O ID 1/3', '716 O ID 1/3', '716 O ID 1/3', '716 O ID 1/3', '716 O ID 1/3'],
      CODES,
    ),
  },
};

/** 005010's 997 has the same table; only the version it answers for differs. */
export const SCHEMA_997_5010: TransactionSetSchema = { ...SCHEMA_997, version: '005010' };
