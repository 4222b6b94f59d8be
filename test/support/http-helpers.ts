// Small helpers shared by the HTTP API tests: JSON requests, error-body assertions, keys with ids,
// and history rows with controlled times.
import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { auth, type Fixture } from './fixture';
import { errorBodySchema, type ErrorCode, type LookupSource, type LookupStatus, type ProductSlug } from '../../src/shared/api/common';
import type { CreateKeyInput } from '../../src/main/core/keys/api-keys';
import type { KeyEnvironment } from '../../src/main/core/keys/secrets';
import type { InputType } from '../../src/main/core/history/history';
import { requestId, uuidv7 } from '../../src/main/core/db/ids';

export type Res = LightMyRequestResponse;

export const REQUEST_ID = /^req_[0-9a-f]{32}$/;
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Creates a key like `f.createKey` and also returns its record id (to revoke it later). */
export function createKeyWithId(f: Fixture, input: Partial<Omit<CreateKeyInput, 'orgId'>> = {}): { secret: string; id: string } {
  const { key, secret } = f.titular.keys.create({
    orgId: f.orgId,
    ownerUserId: f.adminId,
    actorUserId: f.adminId,
    product: 'cbu',
    scopes: ['lookup', 'balance', 'history'],
    environment: 'live',
    ...input,
  });
  return { secret, id: key.id };
}

export function revokeKey(f: Fixture, id: string): void {
  f.titular.keys.revoke(f.orgId, id, f.adminId);
}

/** POST with a JSON body (`payload` is serialized unless it is already a string). */
export function postJson(f: Fixture, url: string, payload: unknown, headers: Record<string, string> = {}): Promise<Res> {
  return f.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

export function getWithKey(f: Fixture, url: string, key: string, headers: Record<string, string> = {}): Promise<Res> {
  return f.app.inject({ method: 'GET', url, headers: { ...auth(key), ...headers } });
}

/**
 * Asserts a non-2xx answer: status, the exact error body (strict), the Request-Id header equal to
 * its request_id, and whether credits_remaining is present. Returns the parsed body.
 */
export function expectError(
  res: Res,
  status: number,
  code: ErrorCode,
  opts: { creditsRemaining?: number | 'absent' } = {},
) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = errorBodySchema.strict().parse(res.json());
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(body.request_id).toMatch(REQUEST_ID);
  expect(res.headers['request-id']).toBe(body.request_id);
  if (opts.creditsRemaining === 'absent') expect(body).not.toHaveProperty('credits_remaining');
  else if (opts.creditsRemaining !== undefined) expect(body.credits_remaining).toBe(opts.creditsRemaining);
  return body;
}

/** Total history entries of a scope, read through the core (works for Informes too). */
export function historyTotal(f: Fixture, environment: KeyEnvironment, product: ProductSlug): number {
  return f.titular.history.page({ orgId: f.orgId, environment, product }, { page: 1, per_page: 1 }).pagination.total;
}

export interface RecordInput {
  createdAt: string | number;
  status?: LookupStatus;
  source?: LookupSource;
  environment?: KeyEnvironment;
  product?: ProductSlug;
  inputIdentifier?: string;
  inputType?: InputType;
  userId?: string;
  id?: string;
}

/** Inserts a history row directly through the core API, with a controlled time. Returns its id. */
export function recordLookup(f: Fixture, input: RecordInput): string {
  const createdAt = typeof input.createdAt === 'number' ? input.createdAt : Date.parse(input.createdAt);
  const status = input.status ?? 'SUCCESS';
  const id = input.id ?? uuidv7(createdAt);
  f.titular.history.record({
    id,
    orgId: f.orgId,
    environment: input.environment ?? 'live',
    product: input.product ?? 'cbu',
    inputIdentifier: input.inputIdentifier ?? 'recorded.alias',
    inputType: input.inputType ?? 'ALIAS',
    status,
    errorCode: status === 'SUCCESS' ? null : 'PA011',
    httpStatus: status === 'SUCCESS' ? 200 : 404,
    source: input.source ?? 'API',
    responseData: status === 'SUCCESS' ? { recorded: true } : { error: { code: 'PA011', message: 'recorded' } },
    upstreamLatencyMs: 3,
    creditConsumed: 1,
    userId: input.userId ?? f.adminId,
    apiKeyId: null,
    requestId: requestId(),
    createdAt,
  });
  return id;
}
