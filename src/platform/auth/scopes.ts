import type { Actor } from '../core/actor.js';
import { AppError, invalidInput } from '../core/errors.js';

/** The static scopes of spec rule 5; `all` grants exactly these. */
export const STATIC_SCOPES = [
  'products:read',
  'products:write',
  'orders:read',
  'orders:write',
  'inventory:write',
  'warranty:read',
  'warranty:write',
  'telematics:read',
  'telematics:write',
  'edi:read',
  'edi:write',
] as const;

export type StaticScope = (typeof STATIC_SCOPES)[number];

const STATIC_SET: ReadonlySet<string> = new Set(STATIC_SCOPES);
/** Dynamic-object scopes are granted by name: objects:<key>:read|write. */
const OBJECT_SCOPE = /^objects:[a-z][a-z0-9_-]{0,62}:(read|write)$/;

export function isKnownScope(scope: string): boolean {
  return STATIC_SET.has(scope) || OBJECT_SCOPE.test(scope);
}

/** Parses `a,b,c` or `all` into a sorted, de-duplicated scope list; unknown scopes are refused. */
export function parseScopes(input: string): string[] {
  const parts = input.split(',').map((s) => s.trim()).filter(Boolean);
  if (parts.length === 0) throw invalidInput('at least one scope is required');
  const out = new Set<string>();
  for (const part of parts) {
    if (part === 'all') STATIC_SCOPES.forEach((s) => out.add(s));
    else if (isKnownScope(part)) out.add(part);
    else throw invalidInput(`unknown scope: ${part}`);
  }
  return [...out].sort();
}

/** The pseudo-scope each non-API door grants (operator, public, portal): only the door grants it, never a key. */
export const DOOR_SCOPE = { operator: 'admin', public: 'public', portal: 'portal' } as const;

export interface AuthContext {
  orgId: string;
  keyId: string;
  scopes: ReadonlySet<string>;
  /** Which door the call came through, recorded on what it creates. */
  source: 'api' | 'mcp' | 'portal';
  /** The dealer a portal key was issued to (portal door only), recorded on the claims it files. */
  dealer?: string;
  /** The operator door's caller (admin token id and request id), recorded on the audit trail. */
  actor?: Actor;
}

/** The operator's identity on an operator operation; only the admin door sets one. */
export function actorOf(auth: AuthContext): Actor {
  if (!auth.actor) throw new AppError('unauthorized', 'missing admin token');
  return auth.actor;
}

export function hasScope(auth: AuthContext, scope: string): boolean {
  return auth.scopes.has(scope);
}

/** The door of a call made with an API key: services behind resource scopes, which no portal key holds, record it. */
export function keyDoorOf(auth: AuthContext): 'api' | 'mcp' {
  if (auth.source === 'portal') throw new AppError('unauthorized', 'portal keys reach only the portal routes');
  return auth.source;
}

/** The one scope check; services call it so REST and MCP behave the same. */
export function requireScope(auth: AuthContext, scope: string): void {
  if (!auth.scopes.has(scope)) throw new AppError('missing_scope', `missing scope: ${scope}`);
}
