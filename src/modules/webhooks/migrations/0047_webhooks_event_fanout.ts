import { type Kysely, sql } from 'kysely';

/** The destination of the outbox rows that carried a pending fan-out before this migration (one per event). */
const LEGACY_FANOUT = 'webhook_fanout';

// An event's pending fan-out moves from an outbox row of its own into the event row: `fanout` holds the JSON of the
// endpoint ids subscribed when it happened, null once fanned out (or when none was). The partial index holds only the
// pending ones, so the fan-out finds them in order and an event with nothing to fan out pays no index entry.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_events').addColumn('fanout', 'text').execute();
  await sql`create index webhook_events_fanout on webhook_events (created_at, id) where fanout is not null`.execute(db);
  // Fan-outs still queued (or in flight: their taker may die; the insert-or-ignore makes a second fan-out a no-op) move
  // into their events, so an upgrade loses none; their outbox rows go. Delivered or rejected ones stay as history.
  const pending = await sql<{ id: string; payload: string }>`select id, payload from outbox where destination = ${LEGACY_FANOUT} and status in ('queued', 'delivering')`.execute(db);
  for (const row of pending.rows) {
    const payload = parsed(row.payload);
    // One that is not a fan-out payload stays where it is: the outbox's sender rejects it, for an operator to see.
    if (payload === undefined) continue;
    await sql`update webhook_events set fanout = ${JSON.stringify(payload.endpoint_ids)} where id = ${payload.event_id}`.execute(db);
    await sql`delete from outbox where id = ${row.id}`.execute(db);
  }
}

function parsed(text: string): { event_id: string; endpoint_ids: string[] } | undefined {
  try {
    const value = JSON.parse(text) as { event_id?: unknown; endpoint_ids?: unknown };
    if (typeof value.event_id !== 'string' || !Array.isArray(value.endpoint_ids)) return undefined;
    return { event_id: value.event_id, endpoint_ids: value.endpoint_ids.filter((id): id is string => typeof id === 'string') };
  } catch {
    return undefined;
  }
}
