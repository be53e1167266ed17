import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { createGateway, type Gateway } from '../../../src/gateway.js';
import { MODULES } from '../../../src/modules/index.js';
import { ManualClock } from '../../../src/platform/core/clock.js';
import type { ModuleDefinition } from '../../../src/platform/module-definition.js';
import { defineSteps } from '../../../src/platform/operations/operation.js';
import { expectError } from '../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { waitFor } from '../../support/wait-for.js';

const HOUR = 3_600_000;

/** Calls of the held operation waiting to be let go, each named in the order they came in. */
const held: { name: string; release: () => void }[] = [];
let started = 0;

/** A module with one write that holds until the test lets it go: a long call, as long as the test likes. */
const holdingModule: ModuleDefinition = {
  name: 'holding',
  tag: { name: 'holding', description: 'test module' },
  scopes: { 'holding:write': 'start a held call' },
  operations: () => [
    defineSteps({
      name: 'holds_create',
      method: 'POST',
      path: '/v1/holds',
      scope: 'holding:write',
      summary: 'Hold',
      description: 'Holds until the test lets it go, then answers which call ran.',
      body: z.object({ tag: z.string() }),
      output: z.object({ ran: z.string() }),
      status: 201,
      returns: 'the call that ran.',
      errors: {},
      hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
      example: { body: { tag: 'a' }, response: { ran: 'call-1' } },
      handle: async ({ db, settle }) => {
        const name = `call-${++started}`;
        await new Promise<void>((release) => held.push({ name, release }));
        const answer = { ran: name };
        await db.transaction().execute((tx) => settle(tx, answer));
        return answer;
      },
    }),
  ],
};

describe.each(dialects)('an Idempotency-Key held by a call in progress follows its process (%s)', (dialect) => {
  let h: Harness;
  let other: Gateway;
  let otherApp: Awaited<ReturnType<typeof buildApp>>;
  let key: string;

  beforeAll(async () => {
    // A TTL far longer than the test: a heartbeat made stale by hand stays stale while a case runs.
    h = await startHarness(dialect, { modules: [...MODULES, holdingModule], env: { INSTANCE_TTL_MS: '300000' } });
    key = (await h.key('acme', 'holding:write')).key;
    // A second instance on the same database, its clock two hours ahead: past the old fixed 60 s lock, and any TTL.
    other = await createGateway(h.config, {
      clock: new ManualClock(new Date(h.clock.now().getTime() + 2 * HOUR)),
      ...(h.databaseSchema ? { databaseSchema: h.databaseSchema } : {}),
      migrate: false,
      modules: [...MODULES, holdingModule],
    });
    otherApp = await buildApp(other, { logger: false });
  });
  afterAll(async () => {
    for (const call of held.splice(0)) call.release();
    await otherApp.close();
    await other.close();
    await h.close();
  });

  const hold = (app: typeof otherApp, idem: string) =>
    app.inject({ method: 'POST', url: '/v1/holds', payload: { tag: idem }, headers: { authorization: `Bearer ${key}`, 'idempotency-key': idem } });
  /** Waits until `count` calls are held, and answers the name of the last. */
  const heldCalls = (count: number) => waitFor(() => held.length === count && held[count - 1]?.name, { what: `${count} held calls` });
  const letGo = (name: string) => held.splice(held.findIndex((call) => call.name === name), 1)[0]?.release();

  it('a call held open for hours is not taken over, here or on another instance; its answer is then replayed', async () => {
    const first = hold(h.app, 'long-1');
    const name = await heldCalls(1);
    h.clock.advance(2 * HOUR);
    expectError(await hold(h.app, 'long-1'), 409, 'idempotency_in_flight');
    expectError(await hold(otherApp, 'long-1'), 409, 'idempotency_in_flight');
    expect(held).toHaveLength(1);

    letGo(name);
    const answered = await first;
    expect(answered.statusCode, answered.body).toBe(201);
    expect(answered.json()).toMatchObject({ ran: name });
    const replay = await hold(otherApp, 'long-1');
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(answered.body);
  });

  it('the claim of a process whose heartbeats stopped is taken over; the stalled call cannot commit after it', async () => {
    const stalled = hold(h.app, 'long-2');
    const stalledName = await heldCalls(1);
    expectError(await hold(otherApp, 'long-2'), 409, 'idempotency_in_flight');
    // Its process stops beating (a long pause, a lost network): past the TTL the other instance judges it dead.
    await h.gateway.database.db.updateTable('gateway_instances').set({ heartbeat_ms: 0 }).where('id', '=', h.gateway.instances.id).execute();

    const retry = hold(otherApp, 'long-2');
    const retryName = await heldCalls(2);
    // The stalled call wakes and tries to settle: the key is no longer its process's, so its change rolls back; its
    // caller is told to retry (503, Retry-After), and the retry replays the other process's answer.
    letGo(stalledName);
    const lost = await stalled;
    expectError(lost, 503, 'unavailable');
    expect(lost.headers['retry-after']).toBe('1');
    letGo(retryName);
    const answered = await retry;
    expect(answered.statusCode, answered.body).toBe(201);
    expect(answered.json()).toMatchObject({ ran: retryName });
    const replay = await hold(h.app, 'long-2');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(answered.body);
  });
});
