// The answers the routes share, one builder per status, worded after the contract and the decisions
// (order of checks, credit rules). Error answers restrict `error.code` to the codes that status can
// carry on top of the shared ErrorBody component.
import type { ErrorCode } from '../../../../shared/api/common';
import { componentRef, type ComponentName, type JsonSchema } from './components';
import { always, RATE_LIMIT_HEADERS, sometimes, type HeaderUse } from './headers';

export interface ResponseSpec {
  description: string;
  schema: JsonSchema;
  example?: unknown;
  headers: readonly HeaderUse[];
}

const REQUEST_ID = always('Request-Id');
/** Sent once the key has passed the rate limit, i.e. on every answer that comes after that check. */
const RATE_LIMIT = RATE_LIMIT_HEADERS.map((name) => always(name));
/** RateLimit-* on answers that may come before or after that check; the description says when. */
const RATE_LIMIT_SOMETIMES = RATE_LIMIT_HEADERS.map((name) => sometimes(name));
const replayed = () => sometimes('Idempotent-Replayed');

export function errorSchema(codes: readonly ErrorCode[], options: { creditsRemainingZero?: boolean } = {}): JsonSchema {
  const restriction: JsonSchema = {
    type: 'object',
    properties: {
      error: { type: 'object', properties: { code: { type: 'string', enum: [...codes] } } },
      ...(options.creditsRemainingZero ? { credits_remaining: { type: 'integer', const: 0 } } : {}),
    },
  };
  if (options.creditsRemainingZero) restriction.required = ['credits_remaining'];
  return { allOf: [componentRef('ErrorBody'), restriction] };
}

function error(description: string, codes: readonly ErrorCode[], headers: readonly HeaderUse[], creditsRemainingZero = false): ResponseSpec {
  return { description, schema: errorSchema(codes, { creditsRemainingZero }), headers };
}

export function ok(component: ComponentName, description: string, example: unknown, options: { replayable?: boolean } = {}): ResponseSpec {
  return {
    description,
    schema: componentRef(component),
    example,
    headers: [REQUEST_ID, ...RATE_LIMIT, ...(options.replayable ? [replayed()] : [])],
  };
}

export const unauthorized = (): ResponseSpec =>
  error(
    'UNAUTHORIZED: the `Authorization` header is missing or malformed, or the key is unknown, revoked, rotated away or expired (the message says revoked or expired, and when, to whoever sent that key). Not charged, not recorded.',
    ['UNAUTHORIZED'],
    [REQUEST_ID, always('WWW-Authenticate')],
  );

export const forbidden = (requirement: string): ResponseSpec =>
  error(
    `FORBIDDEN: ${requirement}, or the caller's address is not in the key's IP whitelist, or the \`Host\` header does not name this machine (DNS-rebinding guard). Not charged, not recorded.`,
    ['FORBIDDEN'],
    [REQUEST_ID],
  );

export const rateLimited = (): ResponseSpec =>
  error(
    'RATE_LIMITED: the key\'s token bucket is empty (20 burst, 10 per second by default; `RateLimit-*` headers sent), or this address sent too many invalid keys (10 burst, one more every 6 s; `RateLimit-*` headers describe the bucket of that address). Not charged, not recorded.',
    ['RATE_LIMITED'],
    [REQUEST_ID, always('Retry-After'), ...RATE_LIMIT_SOMETIMES],
  );

export const insufficientCredits = (product: string): ResponseSpec =>
  error(
    `INSUFFICIENT_CREDITS: a live key and no ${product} credits left. \`credits_remaining\` is 0. Not charged, not recorded; sandbox keys never get it.`,
    ['INSUFFICIENT_CREDITS'],
    [REQUEST_ID, ...RATE_LIMIT],
    true,
  );

export const invalidLookup = (what: string, options: { body: boolean }): ResponseSpec =>
  error(
    `PA006: ${what} — charged on live keys (then \`credits_remaining\` is present) and recorded in the history. ` +
      `INVALID_PARAMETER: ${options.body ? 'the body is not a JSON object (or not JSON), or ' : ''}the \`Idempotency-Key\` header is malformed — not a lookup, not charged.`,
    ['PA006', 'INVALID_PARAMETER'],
    [REQUEST_ID, ...RATE_LIMIT, replayed()],
  );

export const invalidParameter = (what: string): ResponseSpec =>
  error(`INVALID_PARAMETER: ${what}. Not charged.`, ['INVALID_PARAMETER'], [REQUEST_ID, ...RATE_LIMIT]);

export const lookupNotFound = (what: string): ResponseSpec =>
  error(`PA011: ${what}. Charged on live keys (then \`credits_remaining\` is present) and recorded in the history.`, ['PA011'], [
    REQUEST_ID,
    ...RATE_LIMIT,
    replayed(),
  ]);

export const idempotencyConflict = (): ResponseSpec =>
  error('IDEMPOTENCY_CONFLICT: this `Idempotency-Key` was already used by this key with a different input. Not charged.', ['IDEMPOTENCY_CONFLICT'], [
    REQUEST_ID,
    ...RATE_LIMIT,
  ]);

export const payloadTooLarge = (): ResponseSpec =>
  error('INVALID_PARAMETER: the body is larger than 16 KiB. Not charged.', ['INVALID_PARAMETER'], [REQUEST_ID, ...RATE_LIMIT]);

export const unsupportedMediaType = (): ResponseSpec =>
  error('INVALID_PARAMETER: the body is not `application/json`. Not charged.', ['INVALID_PARAMETER'], [REQUEST_ID, ...RATE_LIMIT]);

export const internalError = (): ResponseSpec =>
  error('GE500: an internal fault. Not charged (a lookup that reached its source is recorded in the history as `ERROR`). Quote the `request_id` to support. `RateLimit-*` headers are absent when the fault came before the rate-limit check.', ['GE500'], [
    REQUEST_ID,
    ...RATE_LIMIT_SOMETIMES,
  ]);

/** 503 of a lookup: the data source is down, or the server is shutting down. */
export const sourceUnavailable = (source: string): ResponseSpec =>
  error(
    `GE500: ${source} is unavailable or timed out, or the server is shutting down. Not charged; a lookup that reached the source is recorded in the history as \`ERROR\` and is not stored for \`Idempotency-Key\` replays, so retrying after \`Retry-After\` runs it again. \`RateLimit-*\` headers are absent on the shutdown answer.`,
    ['GE500'],
    [REQUEST_ID, always('Retry-After'), ...RATE_LIMIT_SOMETIMES],
  );

/** 503 of a route that has no data source: only while the server shuts down. */
export const shuttingDown = (): ResponseSpec =>
  error('GE500: the server is shutting down; retry after `Retry-After` seconds.', ['GE500'], [REQUEST_ID, always('Retry-After')]);

/** Any method and path not in this document. */
export const unknownRoute = (): ResponseSpec =>
  error('NOT_FOUND: no route has this method and path (HEAD is not served either).', ['NOT_FOUND'], [REQUEST_ID]);
