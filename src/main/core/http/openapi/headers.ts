// Headers the API sends and accepts, as OpenAPI header and parameter objects.
import type { JsonSchema } from './components';

export type ResponseHeaderName =
  | 'Request-Id'
  | 'RateLimit-Limit'
  | 'RateLimit-Remaining'
  | 'RateLimit-Reset'
  | 'Retry-After'
  | 'Idempotent-Replayed'
  | 'WWW-Authenticate';

const RESPONSE_HEADERS: Record<ResponseHeaderName, { description: string; schema: JsonSchema }> = {
  'Request-Id': {
    description:
      'Unique id of the request, equal to the body\'s `request_id` (a replayed answer carries the id of the request that was charged). Quote it to support. A client-sent value is ignored.',
    schema: { type: 'string', pattern: '^req_[0-9a-f]{32}$' },
  },
  'RateLimit-Limit': {
    description: 'Burst size of the key\'s token bucket (20 unless configured for the key).',
    schema: { type: 'integer', minimum: 1 },
  },
  'RateLimit-Remaining': {
    description: 'Requests the key may still make right now.',
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the key\'s bucket is full again.',
    schema: { type: 'integer', minimum: 0 },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 1 },
  },
  'Idempotent-Replayed': {
    description: 'Present (`true`) when this is the stored answer to an earlier request with the same `Idempotency-Key`; nothing was charged again.',
    schema: { type: 'string', enum: ['true'] },
  },
  'WWW-Authenticate': {
    description: 'RFC 6750: `Bearer realm="titular"`, with `error="invalid_token"` when a key was sent and refused.',
    schema: { type: 'string', enum: ['Bearer realm="titular"', 'Bearer realm="titular", error="invalid_token"'] },
  },
};

export interface HeaderUse {
  name: ResponseHeaderName;
  /** Whether every answer of this status carries it (OpenAPI `required`); when not, the response says when. */
  required: boolean;
}

export const always = (name: ResponseHeaderName): HeaderUse => ({ name, required: true });
export const sometimes = (name: ResponseHeaderName): HeaderUse => ({ name, required: false });

export const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] as const;

/** The key of a header use in `components.headers`: its name, plus `.optional` when not always sent. */
export const headerComponentKey = (use: HeaderUse): string => (use.required ? use.name : `${use.name}.optional`);

export function headerComponent(use: HeaderUse): JsonSchema {
  const header = RESPONSE_HEADERS[use.name];
  return { description: header.description, required: use.required, schema: header.schema };
}

export const IDEMPOTENCY_KEY_PARAMETER: JsonSchema = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: a request with the same key and the same input within 24 h replays the first answer (200, 400 PA006 or 404 PA011; header `Idempotent-Replayed: true`) without a second charge. The same key with another input is 409 IDEMPOTENCY_CONFLICT; a malformed key is 400 INVALID_PARAMETER. GE500 answers are not stored, so their retry runs again.',
  schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
};
