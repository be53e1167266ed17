import type { AuthInfo } from '@modelcontextprotocol/server';
import type { FastifyBaseLogger } from 'fastify';
import type { AuthContext } from '../platform/auth/scopes.js';

/** Who is calling through /mcp, and where their request logs. */
export interface McpCaller {
  auth: AuthContext;
  log: FastifyBaseLogger;
}

// The SDK hands authInfo to the server factory by reference, so the object itself is the key back to our caller.
const callers = new WeakMap<AuthInfo, McpCaller>();

/** The SDK's view of an authenticated caller: the key id, never the secret, plus its scopes. */
export function authInfoFor(caller: McpCaller): AuthInfo {
  const info: AuthInfo = { token: caller.auth.keyId, clientId: caller.auth.keyId, scopes: [...caller.auth.scopes] };
  callers.set(info, caller);
  return info;
}

export function callerOf(info: AuthInfo | undefined): McpCaller {
  const caller = info ? callers.get(info) : undefined;
  if (!caller) throw new Error('MCP server requested without an authenticated caller');
  return caller;
}
