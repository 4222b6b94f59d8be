// Every public route of the HTTP API and every status it can answer, read off the route handlers,
// `authorize.ts`, the lookup service and `server.ts` (Host guard, shutdown, body parsing, unknown
// routes). The conformance test drives each route through each status listed here and fails on an
// answer that is not listed, so this table cannot drift from the server without a red test.
// The desktop's `/bridge/:channel` and the static UI (browser mode only) are internal: not listed.
import type { z } from 'zod';
import type { ProductSlug, Scope } from '../../../../shared/api/common';
import { historyQuerySchema } from '../../../../shared/api/history';
import { lookupRequestSchema } from '../../../../shared/api/lookup';
import { SANDBOX_ACCOUNTS, SANDBOX_CREDIT_REPORTS } from '../../resolvers/sandbox-data';
import type { ComponentName, JsonSchema } from './components';
import {
  forbidden,
  idempotencyConflict,
  insufficientCredits,
  internalError,
  invalidLookup,
  invalidParameter,
  lookupNotFound,
  ok,
  payloadTooLarge,
  rateLimited,
  shuttingDown,
  sourceUnavailable,
  unauthorized,
  unsupportedMediaType,
  type ResponseSpec,
} from './responses';

export interface ApiRoute {
  method: 'get' | 'post';
  path: string;
  operationId: string;
  tag: 'Lookups' | 'Account' | 'Meta';
  summary: string;
  description: string;
  /** Who may call it; null for the unauthenticated document route. */
  access: { products: readonly ProductSlug[]; scope: Scope } | null;
  query?: { schema: z.ZodObject; descriptions: Record<string, string>; examples?: Record<string, string> };
  idempotencyKey?: boolean;
  body?: { component: ComponentName; example: unknown };
  responses: Record<number, ResponseSpec>;
}

const sample = SANDBOX_ACCOUNTS[0]!;
const sampleReport = SANDBOX_CREDIT_REPORTS[0]!;
const EXAMPLE_REQUEST_ID = 'req_0193a5b2c4d87e1f9a0b1c2d3e4f5a6b';

const lookupExample = { success: true, data: sample, credits_remaining: 41, request_id: EXAMPLE_REQUEST_ID };
const creditExample = { success: true, data: sampleReport, credits_remaining: 41, request_id: EXAMPLE_REQUEST_ID };

/** The statuses shared by GET /lookup and POST /lookup. */
function accountLookupResponses(body: boolean): Record<number, ResponseSpec> {
  const bodyErrors: Record<number, ResponseSpec> = body ? { 413: payloadTooLarge(), 415: unsupportedMediaType() } : {};
  return {
    200: ok('LookupResult', 'The account was found. Charged on live keys (`credits_remaining` is the balance after the charge; sandbox keys are never charged).', lookupExample, {
      replayable: true,
    }),
    400: invalidLookup(
      'the identifier or `type` is missing or invalid (a CBU/CVU is 22 digits with both BCRA check digits valid; an alias is 6–20 letters, digits and dots)',
      { body },
    ),
    401: unauthorized(),
    402: insufficientCredits('CBU'),
    403: forbidden('an Informes key, a key without the `lookup` scope'),
    404: lookupNotFound('no account has this CBU/CVU or alias'),
    409: idempotencyConflict(),
    ...bodyErrors,
    429: rateLimited(),
    500: internalError(),
    503: sourceUnavailable('the account data source'),
  };
}

const LOOKUP_DESCRIPTION =
  'Resolves a CBU/CVU (exactly 22 digits: spaces, dashes and any other character are a 400 PA006) or a bank alias (6–20 letters, digits and dots) to the account holders, account type, status, currency, alias, number and bank. ' +
  'Checks run in this order and the first failure wins: 401, 403, 429, `Idempotency-Key` replay, 402, 400 PA006, then the data source (200, 404 PA011, or 503/500 GE500). ' +
  'Live keys are answered by the source configured for the product (the organization\'s imported directory by default) and pay one credit for 200, PA006 and PA011; sandbox keys (`sk_test_`) answer from the documented sample data and pay nothing.';

export const API_ROUTES: readonly ApiRoute[] = [
  {
    method: 'get',
    path: '/api/v1/lookup',
    operationId: 'lookupAccount',
    tag: 'Lookups',
    summary: 'Resolve the holder of a CBU/CVU or alias',
    description: LOOKUP_DESCRIPTION,
    access: { products: ['cbu'], scope: 'lookup' },
    query: {
      schema: lookupRequestSchema,
      descriptions: {
        identifier: 'A CBU/CVU (22 digits) or a bank alias (6–20 letters, digits and dots).',
        type: '`cbu` for a CBU or CVU, `alias` for a bank alias.',
      },
      examples: { identifier: sample.account.number, type: 'cbu' },
    },
    idempotencyKey: true,
    responses: accountLookupResponses(false),
  },
  {
    method: 'post',
    path: '/api/v1/lookup',
    operationId: 'lookupAccountPost',
    tag: 'Lookups',
    summary: 'Resolve the holder of a CBU/CVU or alias (JSON body)',
    description: `${LOOKUP_DESCRIPTION} Same semantics and answers as the GET.`,
    access: { products: ['cbu'], scope: 'lookup' },
    idempotencyKey: true,
    body: { component: 'LookupRequest', example: { identifier: sample.alias, type: 'alias' } },
    responses: accountLookupResponses(true),
  },
  {
    method: 'post',
    path: '/api/v1/credit/lookup',
    operationId: 'lookupCreditReport',
    tag: 'Lookups',
    summary: 'Credit report for a CUIT/CUIL (Informes)',
    description:
      'Returns the debt situation of a CUIT/CUIL per institution (BCRA classification 1–6, amount, period), totals and bounced checks. ' +
      'Same order of checks and credit rules as the CBU lookup, on the Informes wallet. Live keys are answered from the credit records the organization imported (`titular directory import-credit`), or from the remote API when the Informes resolver is set to it, and are charged; sandbox keys from the sample set, free.',
    access: { products: ['informes'], scope: 'lookup' },
    idempotencyKey: true,
    body: { component: 'CreditLookupRequest', example: { tax_id: '20-28765432-5' } },
    responses: {
      200: ok('CreditLookupResult', 'The report. Charged on live keys (`credits_remaining` is the Informes balance after the charge).', creditExample, {
        replayable: true,
      }),
      400: invalidLookup('`tax_id` is missing or is not a CUIT/CUIL (11 digits, valid prefix and check digit)', { body: true }),
      401: unauthorized(),
      402: insufficientCredits('Informes'),
      403: forbidden('a CBU key, a key without the `lookup` scope'),
      404: lookupNotFound('no credit report exists for this CUIT/CUIL'),
      409: idempotencyConflict(),
      413: payloadTooLarge(),
      415: unsupportedMediaType(),
      429: rateLimited(),
      500: internalError(),
      503: sourceUnavailable('the credit report source'),
    },
  },
  {
    method: 'get',
    path: '/api/v1/balance',
    operationId: 'getBalance',
    tag: 'Account',
    summary: 'Credit balance per product',
    description: 'The organization\'s credits for every product: available, purchased in total and consumed in total. The same for live and sandbox keys. Not charged.',
    access: { products: ['cbu', 'informes'], scope: 'balance' },
    responses: {
      200: ok('BalanceResponse', 'The balance of each product.', {
        balances: [
          { productId: 'cbu', productName: 'Consulta CBU', productSlug: 'cbu', balance: 41, totalPurchased: 100, totalConsumed: 59 },
          { productId: 'informes', productName: 'Informe Crediticio', productSlug: 'informes', balance: 0, totalPurchased: 0, totalConsumed: 0 },
        ],
      }),
      401: unauthorized(),
      403: forbidden('a key without the `balance` scope'),
      429: rateLimited(),
      500: internalError(),
      503: shuttingDown(),
    },
  },
  {
    method: 'get',
    path: '/api/v1/history',
    operationId: 'listHistory',
    tag: 'Account',
    summary: 'The organization\'s lookups, newest first',
    description:
      'Lookups of the key\'s product, newest first (`createdAt` descending, ties by `id`). A live key sees live lookups only, a sandbox key sandbox lookups only. ' +
      'Every filter is validated: an unknown parameter or value, `from` after `to`, `page` < 1 or `per_page` outside 1–50 is 400 INVALID_PARAMETER (no silent clamping). Not charged.',
    access: { products: ['cbu'], scope: 'history' },
    query: {
      schema: historyQuerySchema,
      descriptions: {
        page: 'Page number, from 1. Default 1.',
        per_page: 'Entries per page, 1 to 50. Default 10.',
        from: 'Earliest `createdAt`: an ISO 8601 instant with a zone (`2026-11-01T09:30:00Z`) or a date (`2026-11-01`, that day from 00:00:00.000Z).',
        to: 'Latest `createdAt`: an ISO 8601 instant with a zone, or a date (the whole day is included).',
        status: 'Only lookups with this outcome.',
        source: 'Only lookups from this source.',
        q: 'Titular extension: only lookups whose identifier contains this text.',
      },
    },
    responses: {
      200: ok('HistoryResponse', 'One page of entries and the pagination.', {
        data: [
          {
            id: '0193a5b2-c4d8-7e1f-9a0b-1c2d3e4f5a6b',
            inputIdentifier: sample.account.number,
            inputType: 'CBU',
            status: 'SUCCESS',
            source: 'API',
            responseData: sample,
            upstreamLatencyMs: 3,
            creditConsumed: 1,
            createdAt: '2026-11-02T14:05:09.123Z',
            user: { id: '0193a5b2-0000-7000-8000-000000000001', name: 'Ada Admin', email: 'ada@acme.test' },
          },
        ],
        pagination: { page: 1, per_page: 10, total: 1, total_pages: 1 },
      }),
      400: invalidParameter('a query parameter is unknown or invalid'),
      401: unauthorized(),
      403: forbidden('an Informes key, a key without the `history` scope'),
      429: rateLimited(),
      500: internalError(),
      503: shuttingDown(),
    },
  },
  {
    method: 'get',
    path: '/api/v1/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'Meta',
    summary: 'This document',
    description:
      'The OpenAPI 3.1 description of this API, generated from the same zod schemas that validate it. No authentication: it holds no data of the organization. The `Host` guard applies.',
    access: null,
    responses: {
      200: {
        description: 'The OpenAPI document.',
        schema: {
          type: 'object',
          required: ['openapi', 'info', 'paths', 'components'],
          properties: { openapi: { type: 'string', const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' }, components: { type: 'object' } },
        } satisfies JsonSchema,
        headers: [{ name: 'Request-Id', required: true }],
      },
      403: {
        ...forbidden('the `Host` header does not name this machine'),
        description: 'FORBIDDEN: the `Host` header does not name this machine (DNS-rebinding guard).',
      },
      503: shuttingDown(),
    },
  },
];
