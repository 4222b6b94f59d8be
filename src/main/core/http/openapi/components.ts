// The zod schemas of src/shared/api that become named components of the OpenAPI document, and how
// they are turned into JSON Schema 2020-12. Responses are emitted as zod *outputs* (what the server
// sends: unknown fields are not allowed), request bodies as zod *inputs* (what a client may send).
import { z } from 'zod';
import { errorBodySchema, errorCodeSchema, lookupStatusSchema, productSlugSchema, sourceSchema } from '../../../../shared/api/common';
import { holderSchema, lookupDataSchema, lookupRequestSchema, lookupResultSchema } from '../../../../shared/api/lookup';
import { balanceEntrySchema, balanceResponseSchema } from '../../../../shared/api/balance';
import { historyEntrySchema, historyResponseSchema, paginationSchema } from '../../../../shared/api/history';
import {
  bouncedCheckSchema,
  creditLookupRequestSchema,
  creditLookupResultSchema,
  creditReportSchema,
  debtSituationSchema,
} from '../../../../shared/api/credit';

export type JsonSchema = Record<string, unknown>;

interface Component {
  schema: z.ZodType;
  description: string;
}

/** Shapes the server sends. A schema listed here is referenced by `$ref` wherever it appears. */
export const RESPONSE_COMPONENTS = {
  ErrorBody: {
    schema: errorBodySchema,
    description:
      'The body of every non-2xx answer. `credits_remaining` is present when the error consumed a credit (PA006, PA011 on live keys) and on 402 (then 0).',
  },
  ErrorCode: { schema: errorCodeSchema, description: 'Every error code the API answers; each response lists the ones it can carry.' },
  LookupResult: { schema: lookupResultSchema, description: 'A resolved CBU/CVU or alias (contract §2.1).' },
  LookupData: { schema: lookupDataSchema, description: 'The account: holders, type, status, currency, alias, number and bank.' },
  Holder: { schema: holderSchema, description: 'One account holder. `tax_id` is the CUIT/CUIL as 11 digits without dashes.' },
  CreditLookupResult: { schema: creditLookupResultSchema, description: 'A credit report for a CUIT/CUIL (Informes product).' },
  CreditReport: {
    schema: creditReportSchema,
    description:
      'The subject, its debt situation per institution as reported to the BCRA Central de Deudores (classification 1 normal … 6 irrecoverable by technical disposition; amounts in thousands of ARS), totals and bounced checks.',
  },
  DebtSituation: { schema: debtSituationSchema, description: 'The debt at one institution in one reporting period (YYYY-MM).' },
  BouncedCheck: { schema: bouncedCheckSchema, description: 'A bounced check drawn by the subject, and whether it was paid later.' },
  BalanceResponse: { schema: balanceResponseSchema, description: 'The credit balance of the caller\'s organization, one entry per product.' },
  BalanceEntry: { schema: balanceEntrySchema, description: 'Credits of one product: available, purchased in total, consumed in total.' },
  ProductSlug: { schema: productSlugSchema, description: '`cbu` ("Consulta CBU") or `informes` ("Informe Crediticio").' },
  HistoryResponse: { schema: historyResponseSchema, description: 'One page of the organization\'s lookups, newest first.' },
  HistoryEntry: {
    schema: historyEntrySchema,
    description:
      'One lookup. `responseData` is the stored answer (the account data, or `{ "error": { code, message } }`; `{ "damaged": true }` when the stored answer cannot be read, the entry\'s other fields being as recorded); `createdAt` is ISO 8601 UTC. An entry another of whose fields cannot be read in Titular\'s database (a status or source outside its set, credits or a date that are no number) is left out of its page rather than given a made-up value; `total` still counts it.',
  },
  LookupStatus: { schema: lookupStatusSchema, description: 'Outcome of a lookup in the history.' },
  LookupSource: { schema: sourceSchema, description: 'Where a lookup came from: the desktop (`WEB`), the API (`API`) or a bulk job (`BULK`).' },
  Pagination: { schema: paginationSchema, description: 'Position of a page in the whole result.' },
} satisfies Record<string, Component>;

/** Shapes clients send. */
export const REQUEST_COMPONENTS = {
  LookupRequest: {
    schema: lookupRequestSchema,
    description:
      'A CBU/CVU or alias to resolve. A JSON object with a missing or invalid field is a lookup that fails validation (400 PA006, charged on live keys); a body that is not a JSON object is 400 INVALID_PARAMETER (not charged).',
  },
  CreditLookupRequest: {
    schema: creditLookupRequestSchema,
    description: 'A CUIT/CUIL to report on; dashes optional, check digit validated (400 PA006 otherwise).',
  },
} satisfies Record<string, Component>;

export type ComponentName = keyof typeof RESPONSE_COMPONENTS | keyof typeof REQUEST_COMPONENTS;

export const componentRef = (name: ComponentName): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** Every component as JSON Schema 2020-12, referencing the others by `#/components/schemas/<name>`. */
export function componentSchemas(): Record<string, JsonSchema> {
  const outputs = emit(RESPONSE_COMPONENTS, 'output');
  const inputs = emit(REQUEST_COMPONENTS, 'input');
  for (const name of Object.keys(inputs)) {
    if (name in outputs) throw new Error(`OpenAPI component ${name} is both a request and a response shape`);
  }
  return { ...outputs, ...inputs };
}

function emit(components: Record<string, Component>, io: 'input' | 'output'): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, { schema }] of Object.entries(components)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, JsonSchema> };
  if ('__shared' in schemas) throw new Error('OpenAPI components share an unnamed schema; name it in components.ts');
  const result: Record<string, JsonSchema> = {};
  for (const [id, { description }] of Object.entries(components)) {
    // Inside an OpenAPI document a component is not a schema resource of its own: its `$id` (a bare
    // fragment, which 2020-12 forbids) and `$schema` are dropped; `$ref`s resolve against the document.
    const { $id: _id, $schema: _schema, ...schema } = schemas[id] ?? {};
    result[id] = { description, ...schema };
  }
  return result;
}

/**
 * A query parameter that arrives as text but stands for an integer (its zod `meta` says `integer`)
 * is described as that integer: the text's `pattern` is dropped, and its default, which zod leaves
 * out of a transformed schema's input, is put back.
 */
function describeNumberAsNumber(ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: JsonSchema }): void {
  if (ctx.jsonSchema.type !== 'integer') return;
  delete ctx.jsonSchema.pattern;
  const def = ctx.zodSchema._zod.def;
  if (def.type === 'default') ctx.jsonSchema.default = def.defaultValue;
}

/** A zod schema as a standalone JSON Schema (query parameters: no component references). */
export function inlineSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _schema, ...json } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, override: describeNumberAsNumber }) as JsonSchema;
  return json;
}
