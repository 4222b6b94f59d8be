// A fake remote Account Lookup API for the remote resolver's tests: plain node:http on 127.0.0.1,
// port 0. It answers the contract's shapes for the key it was given, records every request it
// receives (so tests can count attempts), and misbehaves on demand: slow, failing, flapping,
// rejecting the key, rate limiting, or answering malformed bodies.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupData } from '../../src/shared/api/lookup';
import type { CreditReport } from '../../src/shared/api/credit';

export type FakeMode =
  /** Contract-shaped answers (after `delayMs`, default 0). */
  | { kind: 'ok'; delayMs?: number }
  /** 404 PA011 for every lookup. */
  | { kind: 'not-found' }
  /** Answers (correctly) only after `delayMs`: longer than the resolver's timeout. */
  | { kind: 'slow'; delayMs: number }
  /** Every request fails with `status` (default 500). */
  | { kind: 'failing'; status?: number }
  /** The first `failures` requests (since the mode was set) fail with 500, then ok. */
  | { kind: 'fail-then-recover'; failures: number }
  /** Fails every other request, starting with the first. */
  | { kind: 'flapping' }
  /** Rejects every request with this status and an error body (401, 403, 402, 400, or a 404 route miss). */
  | { kind: 'reject'; status: 400 | 401 | 402 | 403 | 404; /** Text before the echoed Authorization header. */ lead?: string }
  /** 429 with this Retry-After (seconds) for the first `times` requests, then ok. */
  | { kind: 'rate-limited'; retryAfterSeconds: number; times: number }
  /** 200 with a body that is not the contract's result. */
  | { kind: 'malformed'; body?: string };

export interface FakeHit {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  body: unknown;
}

export interface FakeUpstream {
  url: string;
  hits: FakeHit[];
  setMode(mode: FakeMode): void;
  /** Hits since the last call (and forgets them). */
  takeHits(): FakeHit[];
  close(): Promise<void>;
}

/** The account every successful CBU/alias answer describes; the number echoes the query. */
export function fakeAccount(number: string, alias: string): LookupData {
  return {
    holders: [{ full_name: 'Remota Upstream SRL', tax_id: '30712345671', tax_id_type: 'CUIT', is_individual: false }],
    account_type: 'CC',
    active: true,
    currency: 'ARS',
    alias,
    account: { scheme: number.startsWith('000') ? 'CVU' : 'CBU', number },
    bank: { name: 'Banco Remoto', code: number.slice(0, 3) },
  };
}

/** The number the fake answers for an alias lookup (valid check digits). */
export const FAKE_ALIAS_NUMBER = '0110001300000012345674';

export function fakeReport(taxId: string): CreditReport {
  return {
    subject: { full_name: 'Remota Upstream SRL', tax_id: taxId, tax_id_type: 'CUIT', is_individual: false },
    period: '2026-10',
    situations: [
      { institution: { code: '011', name: 'Banco Remoto' }, classification: 2, amount: 1500, period: '2026-10', days_overdue: 45 },
    ],
    totals: { amount: 1500, institutions: 1, worst_classification: 2 },
    bounced_checks: [],
  };
}

export async function startFakeUpstream(options: { key: string; mode?: FakeMode }): Promise<FakeUpstream> {
  let mode: FakeMode = options.mode ?? { kind: 'ok' };
  let sinceMode = 0;
  const hits: FakeHit[] = [];
  let taken = 0;
  const timers = new Set<NodeJS.Timeout>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = undefined;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      hits.push({ method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), authorization: req.headers.authorization, body });
      const n = sinceMode++;
      const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        if (res.destroyed) return;
        const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(text);
      };
      const error = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
        send(status, { success: false, error: { code, message }, request_id: `req_fake${n}` }, headers);
      const answer = () => {
        if (req.headers.authorization !== `Bearer ${options.key}`) return error(401, 'UNAUTHORIZED', 'Invalid API key');
        return respondOk(url, body, send, error);
      };
      const later = (ms: number, fn: () => void) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          fn();
        }, ms);
        timers.add(timer);
        res.on('close', () => {
          clearTimeout(timer);
          timers.delete(timer);
        });
      };

      switch (mode.kind) {
        case 'ok':
          return mode.delayMs ? later(mode.delayMs, answer) : answer();
        case 'slow':
          return later(mode.delayMs, answer);
        case 'not-found':
          return error(404, 'PA011', 'No account was found for this identifier');
        case 'failing':
          return error(mode.status ?? 500, 'GE500', 'Internal error');
        case 'fail-then-recover':
          return n < mode.failures ? error(500, 'GE500', 'Internal error') : answer();
        case 'flapping':
          return n % 2 === 0 ? error(502, 'GE500', 'Bad gateway') : answer();
        case 'reject': {
          const code = { 400: 'PA006', 401: 'UNAUTHORIZED', 402: 'INSUFFICIENT_CREDITS', 403: 'FORBIDDEN', 404: 'NOT_FOUND' }[mode.status];
          // An upstream that echoes the key it was sent must not get it into our statuses.
          return error(mode.status, code, `${mode.lead ?? 'rejected '}${req.headers.authorization ?? ''}`);
        }
        case 'rate-limited':
          return n < mode.times ? error(429, 'RATE_LIMITED', 'Too many requests', { 'retry-after': String(mode.retryAfterSeconds) }) : answer();
        case 'malformed':
          return send(200, mode.body ?? '{"success": true, "data": {"holders": "nope"}}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    setMode(next) {
      mode = next;
      sinceMode = 0;
    },
    takeHits() {
      const fresh = hits.slice(taken);
      taken = hits.length;
      return fresh;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function respondOk(
  url: URL,
  body: unknown,
  send: (status: number, payload: unknown) => void,
  error: (status: number, code: string, message: string) => void,
): void {
  if (url.pathname === '/api/v1/lookup') {
    const identifier = url.searchParams.get('identifier') ?? '';
    const type = url.searchParams.get('type');
    const data = type === 'alias' ? fakeAccount(FAKE_ALIAS_NUMBER, identifier) : fakeAccount(identifier, 'remota.upstream');
    return send(200, { success: true, data, credits_remaining: 999, request_id: 'req_fake' });
  }
  if (url.pathname === '/api/v1/credit/lookup') {
    const taxId = String((body as { tax_id?: unknown } | undefined)?.tax_id ?? '').replace(/\D/g, '');
    return send(200, { success: true, data: fakeReport(taxId), credits_remaining: 999, request_id: 'req_fake' });
  }
  if (url.pathname === '/api/v1/balance') {
    return send(200, {
      balances: [
        { productId: 'p1', productName: 'Consulta CBU', productSlug: 'cbu', balance: 999, totalPurchased: 1000, totalConsumed: 1 },
      ],
    });
  }
  return error(404, 'NOT_FOUND', 'Unknown route');
}
