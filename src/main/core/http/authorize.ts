// The first three checks of every API request, in the decisions' order (first failure wins):
//   401 UNAUTHORIZED  missing/malformed header, unknown, revoked, rotated-away or expired key
//   403 FORBIDDEN     key of the other product, missing scope, caller IP not in the whitelist
//   429 RATE_LIMITED  per-key token bucket (and per-address bucket for repeated 401s)
// Runs as an onRequest hook, before the body is parsed, so a bad body never outranks a bad key. It is
// a callback hook (no promise per request): a failure answers and returns without calling done().
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { ApiKeys, AuthenticatedKey } from '../keys/api-keys';
import { KEY_PATTERN } from '../keys/secrets';
import type { ProductSlug, Scope } from '../../../shared/api/common';
import type { BucketDecision, RateLimiter } from './rate-limiter';
import { sendError } from './error-reply';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: AuthenticatedKey;
  }
}

export interface Requirement {
  products: readonly ProductSlug[];
  scope: Scope;
}

// Failed authentications per client address: 10 burst, one more every 6 s.
const AUTH_FAILURE_BURST = 10;
const AUTH_FAILURE_PER_SECOND = 1 / 6;

export type Authorize = ReturnType<typeof authorizer>;

export function authorizer(keys: ApiKeys, limiter: RateLimiter) {
  return (requirement: Requirement) =>
    function authorize(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
      const now = Date.now();
      const peer = request.socket.remoteAddress ?? '';
      const secret = bearer(request.headers.authorization);
      const key = secret ? keys.authenticate(secret, now) : null;
      if (!key) {
        const failures = limiter.take(`auth-failure:${peer}`, AUTH_FAILURE_BURST, AUTH_FAILURE_PER_SECOND, now);
        if (!failures.allowed) {
          // Every 429 carries the bucket's state (decisions, step 3): here the address's bucket.
          sendError(reply, 429, 'RATE_LIMITED', 'Too many requests with an invalid API key from this address', {
            headers: { ...rateLimitHeaders(failures), 'Retry-After': String(failures.retryAfterSeconds) },
          });
          return;
        }
        sendError(reply, 401, 'UNAUTHORIZED', secret ? 'Invalid API key' : 'Missing or malformed Authorization header: use "Bearer <API key>"');
        return;
      }
      if (!requirement.products.includes(key.product)) {
        sendError(reply, 403, 'FORBIDDEN', `This endpoint is not available to ${key.product === 'cbu' ? 'CBU' : 'Informes'} product keys`);
        return;
      }
      if (!key.scopes.has(requirement.scope)) {
        sendError(reply, 403, 'FORBIDDEN', `This key lacks the "${requirement.scope}" scope`);
        return;
      }
      if (!keys.ipAllowed(key, peer)) {
        sendError(reply, 403, 'FORBIDDEN', 'The caller address is not in this key\'s IP whitelist');
        return;
      }
      const bucket = limiter.take(`key:${key.id}`, key.rateLimitBurst, key.rateLimitPerSecond, now);
      reply.headers(rateLimitHeaders(bucket));
      if (!bucket.allowed) {
        sendError(reply, 429, 'RATE_LIMITED', 'Too many requests for this API key; slow down', {
          headers: { 'Retry-After': String(bucket.retryAfterSeconds) },
        });
        return;
      }
      request.apiKey = key;
      done();
    };
}

function rateLimitHeaders(bucket: BucketDecision): Record<string, string> {
  return {
    'RateLimit-Limit': String(bucket.limit),
    'RateLimit-Remaining': String(bucket.remaining),
    'RateLimit-Reset': String(bucket.resetSeconds),
  };
}

function bearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  const secret = match?.[1];
  return secret && KEY_PATTERN.test(secret) ? secret : null;
}
