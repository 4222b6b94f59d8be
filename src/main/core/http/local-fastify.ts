// The Fastify both local servers are built on: the API (server.ts) and, while Titular is locked or not
// set up, the startup screen's server on the same port (startup-app.ts). What a client meets before a
// route runs is the same on both: request ids, a 16 KiB JSON-only body (its 100 Continue sent only
// once a route reads it), no HEAD, request timeouts, and the documented error body for HTTP that never
// reaches a route (protocol-errors.ts).
import Fastify, { type FastifyInstance } from 'fastify';
import { requestId } from '../db/ids';
import { continueOnRead } from './continue-on-read';
import { clientErrorReply, expectationFailedReply, frameworkErrorReply } from './protocol-errors';

/**
 * How long a client may take to send a request on this localhost API: its request line and headers
 * (Node's `headersTimeout`), and the whole request with its body (`requestTimeout`; the body is at
 * most 16 KB). A request not received in time gets the documented 408 (clientErrorReply). Node
 * checks them every `connectionsCheckingInterval`, so the 408 comes at most that much later. They
 * bound receiving the request only: a request already received (a remote lookup waiting on its
 * upstream) is not cut by them.
 */
export const REQUEST_TIMEOUTS = { headersMs: 10_000, requestMs: 30_000, checkEveryMs: 1_000 } as const;

/** What the API adds for itself (its graceful shutdown and keep-alive). */
export interface LocalFastifyOptions {
  keepAliveTimeout?: number;
  return503OnClosing?: boolean;
}

export function localFastify(options: LocalFastifyOptions = {}): FastifyInstance {
  const app = Fastify({
    logger: false,
    genReqId: () => requestId(),
    requestIdHeader: false,
    bodyLimit: 16 * 1024,
    trustProxy: false,
    // HEAD would run (and charge) a lookup whose answer the client never reads: only GET is served.
    exposeHeadRoutes: false,
    // Fastify's default (0) would switch Node's request timeout off: a client that stops partway
    // through a request would hold its connection, and a graceful close, for ever.
    requestTimeout: REQUEST_TIMEOUTS.requestMs,
    // Malformed HTTP and undecodable URLs get the documented error body too; a missing Host reaches
    // the Host guard (403) instead of Node's empty 400.
    clientErrorHandler: clientErrorReply,
    frameworkErrors: frameworkErrorReply,
    http: { requireHostHeader: false, headersTimeout: REQUEST_TIMEOUTS.headersMs, connectionsCheckingInterval: REQUEST_TIMEOUTS.checkEveryMs },
    ...options,
  });
  app.server.on('checkExpectation', expectationFailedReply);
  continueOnRead(app.server);
  // The API speaks JSON only: a text/plain body is answered 415 instead of being parsed as a string.
  app.removeContentTypeParser('text/plain');
  acceptEmptyJsonBody(app);
  return app;
}

/**
 * An empty body is no body, whatever its Content-Type says. Fastify refuses an empty body declared
 * `application/json` (400) while it lets one without the header through as no body, so the same
 * empty POST lookup was a malformed request (not charged) or a lookup with its fields missing
 * (PA006, charged, as the GET without parameters) depending on one header. Now it is the latter
 * either way. A body that is there is parsed by Fastify's own parser, which refuses `__proto__` and
 * `constructor.prototype` keys.
 */
function acceptEmptyJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // `parseAs: 'string'` hands over a string; the type also admits a Buffer.
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') done(null, undefined);
    else parseJson(request, text, done);
  });
}
