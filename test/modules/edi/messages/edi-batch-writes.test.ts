import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as messages from '../../../../src/modules/edi/messages/messages.repository.js';
import { enqueueDeliveries, hubDelivery } from '../../../../src/platform/outbox/outbox.js';
import { dialects, type Harness, startHarness } from '../../../support/harness.js';

describe.each(dialects)('batched intake writes (%s)', (dialect) => {
  let h: Harness;
  let orgId: string;

  beforeAll(async () => {
    h = await startHarness(dialect);
    orgId = (await h.org('acme')).id;
  });
  afterAll(async () => {
    await h.close();
  });

  it('a unique violation in the last chunk rolls back every chunk written before it, outbox rows included', async () => {
    const at = h.gateway.clock.now();
    const stamp = at.toISOString();
    const n = 2_500;
    const rows: messages.MessageRow[] = Array.from({ length: n }, (_, i) => ({
      id: `msg_batch_${i}`,
      org_id: orgId,
      direction: 'outbound',
      partner_id: null,
      type: '997',
      control_number: String(i).padStart(9, '0'),
      status: 'generated',
      size: 1,
      sets_total: null,
      lease_owner: null,
      sha256: 'x',
      raw: Buffer.from('x'),
      errors: null,
      http_status: null,
      result: null,
      related_id: null,
      parent_id: null,
      order_id: null,
      created_at: stamp,
      updated_at: stamp,
    }));
    // The last row repeats the first id: only the third chunk's statement fails.
    const last = rows[n - 1];
    if (last === undefined) throw new Error('no rows');
    rows[n - 1] = { ...last, id: 'msg_batch_0' };
    const db = h.gateway.database.db;
    const write = db.transaction().execute(async (tx) => {
      await enqueueDeliveries(tx, rows.map((r) => hubDelivery({ type: 'edi.document', orgId, at, id: `evt_batch_${r.control_number}`, data: {} })));
      await messages.insertMessages(tx, rows);
    });
    await expect(write).rejects.toThrow(/unique|duplicate/i);
    const kept = await db.selectFrom('edi_messages').select('id').where('id', 'like', 'msg_batch_%').execute();
    const queued = await db.selectFrom('outbox').select('id').where('id', 'like', 'evt_batch_%').execute();
    expect(kept).toEqual([]);
    expect(queued).toEqual([]);
  });
});
