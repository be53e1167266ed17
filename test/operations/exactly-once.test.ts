import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audienceOf, type Operation, takesIdempotencyKey } from '../../src/platform/operations/operation.js';
import { dialects, type Harness, startHarness } from '../support/harness.js';
import { rowChanges, rowCounts } from '../support/row-counts.js';
import { type Answer, type Call, callMcp, callRest, mcpArgsOf } from '../support/operations.js';
import { FIXTURES, seedOrg } from './fixtures.js';

type Door = 'rest' | 'mcp';

/**
 * Exactly once across a crash, for every write an idempotency key protects, on both doors: the call "dies" right after
 * its unit of work commits (the invoker's after-commit hook throws, so nothing after the commit runs), and the retry
 * with the same key must replay the committed answer, leaving what one call leaves: the same rows, in every table, as
 * the same call made once without a crash. An operation whose outcome is not recorded in its transaction fails here.
 */
describe.each(dialects)('every keyed write, exactly once across a crash (%s)', (dialect) => {
  let h: Harness;
  let writes: Operation[];
  beforeAll(async () => {
    h = await startHarness(dialect);
    // The API key's writes, on both doors; the operator's and the portal's: test/operations/idempotent-doors.test.ts.
    writes = h.gateway.operations.map((e) => e.operation).filter((op) => takesIdempotencyKey(op) && audienceOf(op) === 'api');
    await seedOrg(h, 'owner');
  });
  afterAll(() => h.close());


  async function call(door: Door, op: Operation, args: Call, key: string, idempotencyKey: string): Promise<Answer> {
    if (door === 'rest') return callRest(h, op, args, key, { 'idempotency-key': idempotencyKey });
    return callMcp(h, op.name, { ...mcpArgsOf(op, args), idempotency_key: idempotencyKey }, key);
  }

  /** REST answers the operation's success statuses; an MCP tool result that is no error counts as 200. */
  const successOf = (door: Door, op: Operation) => (door === 'mcp' ? [200] : [op.status, ...Object.keys(op.otherSuccess ?? {}).map(Number)]);

  it('covers every keyed write (a new one is covered the day it exists)', () => {
    expect(writes.map((op) => op.name).sort()).toEqual(
      [
        'edi_submit',
        'inventory_update',
        'objects_write',
        'orders_ack',
        'orders_create',
        'orders_set_status',
        'products_create',
        'products_update',
        'telematics_connections_disconnect',
        'telematics_connections_replay',
        'telematics_connections_run',
        'telematics_syncs_cancel',
        'warranty_claims_create',
        'warranty_claims_update',
        'webhook_deliveries_retry',
        'webhook_endpoints_create',
        'webhook_endpoints_delete',
        'webhook_endpoints_rotate_secret',
        'webhook_endpoints_test',
        'webhook_endpoints_update',
      ].sort(),
    );
  });

  for (const door of ['rest', 'mcp'] as const) {
    it(`replays the committed answer after a crash, with one effect, on ${door}`, async () => {
      const key = await seedOrg(h, 'owner');
      for (const op of writes) {
        const fixture = FIXTURES[op.name];
        if (!fixture) throw new Error(`no fixture for ${op.name}`);
        const what = `${op.name} (${door})`;
        const idempotencyKey = `crash-${door}-${op.name}`;

        // A first call unmeasured, so what only an org's first call makes (its claim-number counter) is made by then.
        await call(door, op, await fixture(h, 'owner'), key, `first-${door}-${op.name}`);
        const once = await fixture(h, 'owner');
        const beforeOnce = await rowCounts(h);
        const answer = await call(door, op, once, key, `once-${door}-${op.name}`);
        expect(successOf(door, op), `${what}: a call without a crash answered ${answer.status} ${JSON.stringify(answer.payload)}`).toContain(answer.status);
        const oneCall = rowChanges(beforeOnce, await rowCounts(h));

        const crashed = await fixture(h, 'owner');
        const before = await rowCounts(h);
        h.crashAfterCommit(op.name);
        expect((await call(door, op, crashed, key, idempotencyKey)).status, `${what}: the crash`).toBe(500);
        const retry = await call(door, op, crashed, key, idempotencyKey);
        if (op.shownOnce) {
          // A webhook endpoint's secret is not replayed (test/operations/idempotent-doors.test.ts).
          expect(retry.status, `${what}: retry answered ${retry.status} ${JSON.stringify(retry.payload)}`).toBe(409);
          expect(retry.payload, what).toMatchObject({ code: 'secret_shown_once' });
        } else {
          expect(successOf(door, op), `${what}: retry answered ${retry.status} ${JSON.stringify(retry.payload)}`).toContain(retry.status);
          expect(op.output.safeParse(retry.payload).error, what).toBeUndefined();
        }
        // The same key on the REST door names the same call: it replays the same answer and says so.
        const replay = await call('rest', op, crashed, key, idempotencyKey);
        expect(replay.headers['idempotent-replayed'], `${what}: replay header`).toBe('true');
        if (op.shownOnce) expect([replay.status, replay.payload.code, replay.payload.details], what).toEqual([409, 'secret_shown_once', retry.payload.details]);
        else expect(replay.payload, what).toEqual(retry.payload);
        expect(rowChanges(before, await rowCounts(h)), `${what}: rows written by the crashed call and its retry, against one call`).toEqual(oneCall);
      }
    });
  }
});
