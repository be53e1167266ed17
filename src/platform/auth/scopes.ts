import type { Actor } from '../core/actor.js';
import { AppError, invalidInput } from '../core/errors.js';

/** Scopes a module grants by name that follow a pattern (`objects:<key>:read`), with the pattern as people read it. */
export interface ScopePattern {
  pattern: RegExp;
  text: string;
  description: string;
}

/**
 * Every scope a key can hold, as the modules declare them: static ones (each with what it opens; `all` grants exactly
 * these) and patterns. Built once from the module list, so keys, the OpenAPI document and the tests read one list.
 */
export class ScopeCatalog {
  /** The static scopes, sorted. */
  readonly static: readonly string[];

  constructor(
    readonly described: Readonly<Record<string, string>>,
    readonly patterns: readonly ScopePattern[],
  ) {
    this.static = Object.keys(described).sort();
  }

  isKnown(scope: string): boolean {
    return Object.hasOwn(this.described, scope) || this.patterns.some((p) => p.pattern.test(scope));
  }

  /** Parses `a,b,c` or `all` into a sorted, de-duplicated scope list; unknown scopes are refused. */
  parse(input: string): string[] {
    const parts = input.split(',').map((s) => s.trim()).filter(Boolean);
    if (parts.length === 0) throw invalidInput('at least one scope is required');
    const out = new Set<string>();
    for (const part of parts) {
      if (part === 'all') this.static.forEach((s) => out.add(s));
      else if (this.isKnown(part)) out.add(part);
      else throw invalidInput(`unknown scope: ${part}`);
    }
    return [...out].sort();
  }
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
