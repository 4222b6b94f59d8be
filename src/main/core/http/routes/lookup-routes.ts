// GET/POST /api/v1/lookup (CBU keys) and POST /api/v1/credit/lookup (Informes keys).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Titular } from '../../titular';
import type { LookupAnswer, LookupContext } from '../../lookup/lookup-service';
import { IdempotencyStore } from '../../lookup/idempotency';
import { TitularError, invalidParameter } from '../../errors';
import type { Authorize } from '../authorize';
import { jsonOf } from '../../frozen-json';

const JSON_TYPE = 'application/json; charset=utf-8';

export function registerLookupRoutes(app: FastifyInstance, titular: Titular, authorize: Authorize): void {
  // Speculative: the key is confirmed inside the transaction that records the lookup (authorize.ts).
  const cbuLookup = { onRequest: authorize({ products: ['cbu'], scope: 'lookup', speculative: true }) };
  const creditLookup = { onRequest: authorize({ products: ['informes'], scope: 'lookup', speculative: true }) };

  // Handlers return the lookup's promise (no async function around it: one promise less per
  // request); what they throw before it, Fastify sends to the error handler like a rejection.
  app.get('/api/v1/lookup', cbuLookup, (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const input = { identifier: query.identifier, type: query.type };
    const ctx = context(request, ['GET', '/api/v1/lookup', query]);
    return titular.lookups.lookupAccount(ctx, input).then((answer) => send(reply, answer));
  });

  app.post('/api/v1/lookup', cbuLookup, (request, reply) => {
    const body = objectBody(request);
    const input = { identifier: body.identifier, type: body.type };
    const ctx = context(request, ['POST', '/api/v1/lookup', request.body ?? null]);
    return titular.lookups.lookupAccount(ctx, input).then((answer) => send(reply, answer));
  });

  app.post('/api/v1/credit/lookup', creditLookup, (request, reply) => {
    const body = objectBody(request);
    const input = { tax_id: body.tax_id };
    const ctx = context(request, ['POST', '/api/v1/credit/lookup', request.body ?? null]);
    return titular.lookups.lookupCreditReport(ctx, input).then((answer) => send(reply, answer));
  });
}

/** How many times the request sent header `name` (lower case). */
function headerLines(request: FastifyRequest, name: string): number {
  const raw = request.raw.rawHeaders ?? [];
  let lines = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) lines++;
  return lines;
}

/**
 * The lookup context of an authorized API request; `requestParts` identify it for idempotency: the
 * method, the path and the whole query or body as sent (decisions: "the same key and body"), so a
 * retry that adds or changes any field is a conflict, not a replay of an answer to another request.
 */
function context(request: FastifyRequest, requestParts: unknown[]): LookupContext {
  const key = request.apiKey!;
  const header = request.headers['idempotency-key'];
  // Node joins repeated headers with ", ", which a key cannot hold (no spaces): say what was sent.
  // The raw header lines are counted only for a value that is malformed anyway.
  if (Array.isArray(header) || (typeof header === 'string' && header.includes(', ') && headerLines(request, 'idempotency-key') > 1)) {
    throw invalidParameter('Idempotency-Key was sent more than once: send it once per request');
  }
  const idempotencyKey = typeof header === 'string' ? IdempotencyStore.validateKey(header) : null;
  return {
    orgId: key.orgId,
    environment: key.environment,
    source: 'API',
    userId: key.ownerUserId,
    apiKeyId: key.id,
    requestId: request.id,
    idempotency: idempotencyKey ? { apiKeyId: key.id, key: idempotencyKey, requestHash: IdempotencyStore.hashRequest(requestParts) } : null,
    confirmKey: confirmer(request),
  };
}

/** LookupContext.confirmKey: the key's 401/403, thrown when it may no longer make this request. */
function confirmer(request: FastifyRequest): (() => void) | undefined {
  const confirm = request.confirmKey;
  if (!confirm) return undefined;
  return () => {
    const refused = confirm(Date.now());
    if (refused) throw new TitularError(refused.status, refused.code, refused.message);
  };
}

/**
 * POST bodies must be JSON objects; anything else is a malformed request, not a lookup (no charge).
 * Thrown, so that the error handler answers it like every error: after the key is confirmed.
 */
function objectBody(request: FastifyRequest): Record<string, unknown> {
  // No body at all (or an empty one, local-fastify.ts) is a lookup with missing fields (PA006), as the
  // GET without parameters; `null`, arrays and scalars are malformed.
  const body = request.body === undefined ? {} : request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidParameter('The request body must be a JSON object');
  return body as Record<string, unknown>;
}

function send(reply: FastifyReply, answer: LookupAnswer): FastifyReply {
  if (answer.headers) reply.headers(answer.headers);
  // A replayed answer carries the request id of the request that was charged.
  reply.header('Request-Id', answer.body.request_id);
  reply.code(answer.status);
  const { body } = answer;
  if (!body.success) return reply.send(body);
  // What JSON.stringify(body) gives, with the account's text serialized once per cached account
  // (frozen-json.ts) rather than once per answer.
  const text = `{"success":true,"data":${jsonOf(body.data)},"credits_remaining":${body.credits_remaining},"request_id":${JSON.stringify(body.request_id)}}`;
  return reply.type(JSON_TYPE).send(text);
}
