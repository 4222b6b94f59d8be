// One HTTP attempt against the remote Account Lookup API, classified: an answer (200 body, or a
// 404 PA011), or a failure with its kind and whether another attempt could help. Retrying,
// backoff and the circuit breaker are the caller's (remote-resolver.ts).
//
// The upstream key travels only in the Authorization header; every message built here is passed
// through `redact` so that an upstream that echoes the key cannot leak it into logs or statuses.
import { z } from 'zod';

export type UpstreamFailureKind =
  /** No base URL or no upstream key configured, or a base URL we refuse to send the key to. */
  | 'not-configured'
  /** The vault is locked (auto-lock): the upstream key cannot be read. */
  | 'vault-locked'
  | 'timeout'
  | 'connection'
  /** 5xx from the upstream. */
  | 'server-error'
  /** 429 from the upstream. */
  | 'rate-limited'
  /** A 200 whose body is not the contract's shape, or a body too large. */
  | 'malformed'
  /** 401/403: the upstream does not accept our key (wrong, revoked, expired, scope, IP whitelist). */
  | 'rejected-key'
  /** 402: the upstream account has no credits left. */
  | 'upstream-credits'
  /** 400: the upstream disagrees with our validation. */
  | 'bad-request'
  /** Any other status (a 404 that is not PA011 means the base URL points at the wrong place). */
  | 'unexpected-status';

export interface UpstreamFailure {
  kind: UpstreamFailureKind;
  /** For admins: what happened, without the key. */
  message: string;
  httpStatus: number | null;
}

export type AttemptOutcome =
  | { kind: 'answer'; body: unknown }
  | { kind: 'not-found' }
  | { kind: 'failed'; failure: UpstreamFailure; retryable: boolean; retryAfterMs?: number };

export interface AttemptRequest {
  url: string;
  method: 'GET' | 'POST';
  key: string;
  body?: unknown;
  timeoutMs: number;
  /**
   * Sent as `Idempotency-Key`: the same for every attempt of one lookup, so that an attempt the
   * upstream answered (and charged) but whose answer was lost is replayed there on retry, not charged
   * again (remote-resolver.ts #call).
   */
  idempotencyKey?: string;
}

/** Contract answers are a few KiB; anything far larger is not one and is not buffered. */
const MAX_BODY_BYTES = 256 * 1024;

const upstreamErrorBodySchema = z.object({
  error: z.object({ code: z.string().max(64), message: z.string().optional() }),
});

export async function sendAttempt(request: AttemptRequest): Promise<AttemptOutcome> {
  const redact = redactor(request.key);
  let response: Response;
  let text: string | null;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: {
        authorization: `Bearer ${request.key}`,
        accept: 'application/json',
        ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(request.idempotencyKey !== undefined ? { 'idempotency-key': request.idempotencyKey } : {}),
      },
      body: request.body !== undefined ? JSON.stringify(request.body) : undefined,
      // A redirect could carry the key elsewhere; the admin configures the final URL instead.
      redirect: 'manual',
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    text = await readCapped(response, MAX_BODY_BYTES);
  } catch (error) {
    return transportFailure(error, request.timeoutMs, redact);
  }
  const status = response.status;
  const json = text === null ? undefined : parseJson(text);

  if (status === 200) {
    if (json === undefined) return failed('malformed', 'the upstream answered 200 with a body that is not JSON (or too large)', status, true);
    return { kind: 'answer', body: json };
  }
  const upstreamError = upstreamErrorBodySchema.safeParse(json).data?.error;
  const upstreamCode = upstreamError?.code;
  // The upstream's own words help the admin ("IP not whitelisted"); key removed first (cut first, a
  // key echoed across the cut would leave its start behind), then one line, bounded.
  const said = upstreamError?.message ? `: ${redact(upstreamError.message).replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').slice(0, 200)}` : '';
  const described = (what: string) => redact(`${what} (HTTP ${status}${upstreamCode ? ` ${upstreamCode}` : ''}${said})`);
  if (status === 404) {
    if (upstreamCode === 'PA011') return { kind: 'not-found' };
    return failed('unexpected-status', described('the upstream answered 404 without PA011: check the base URL'), status, false);
  }
  if (status === 401 || status === 403) {
    return failed('rejected-key', described('the upstream rejected the upstream key: set a valid key with `titular remote set-key`'), status, false);
  }
  if (status === 402) return failed('upstream-credits', described('the upstream account has no credits left'), status, false);
  if (status === 400) return failed('bad-request', described('the upstream refused the request as invalid'), status, false);
  if (status === 429) {
    return { ...failed('rate-limited', described('the upstream is rate limiting us'), status, true), retryAfterMs: retryAfterMs(response.headers.get('retry-after')) };
  }
  if (status >= 500) return failed('server-error', described('the upstream failed'), status, true);
  if (status >= 300 && status < 400) {
    return failed('unexpected-status', described('the upstream redirected the request: configure the final URL'), status, false);
  }
  return failed('unexpected-status', described('the upstream answered an unexpected status'), status, false);
}

function failed(kind: UpstreamFailureKind, message: string, httpStatus: number | null, retryable: boolean): AttemptOutcome & { kind: 'failed' } {
  return { kind: 'failed', failure: { kind, message, httpStatus }, retryable };
}

function transportFailure(error: unknown, timeoutMs: number, redact: (text: string) => string): AttemptOutcome {
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') {
    return failed('timeout', `the upstream did not answer within ${timeoutMs} ms`, null, true);
  }
  const detail = err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(error);
  return failed('connection', redact(`could not reach the upstream (${detail})`), null, true);
}

async function readCapped(response: Response, limit: number): Promise<string | null> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Retry-After as delta-seconds or an HTTP date, in milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function redactor(key: string): (text: string) => string {
  return (text) => (key.length > 0 ? text.split(key).join('[redacted]') : text);
}
