// The HTTP API of the contract, as a Fastify instance over a composed core. The headless server
// and the Electron main process both listen with it on 127.0.0.1.
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { saidPlainly } from '../db/plain-faults';
import { TitularError } from '../errors';
import { maskKeys } from '../keys/secrets';
import type { Titular } from '../titular';
import { authorizer, refusedOnConfirm } from './authorize';
import { sendError } from './error-reply';
import { faultReporter } from './fault-report';
import { requestHostAllowed } from './host-guard';
import { browserRequestAllowed } from './origin-guard';
import { localFastify } from './local-fastify';
import { RateLimiter } from './rate-limiter';
import { registerAccountRoutes } from './routes/account-routes';
import { registerLookupRoutes } from './routes/lookup-routes';
import { registerOpenApiRoute } from './openapi/openapi-route';
import { BridgeSessions, registerBridge } from './bridge';
import { registerStaticUi } from './static-ui';

export interface HttpApiOptions {
  /** Host names accepted besides loopback ones (e.g. a LAN name set by an admin). */
  extraHosts?: readonly string[];
  /** Origins allowed to call from a browser; none by default (no CORS headers at all). */
  corsOrigins?: readonly string[];
  /** Browser mode: serve the built renderer and the IPC bridge for these sessions. */
  ui?: { rendererDir: string; sessions: BridgeSessions };
  /** One line per request: method, path, status, duration. Never headers, keys or bodies. */
  log?: (line: string) => void;
  /**
   * Internal faults (fault-report.ts), also when requests are not logged: the reason behind each
   * GE500 of Titular's own, which the client only sees as a request id. Default: `log`.
   */
  fault?: (line: string) => void;
}

const BROWSER_REFUSED =
  'Requests from web pages are refused unless their origin is allowed (serve --allow-origin ORIGIN or TITULAR_ALLOW_ORIGINS); tools outside a browser are not affected';

export function buildHttpApi(titular: Titular, options: HttpApiOptions = {}): FastifyInstance {
  // Requests that arrive once shutdown has begun get our own 503 body (below), not Fastify's.
  const app = localFastify({ return503OnClosing: false, keepAliveTimeout: 5_000 });
  // Graceful shutdown: requests already in flight finish, and their keep-alive connections are
  // told to close so that close() does not wait for idle clients.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Hooks on every request use callbacks, not async functions: no promise per hook per request.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    done(null, payload);
  });
  const reportFault = faultReporter(options.fault ?? options.log, titular.dataDir);
  const extraHosts = new Set((options.extraHosts ?? []).map((h) => h.toLowerCase()));
  const corsOrigins = new Set(options.corsOrigins ?? []);

  app.addHook('onRequest', (request, reply, done) => {
    // Answers name account holders and tax ids: no cache, a browser's or a proxy's, keeps them
    // (routes that may be cached, the UI's files and the OpenAPI document, say so themselves).
    reply.headers({ 'Request-Id': request.id, 'Cache-Control': 'no-store' });
    const origin = request.headers.origin;
    // Only the API's answers carry CORS headers: the browser-mode UI and its bridge are same-origin only.
    if (origin && corsOrigins.has(origin) && request.url.startsWith('/api/v1/')) {
      reply.headers({
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Headers': 'Authorization, Content-Type, Idempotency-Key',
        'Access-Control-Allow-Methods': 'GET, POST',
        'Access-Control-Expose-Headers': 'Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After',
        Vary: 'Origin',
      });
    }
    // An answer sent here ends the request: done() is not called after it.
    if (closing) {
      sendError(reply, 503, 'GE500', 'Titular is shutting down; retry shortly', { headers: { 'Retry-After': '5' } });
      return;
    }
    if (!requestHostAllowed(request.raw, extraHosts)) {
      sendError(reply, 403, 'FORBIDDEN', 'The Host header must name this machine (127.0.0.1 or localhost)');
      return;
    }
    if (request.url.startsWith('/api/') && !browserRequestAllowed(request.headers, corsOrigins)) {
      sendError(reply, 403, 'FORBIDDEN', BROWSER_REFUSED);
      return;
    }
    done();
  });

  if (corsOrigins.size > 0) {
    app.options('/api/v1/*', async (_request, reply) => reply.code(204).send());
  }

  // The methods of each route's path, for the 404 of a path asked with another one (a plain map: the
  // path a client sends is looked up, never parsed as a route pattern).
  const methodsByPath = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = methodsByPath.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) if (method !== 'HEAD' && method !== 'OPTIONS') methods.add(method);
    if (methods.size > 0) methodsByPath.set(route.url, methods);
  });

  const authorize = authorizer(titular.keys, new RateLimiter());
  registerLookupRoutes(app, titular, authorize);
  registerAccountRoutes(app, titular, authorize, reportFault);
  registerOpenApiRoute(app);
  if (options.ui) {
    registerBridge(app, titular, options.ui.sessions);
    registerStaticUi(app, options.ui.rendererDir);
  }

  app.setNotFoundHandler((request, reply) => {
    // A known path asked with another method says which ones it answers (still the contract's 404).
    const methods = methodsByPath.get(request.url.split('?')[0] ?? '');
    const answers = methods ? `; this path answers ${[...methods].sort().join(' and ')}` : '';
    sendError(reply, 404, 'NOT_FOUND', `No route ${request.method} ${safePath(request.url)}${answers}`);
  });

  app.setErrorHandler((error: FastifyError | TitularError, request, reply) => {
    // On a lookup route the key was admitted as last read: a refusal outranks any error (authorize.ts).
    // A key that cannot be checked (the database failing) gets no other answer than GE500.
    try {
      if (refusedOnConfirm(request, reply)) return reply;
    } catch (confirmError) {
      reportFault(request.id, confirmError, 'confirming the key:');
      return internalError(reply, confirmError, titular.dataDir);
    }
    if (error instanceof TitularError) {
      return sendError(reply, error.status, error.code, error.message, error.extras);
    }
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status >= 400 && status < 500) {
      // Fastify's own request errors: malformed JSON, body too large, unsupported media type.
      return sendError(reply, status, 'INVALID_PARAMETER', publicMessage(error, request.routeOptions.bodyLimit));
    }
    reportFault(request.id, error);
    return internalError(reply, error, titular.dataDir);
  });

  if (options.log) {
    const log = options.log;
    app.addHook('onResponse', async (request, reply) => {
      // A replay answers with the first request's id (the one its client has): logged beside this one's,
      // so support finds every request a client's id stands for.
      const replayOf = reply.getHeader('idempotent-replayed') === 'true' ? ` replay-of ${String(reply.getHeader('request-id'))}` : '';
      log(`${request.method} ${safePath(request.url)} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms ${request.id}${replayOf}`);
    });
  }
  return app;
}

/**
 * A GE500 for a fault of Titular's own: no detail, except what the client may wait out (db/plain-faults.ts):
 * a full disk (500), a database another process keeps locked (503, Retry-After).
 */
function internalError(reply: FastifyReply, error: unknown, dataDir: string): FastifyReply {
  const said = saidPlainly(error, dataDir);
  if (said instanceof TitularError) return sendError(reply, said.status, said.code, said.message, said.extras);
  return sendError(reply, 500, 'GE500', 'Internal error; quote the request_id to support');
}

/**
 * Closes a Fastify instance (this API or the startup gate's) within `graceMs`: it stops accepting
 * connections at once and closes the idle ones; requests in flight get `graceMs` to finish (each
 * answer sent meanwhile says `Connection: close`, a request arriving meanwhile gets 503); then every
 * connection still open is closed, answered or not: a client that sent half a request, a lookup still
 * waiting on its upstream. (Node stops its request timeouts when the server closes, so without this a
 * half-sent request would keep the close waiting for ever.) Resolves once the server is closed, with
 * `forced` when connections had to be closed.
 */
export async function closeHttpApi(app: FastifyInstance, graceMs: number): Promise<{ forced: boolean }> {
  let forced = false;
  const timer = setTimeout(() => {
    forced = true;
    app.server.closeAllConnections();
  }, graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
  }
  return { forced };
}

/** The path of a URL for logs and messages: no query string, and anything shaped like a key masked. */
function safePath(url: string): string {
  return maskKeys(url.split('?')[0] ?? '').slice(0, 200);
}

/** Fastify's request errors in words; `bodyLimit`, the route's, in bytes (16 KiB on the API). */
function publicMessage(error: FastifyError, bodyLimit: number | undefined): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      // Fastify's parser refuses prototype-poisoning keys with the same error, and gives no cause.
      return 'The request body is not valid JSON, or holds a __proto__ or constructor.prototype key (refused)';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return bodyLimit ? `The request body is too large: at most ${Math.round(bodyLimit / 1024)} KiB` : 'The request body is too large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported Content-Type; send application/json';
    default:
      return 'Malformed request';
  }
}

