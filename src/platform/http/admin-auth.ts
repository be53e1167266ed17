import { createHash, timingSafeEqual } from 'node:crypto';
import { DOOR_SCOPE } from '../auth/scopes.js';
import type { onRequestHookHandler } from 'fastify';
import { adminActorId } from '../core/actor.js';
import { AppError } from '../core/errors.js';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * onRequest hook of the operator door (/admin/v1): `Authorization: Bearer <GATEWAY_ADMIN_TOKEN>`, compared in constant
 * time over digests (equal lengths whatever was sent). The call acts for no org; its operations name the org they touch.
 */
export function adminTokenAuth(adminToken: string): onRequestHookHandler {
  const expected = digest(adminToken);
  const who = adminActorId(adminToken);
  return (request, _reply, done) => {
    const header = request.headers.authorization;
    const match = header === undefined ? undefined : /^Bearer ([\x21-\x7e]{1,512})$/i.exec(header);
    if (!match?.[1] || !timingSafeEqual(digest(match[1]), expected)) {
      done(new AppError('unauthorized', header === undefined ? 'missing admin token' : 'invalid admin token'));
      return;
    }
    request.auth = { orgId: '', keyId: 'admin', scopes: new Set([DOOR_SCOPE.operator]), source: 'api', actor: { who, requestId: request.id } };
    done();
  };
}
