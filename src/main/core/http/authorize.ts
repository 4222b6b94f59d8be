// The first three checks of every API request, in the decisions' order (first failure wins):
//   401 UNAUTHORIZED  missing/malformed header, unknown, revoked, rotated-away or expired key
//   403 FORBIDDEN     key of the other product, missing scope, caller IP not in the whitelist
//   429 RATE_LIMITED  per-key token bucket (and per-address bucket for repeated 401s)
// Runs as an onRequest hook, before the body is parsed, so a bad body never outranks a bad key. It is
// a callback hook (no promise per request): a failure answers and returns without calling done().
//
// Lookups admit a key as last read (no data_version read, write-invalidated-cache.ts) and confirm it
// inside the transaction that records them, through `request.confirmKey`: a key revoked or rotated
// by another process is refused there, before anything is charged. An answer that does not come out
// of that transaction (a 402, a replay, a malformed body, a 429) confirms the key before it is sent,
// and a refusal is never decided on a key as last read: it is read again first.
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { ApiKeys, AuthenticatedKey } from '../keys/api-keys';
import { hashKey, KEY_PATTERN } from '../keys/secrets';
import type { ErrorCode, ProductSlug, Scope } from '../../../shared/api/common';
import type { BucketDecision, RateLimiter } from './rate-limiter';
import { sendError } from './error-reply';
import { UNREADABLE_WHITELIST_MESSAGE } from '../keys/ip-whitelist';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: AuthenticatedKey;
    /** Speculative routes: the key checked again as the database is now (or inside a transaction); null when still admitted. */
    confirmKey?: (now: number) => Refusal | null;
  }
}

export interface Requirement {
  products: readonly ProductSlug[];
  scope: Scope;
  /** Admit a key as last read; the route confirms it with `request.confirmKey` before it answers. */
  speculative?: boolean;
}

export interface Refusal {
  status: 401 | 403;
  code: Extract<ErrorCode, 'UNAUTHORIZED' | 'FORBIDDEN'>;
  message: string;
}

// Failed authentications per client address: 10 burst, one more every 6 s.
const AUTH_FAILURE_BURST = 10;
const AUTH_FAILURE_PER_SECOND = 1 / 6;

const INVALID_KEY: Refusal = { status: 401, code: 'UNAUTHORIZED', message: 'Invalid API key' };
const INVALID_TOKEN_CHALLENGE = 'Bearer realm="titular", error="invalid_token"';

export type Authorize = ReturnType<typeof authorizer>;

export function authorizer(keys: ApiKeys, limiter: RateLimiter) {
  /** Why a valid key may not make this request (403), or null. */
  const refusal = (key: AuthenticatedKey, requirement: Requirement, peer: string): Refusal | null => {
    if (!requirement.products.includes(key.product)) {
      return { status: 403, code: 'FORBIDDEN', message: `This endpoint is not available to ${key.product === 'cbu' ? 'CBU' : 'Informes'} product keys` };
    }
    if (!key.scopes.has(requirement.scope)) return { status: 403, code: 'FORBIDDEN', message: `This key lacks the "${requirement.scope}" scope` };
    if (!keys.ipAllowed(key, peer)) {
      const message = key.whitelist === 'unreadable' ? UNREADABLE_WHITELIST_MESSAGE : `The caller address ${peer || '(unknown)'} is not in this key's IP whitelist`;
      return { status: 403, code: 'FORBIDDEN', message };
    }
    return null;
  };
  /** The key's refusal as the database is now (or as the current transaction sees it), or null. */
  const confirm = (keyHash: string, requirement: Requirement, peer: string, at: number): Refusal | null => {
    const current = keys.confirm(keyHash, at);
    return current ? refusal(current, requirement, peer) : { ...INVALID_KEY, message: invalidKeyMessage(keys.whyInvalid(keyHash, at)) };
  };

  return (requirement: Requirement) =>
    function authorize(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
      const now = Date.now();
      const peer = request.socket.remoteAddress ?? '';
      const { secret, keyHash } = presentedKey(request);
      let key = keyHash && requirement.speculative ? keys.speculate(keyHash, now) : null;
      let refused = key ? refusal(key, requirement, peer) : null;
      if (!key || refused) {
        // Not cached, or refused as last read: read again (a refusal is decided on a checked key only).
        key = keyHash ? keys.confirm(keyHash, now) : null;
        refused = key ? refusal(key, requirement, peer) : null;
      }
      if (!key) {
        const failures = limiter.take(`auth-failure:${peer}`, AUTH_FAILURE_BURST, AUTH_FAILURE_PER_SECOND, now);
        if (!failures.allowed) {
          // Every 429 carries the bucket's state (decisions, step 3): here the address's bucket.
          sendError(reply, 429, 'RATE_LIMITED', 'Too many requests with an invalid API key from this address', {
            headers: { ...rateLimitHeaders(failures), 'Retry-After': String(failures.retryAfterSeconds) },
          });
          return;
        }
        sendError(reply, 401, 'UNAUTHORIZED', secret && keyHash ? invalidKeyMessage(keys.whyInvalid(keyHash, now)) : 'Missing or malformed Authorization header: use "Bearer <API key>"', {
          // RFC 6750: a 401 names the scheme it wants, and whether a token was sent and refused.
          headers: { 'WWW-Authenticate': secret ? INVALID_TOKEN_CHALLENGE : 'Bearer realm="titular"' },
        });
        return;
      }
      if (refused) {
        sendRefusal(reply, refused);
        return;
      }
      const confirmKey = requirement.speculative ? (at: number) => confirm(keyHash!, requirement, peer, at) : undefined;
      const bucket = limiter.take(`key:${key.id}`, key.rateLimitBurst, key.rateLimitPerSecond, now);
      // A key as last read may be revoked by now: its refusal outranks the 429.
      if (!bucket.allowed && confirmKey && sendRefusal(reply, confirmKey(now))) return;
      reply.headers(rateLimitHeaders(bucket));
      if (!bucket.allowed) {
        sendError(reply, 429, 'RATE_LIMITED', 'Too many requests for this API key; slow down', {
          headers: { 'Retry-After': String(bucket.retryAfterSeconds) },
        });
        return;
      }
      request.apiKey = key;
      request.confirmKey = confirmKey;
      done();
    };
}

/**
 * For an error answer of a speculative route (server.ts's error handler: an error before or instead
 * of the lookup's transaction): sends the key's refusal instead, when it has one, and says whether it did.
 */
export function refusedOnConfirm(request: FastifyRequest, reply: FastifyReply): boolean {
  return sendRefusal(reply, request.confirmKey?.(Date.now()) ?? null);
}

function invalidKeyMessage(why: ReturnType<ApiKeys['whyInvalid']>): string {
  if (why === 'revoked') return 'This API key was revoked; ask an administrator for a new one';
  if (why !== 'unknown') return `This API key expired at ${new Date(why.expiredAt).toISOString()}; ask an administrator for a new one`;
  return INVALID_KEY.message;
}

function sendRefusal(reply: FastifyReply, refused: Refusal | null): boolean {
  if (!refused) return false;
  sendError(reply, refused.status, refused.code, refused.message, refused.status === 401 ? { headers: { 'WWW-Authenticate': INVALID_TOKEN_CHALLENGE } } : undefined);
  return true;
}

function rateLimitHeaders(bucket: BucketDecision): Record<string, string> {
  return {
    'RateLimit-Limit': String(bucket.limit),
    'RateLimit-Remaining': String(bucket.remaining),
    'RateLimit-Reset': String(bucket.resetSeconds),
  };
}

/**
 * The key a request presents, with its SHA-256 (what the key store is keyed by). A keep-alive client
 * sends the same Authorization header on every request: its parse and hash are kept on the connection
 * and reused while the header is the same string (about 5 µs of the event loop per request here, 8 %
 * of a durable lookup: the hash, its hex string and the Map lookups keyed by a fresh string). They
 * live as long as the socket does, like the header the client keeps sending on it.
 */
const presentedOnSocket = new WeakMap<Socket, { header: string; secret: string | null; keyHash: string | null }>();

function presentedKey(request: FastifyRequest): { secret: string | null; keyHash: string | null } {
  const header = request.headers.authorization;
  if (!header) return { secret: null, keyHash: null };
  const socket = request.raw.socket as Socket | null;
  const last = socket ? presentedOnSocket.get(socket) : undefined;
  if (last && last.header === header) return last;
  const secret = bearer(header);
  const presented = { header, secret, keyHash: secret ? hashKey(secret) : null };
  if (socket) presentedOnSocket.set(socket, presented);
  return presented;
}

function bearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  const secret = match?.[1];
  return secret && KEY_PATTERN.test(secret) ? secret : null;
}
