import { createHash } from 'node:crypto';

/** Who did an operator action, as the audit trail records it, and the HTTP request it came in (null from the CLI). */
export interface Actor {
  who: string;
  requestId: string | null;
}

export const CLI_ACTOR: Actor = { who: 'cli', requestId: null };
/** In-process callers that are neither door (tests, bench and demo seeding): still recorded, so nothing is issued unseen. */
export const SYSTEM_ACTOR: Actor = { who: 'system', requestId: null };

/** A stable id of the admin token that never reveals it: the first 8 hex of its SHA-256. */
export function adminActorId(adminToken: string): string {
  return `admin:${createHash('sha256').update(adminToken).digest('hex').slice(0, 8)}`;
}
