// Builds the OpenAPI 3.1.0 document from the route table and the shared zod schemas. The server
// serves it at /api/v1/openapi.json and `npm run openapi` writes it to openapi/openapi.json.
import { componentRef, componentSchemas, inlineSchema, type JsonSchema } from './components';
import { headerComponent, headerComponentKey, IDEMPOTENCY_KEY_PARAMETER } from './headers';
import { unknownRoute, type ResponseSpec } from './responses';
import { API_ROUTES, type ApiRoute } from './route-table';

export const OPENAPI_PATH = '/api/v1/openapi.json';

/** Where the repository keeps the generated document (relative to the repository root). */
export const OPENAPI_FILE = 'openapi/openapi.json';

const DESCRIPTION = `Titular resolves Argentine bank account identifiers (CBU/CVU or bank alias) to the account holders and serves credit reports for a CUIT/CUIL ("Informes"), paid with prepaid credits per product.

The API listens on 127.0.0.1 only and refuses requests whose \`Host\` is not a loopback name (403 FORBIDDEN).

**Authentication.** Every route except this document needs \`Authorization: Bearer <API key>\`. Live keys are \`sk_live_\` + 32 characters, sandbox keys \`sk_test_\` + 32. A key belongs to one product (CBU or Informes) and has scopes (\`lookup\`, \`balance\`, \`history\`); calling a route of the other product, or without the scope, is 403 FORBIDDEN.

**Errors.** Every non-2xx answer has the body \`{"success": false, "error": {"code", "message"}, "credits_remaining"?, "request_id"}\` (schema \`ErrorBody\`), and every answer carries a \`Request-Id\` header equal to its \`request_id\`. Any method and path not listed here is 404 NOT_FOUND (see the \`RouteNotFound\` response); a request that is not valid HTTP, or whose path cannot be decoded, never reaches a route and is answered 4xx INVALID_PARAMETER with the same body: 400 malformed, 408 not received in time (headers 10 s, whole request 30 s), 413 body over 16 KiB, 414 URL too long, 417 an \`Expect\` other than 100-continue, 431 headers too large.

**Credits.** Live lookups pay one credit for a found account (200), an invalid identifier (400 PA006) and an identifier not found (404 PA011); GE500 (503/500), 402, 401, 403, 429 and malformed requests (INVALID_PARAMETER) pay nothing. Sandbox keys never pay. A charge and its history entry are written in one transaction.

**Sandbox.** \`sk_test_\` keys answer from a fixed sample data set with identifiers for every outcome, e.g. \`0110001300000012345674\` / \`maria.gonzalez.cc\` (200), \`0110001399999999999993\` / \`alias.inexistente\` (404 PA011), \`0170500300000000050005\` / \`falla.upstream\` (503 GE500); CUIT \`20-28765432-5\` (200), \`30-50001234-6\` (404), \`33-99999999-4\` (503).`;

export function generateOpenApiDocument(): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of API_ROUTES) {
    (paths[route.path] ??= {})[route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Titular API',
      version: '1.0.0',
      summary: 'CBU/CVU/alias holder lookups, credit reports, credit balance and lookup history.',
      description: DESCRIPTION,
    },
    servers: [{ url: 'http://127.0.0.1:8787', description: 'The local Titular API (default port; `--port` or `TITULAR_PORT` change it)' }],
    tags: [
      { name: 'Lookups', description: 'Paid lookups: account holders (CBU product) and credit reports (Informes product).' },
      { name: 'Account', description: 'The organization\'s credit balance and lookup history.' },
      { name: 'Meta', description: 'This description.' },
    ],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      schemas: componentSchemas(),
      responses: { RouteNotFound: response(unknownRoute()) },
      headers: headerComponents(),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key: `sk_live_…` (live, charged) or `sk_test_…` (sandbox, free), created with `titular keys create` or in the desktop app.',
        },
      },
    },
  };
}

function operation(route: ApiRoute): JsonSchema {
  const parameters: JsonSchema[] = [...queryParameters(route), ...(route.idempotencyKey ? [IDEMPOTENCY_KEY_PARAMETER] : [])];
  const access = route.access
    ? `\n\nKey product: ${route.access.products.map((p) => (p === 'cbu' ? 'CBU' : 'Informes')).join(' or ')}; scope \`${route.access.scope}\`.`
    : '';
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    description: route.description + access,
    ...(route.access ? { 'x-titular-products': [...route.access.products], 'x-titular-scope': route.access.scope } : { security: [] }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: componentRef(route.body.component), example: route.body.example } } } }
      : {}),
    responses: Object.fromEntries(Object.entries(route.responses).map(([status, spec]) => [status, response(spec)])),
  };
}

function queryParameters(route: ApiRoute): JsonSchema[] {
  if (!route.query) return [];
  // Query strings arrive as text, so parameters are described as the schema's *input*.
  const schema = inlineSchema(route.query.schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const description = route.query!.descriptions[name];
    if (!description) throw new Error(`OpenAPI: query parameter ${name} of ${route.method.toUpperCase()} ${route.path} has no description`);
    const example = route.query!.examples?.[name];
    return {
      name,
      in: 'query',
      required: schema.required?.includes(name) ?? false,
      description,
      schema: property,
      ...(example === undefined ? {} : { example }),
    };
  });
}

function response(spec: ResponseSpec): JsonSchema {
  return {
    description: spec.description,
    headers: Object.fromEntries(spec.headers.map((use) => [use.name, { $ref: `#/components/headers/${headerComponentKey(use)}` }])),
    content: { 'application/json': { schema: spec.schema, ...(spec.example === undefined ? {} : { example: spec.example }) } },
  };
}

/** Every header variant the responses use, once. */
function headerComponents(): Record<string, JsonSchema> {
  const uses = [...API_ROUTES.flatMap((route) => Object.values(route.responses)), unknownRoute()].flatMap((spec) => spec.headers);
  const entries = uses.map((use) => [headerComponentKey(use), headerComponent(use)] as const);
  return Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));
}

/** The document as the repository stores it: two-space indentation and a final newline. */
export function serializeOpenApiDocument(document: JsonSchema): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

let served: string | undefined;

/** The serialized document, generated on first use and then kept: the routes cannot change at run time. */
export function openApiJson(): string {
  served ??= JSON.stringify(generateOpenApiDocument());
  return served;
}
