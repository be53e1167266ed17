import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, requireBuild, type ServeProcess, startServe } from '../../../platform/outbox/process-support.js';
import { dialects, type Harness, startHarness } from '../../../support/harness.js';
import { waitFor } from '../../../support/wait-for.js';
import { buyerInterchange, seedEdiCatalog, seedPartners, set850, type SubmitBody } from '../edi-support.js';

/** Sets in the interchange: many slices (about 190 of these small sets each), so the process dies with some taken. */
const SETS = 3_000;


/** The client's retry of a POST whose first try a killed process held: 409 until its heartbeat runs out, then taken over. */
async function retryWhileHeld(url: string, headers: Record<string, string>, body: string | Buffer): Promise<Response> {
  let retried = await fetch(url, { method: 'POST', headers, body });
  for (let tries = 0; retried.status === 409 && tries < 20; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    retried = await fetch(url, { method: 'POST', headers, body });
  }
  return retried;
}
describe.each(dialects)('a serve process killed while it takes an interchange in slices (%s)', (dialect) => {
  let h: Harness;
  let key: string;
  const running: ServeProcess[] = [];

  beforeAll(async () => {
    requireBuild();
    h = await startHarness(dialect);
    await seedEdiCatalog(h, 'acme');
    await seedPartners(h, 'acme');
    key = (await h.key('acme', 'edi:read,edi:write,orders:read')).key;
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.kill('SIGTERM')));
  });
  afterAll(async () => {
    await h.close();
  });

  it('leaves the message saying what was taken; a resend finishes it, no set taken twice', { timeout: 240_000 }, async () => {
    const body = buyerInterchange(777, [{ control: '1', sets: Array.from({ length: SETS }, (_, i) => set850(String(i + 1).padStart(4, '0'), `PO-KILL-${i + 1}`)) }]);
    const db = h.gateway.database.db;
    const orders = async () => (await db.selectFrom('orders').select('po_number').where('po_number', 'like', 'PO-KILL-%').execute()).map((r) => r.po_number);
    const inbound = () => db.selectFrom('edi_messages').selectAll().where('direction', '=', 'inbound').where('control_number', '=', '000000777').execute();
    // A process counts as dead 1.5 s after its last heartbeat: its Idempotency-Key and its interchange are then free.
    const env = childEnv(h, { INSTANCE_TTL_MS: '1500' });
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'text/plain', 'idempotency-key': 'kill-me-once' };

    const first = await startServe(env);
    running.push(first);
    const lost = fetch(`${first.url}/v1/edi`, { method: 'POST', headers, body }).catch((err: unknown) => err);
    const documents = async () => {
      const [message] = await inbound();
      if (message === undefined) return 0;
      const row = await db.selectFrom('edi_documents').select((eb) => eb.fn.countAll<number | string>().as('n')).where('message_id', '=', message.id).executeTakeFirstOrThrow();
      return Number(row.n);
    };
    await waitFor(async () => (await documents()) >= 100, { what: 'slices taken before the kill', timeoutMs: 120_000, intervalMs: 10 });
    await first.kill('SIGKILL');
    expect(await lost, 'the caller never got an answer').toBeInstanceOf(Error);

    const [original] = await inbound();
    if (original === undefined) throw new Error('no inbound message');
    expect(original).toMatchObject({ status: 'received', sets_total: SETS, result: null });
    // The key and the interchange were held by the killed process, by its instance id, not until a time.
    const claim = await db.selectFrom('idempotency_keys').select(['state', 'owner_id']).where('key', '=', 'kill-me-once').executeTakeFirstOrThrow();
    expect(claim.state).toBe('in_flight');
    expect(claim.owner_id).toMatch(/^gateway:/);
    expect(original.lease_owner).toBe(claim.owner_id);
    const taken = await documents();
    expect(taken, 'killed mid-way').toBeLessThan(SETS);
    // Each slice committed whole: every document recorded has its order, and no order lacks its document.
    expect((await orders()).length).toBe(taken);
    const shown = await h.request({ method: 'GET', url: `/v1/edi/messages/${original.id}?include=raw`, key });
    expect(shown.statusCode).toBe(200);
    expect(shown.json<{ message: unknown }>().message).toMatchObject({ status: 'received', progress: { sets: SETS, taken } });

    const second = await startServe(env);
    running.push(second);
    // The killed process held the key and the interchange while it lived; they stay held until its heartbeat is older
    // than the TTL (409 idempotency_in_flight meanwhile), then the client's retry takes both over.
    const retried = await retryWhileHeld(`${second.url}/v1/edi`, headers, body);
    const answer = (await retried.json()) as SubmitBody;
    expect(retried.status, JSON.stringify(answer).slice(0, 500)).toBe(200);
    expect(answer.message_id).toBe(original.id);
    expect(answer.status).toBe('accepted');
    // The answer lists the first 1,000 documents and says how many it left out (the message holds them all).
    expect(answer.documents).toHaveLength(1000);
    expect(answer.omitted?.documents).toBe(SETS - 1000);
    expect(answer.documents.every((d) => d.status === 'accepted')).toBe(true);
    expect(answer.acknowledgments).toEqual([{ group: '1', code: 'A' }]);
    const made = await orders();
    expect(made).toHaveLength(SETS);
    expect(new Set(made).size, 'no PO taken twice').toBe(SETS);
    expect(await documents()).toBe(SETS);
    const [settled] = await inbound();
    expect(settled).toMatchObject({ status: 'accepted', lease_owner: null });

    // Asked again, the same answer from the idempotency record, and nothing more taken.
    const again = await fetch(`${second.url}/v1/edi`, { method: 'POST', headers, body });
    expect(again.status).toBe(200);
    expect(((await again.json()) as SubmitBody).documents).toEqual(answer.documents);
    expect(await orders()).toHaveLength(SETS);
  });
  it('killed while it stores a large body: the message says it is still arriving; a resend finishes it as that message', { timeout: 240_000 }, async () => {
    // Sets of 200 lines (~7 KB each): a body of ~2.9 MB, stored 64 KB a transaction here, so the process dies mid-way.
    const lines = Array.from({ length: 200 }, (_, i) => `PO1*${i + 1}*1*EA*89.99**VP*TIRE-225`);
    const bulky = (control: string, po: string) => [`ST*850*${control}`, `BEG*00*SA*${po}**20260601`, 'N1*ST*STORE 1', 'N3*100 Main St', 'N4*Springfield*IL*62701*US', ...lines, 'CTT*200', `SE*${lines.length + 7}*${control}`];
    const BULKY_SETS = 400;
    const body = buyerInterchange(778, [{ control: '1', sets: Array.from({ length: BULKY_SETS }, (_, i) => bulky(String(i + 1).padStart(4, '0'), `PO-ARRIVE-${i + 1}`)) }]);
    const bytes = Buffer.from(body);
    const db = h.gateway.database.db;
    const chunks = (messageId: string) => db.selectFrom('edi_message_chunks').select(['seq', 'data']).where('message_id', '=', messageId).orderBy('seq').execute();
    const made = async () => (await db.selectFrom('orders').select('po_number').where('po_number', 'like', 'PO-ARRIVE-%').execute()).map((r) => r.po_number);
    const env = childEnv(h, { INSTANCE_TTL_MS: '1500', EDI_RECEIVE_PIECE_BYTES: String(64 * 1024) });
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'text/plain', 'idempotency-key': 'kill-while-arriving' };

    const first = await startServe(env);
    running.push(first);
    const lost = fetch(`${first.url}/v1/edi`, { method: 'POST', headers, body }).catch((err: unknown) => err);
    const arriving = await waitFor(
      async () => {
        const row = await db.selectFrom('edi_messages').select(['id', 'status']).where('direction', '=', 'inbound').where('size', '=', bytes.length).executeTakeFirst();
        return row?.status === 'arriving' && (await chunks(row.id)).length >= 2 ? row : undefined;
      },
      { what: 'pieces stored before the kill', timeoutMs: 120_000, intervalMs: 1 },
    );
    await first.kill('SIGKILL');
    expect(await lost, 'the caller never got an answer').toBeInstanceOf(Error);

    const original = await db.selectFrom('edi_messages').selectAll().where('id', '=', arriving.id).executeTakeFirstOrThrow();
    expect(original, 'killed while storing').toMatchObject({ status: 'arriving', size: bytes.length, result: null, control_number: null });
    expect(original.lease_owner).toMatch(/^gateway:/);
    const stored = await chunks(original.id);
    expect(stored.length).toBeLessThan(Math.ceil(bytes.length / (64 * 1024)));
    // Each piece committed whole: the chunks stored are the body's first bytes, in order, and nothing was taken yet.
    expect(Buffer.concat(stored.map((c) => c.data)).equals(bytes.subarray(0, stored.length * 64 * 1024))).toBe(true);
    expect(await made()).toHaveLength(0);
    const shown = await h.request({ method: 'GET', url: `/v1/edi/messages/${original.id}`, key });
    expect(shown.json<{ message: unknown }>().message).toMatchObject({ status: 'arriving', size: bytes.length });

    const second = await startServe(env);
    running.push(second);
    const retried = await retryWhileHeld(`${second.url}/v1/edi`, headers, body);
    const answer = (await retried.json()) as SubmitBody;
    expect(retried.status, JSON.stringify(answer).slice(0, 500)).toBe(200);
    // The resend finished the message the killed process began, and answered as it: one message for the body.
    expect(answer.message_id).toBe(original.id);
    expect(answer.status).toBe('accepted');
    const inbound = await db.selectFrom('edi_messages').select(['id', 'status', 'lease_owner']).where('direction', '=', 'inbound').where('sha256', '=', original.sha256).execute();
    expect(inbound).toEqual([{ id: original.id, status: 'accepted', lease_owner: null }]);
    expect(Buffer.concat((await chunks(original.id)).map((c) => c.data)).equals(bytes), 'the body byte for byte').toBe(true);
    const orders = await made();
    expect(orders).toHaveLength(BULKY_SETS);
    expect(new Set(orders).size, 'no PO taken twice').toBe(BULKY_SETS);
  });
});
