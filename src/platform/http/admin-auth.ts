import { createHash, timingSafeEqual } from 'node:crypto';
import { DOOR_SCOPE } from '../auth/scopes.js';
import type { onRequestHookHandler } from 'fastify';
import { adminActorId } from '../core/actor.js';
import { AppError } from '../core/errors.js';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * Whether an Authorization header is `Bearer <token>`, compared in constant time over digests (equal lengths whatever
 * was sent).
 */
export function bearerMatcher(token: string): (header: string | undefined) => boolean {
  const expected = digest(token);
  return (header) => {
    const match = header === undefined ? undefined : /^Bearer ([\x21-\x7e]{1,512})$/i.exec(header);
    return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected);
  };
}

/**
 * onRequest hook of the operator door (/admin/v1): `Authorization: Bearer <GATEWAY_ADMIN_TOKEN>`. The call acts for no org; its operations name the org they touch.
 */
export function adminTokenAuth(adminToken: string): onRequestHookHandler {
  const matches = bearerMatcher(adminToken);
  const who = adminActorId(adminToken);
  return (request, _reply, done) => {
    const header = request.headers.authorization;
    if (!matches(header)) {
      done(new AppError('unauthorized', header === undefined ? 'missing admin token' : 'invalid admin token'));
      return;
    }
    request.auth = { orgId: '', keyId: 'admin', scopes: new Set([DOOR_SCOPE.operator]), source: 'api', actor: { who, requestId: request.id } };
    done();
  };
}
