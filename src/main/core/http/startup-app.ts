// The server of the browser mode while the startup gate is closed (first-run setup, or a passphrase
// vault waiting for its passphrase): the UI, the three startup channels over the bridge, and a 503
// GE500 for everything else, including the API, until the core is open. It then hands its port to the
// full API (handOverToApi) without closing it, and keeps it for the process's life.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { asIpcResult } from '../ipc/ipc-result';
import type { StartupGate } from '../startup/startup-gate';
import { dispatchStartup, isStartupChannel } from '../ipc/startup-handlers';
import { sendError } from './error-reply';
import { closeHttpApi } from './server';
import { localFastify } from './local-fastify';
import { requestHostAllowed } from './host-guard';
import { registerStaticUi } from './static-ui';
import { sessionTokenOf, type BridgeSessions } from './bridge';
import type { IpcResult } from '../../../shared/ipc/contract';

const NO_EXTRA_HOSTS: ReadonlySet<string> = new Set();

export function buildStartupApp(gate: StartupGate, options: { rendererDir: string; sessions: BridgeSessions }): FastifyInstance {
  // The API's request timeouts and error bodies for malformed HTTP: while Titular is locked, this is
  // the server on the API's port, and a client that stops partway must not hold it (or its close).
  const app = localFastify();
  app.addHook('onRequest', async (request, reply) => {
    reply.header('Request-Id', request.id);
    if (!requestHostAllowed(request.raw, NO_EXTRA_HOSTS)) {
      return sendError(reply, 403, 'FORBIDDEN', 'The Host header must name this machine (127.0.0.1 or localhost)');
    }
  });
  registerStaticUi(app, options.rendererDir);

  app.post<{ Params: { channel: string } }>('/bridge/:channel', async (request, reply) => {
    const token = sessionTokenOf(request.headers.authorization);
    if (!token || !options.sessions.knows(token)) return sendError(reply, 401, 'UNAUTHORIZED', 'Missing or unknown desktop session');
    const channel = request.params.channel;
    const result: IpcResult<unknown> = isStartupChannel(channel)
      ? await asIpcResult(() => dispatchStartup(gate, channel, request.body))
      : { ok: false, error: { code: 'UNAUTHORIZED', message: 'Titular is locked: unlock it first', status: 401 } };
    return reply.header('Cache-Control', 'no-store').send(result);
  });

  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith('/api/')) {
      return sendError(reply, 503, 'GE500', 'Titular is locked; unlock it in the desktop UI', { headers: { 'Retry-After': '5' } });
    }
    return sendError(reply, 404, 'NOT_FOUND', 'Not found');
  });
  app.setErrorHandler((error: { statusCode?: number }, _request, reply) => {
    const status = typeof error.statusCode === 'number' && error.statusCode < 500 ? error.statusCode : 500;
    return sendError(reply, status, status === 500 ? 'GE500' : 'INVALID_PARAMETER', status === 500 ? 'Internal error' : 'Malformed request');
  });
  return app;
}

/**
 * The start-up server's port handed to the full API with no moment where nothing listens on it: once
 * it closed and the API listened again, a client connecting in between was refused, and another
 * process could take the port. The start-up server keeps its listening socket and its connections;
 * every request it receives from now on, on a new connection or on one already open (the page's), is
 * answered by `api`, which never listens itself. What a client meets before a route runs is the same
 * on both (local-fastify.ts: request timeouts, malformed HTTP, `Expect`); the API's keep-alive time
 * is taken over. A request that comes while `api` gets ready waits for it. Resolves once `api` answers
 * directly; rejects when it cannot get ready.
 */
export async function handOverToApi(startup: FastifyInstance, api: FastifyInstance): Promise<void> {
  const server = startup.server;
  // Fastify's `routing` is the handler it gave its server for each request.
  if (!server.listeners('request').includes(startup.routing)) throw new Error('The start-up server does not answer through its routing');
  // A promise of nothing: what api.ready() resolves with, the Fastify instance, is itself thenable.
  const ready = (async () => {
    await api.ready();
  })();
  const waitForApi = (request: IncomingMessage, response: ServerResponse) => {
    ready.then(() => api.routing(request, response)).catch(() => response.destroy());
  };
  server.off('request', startup.routing);
  server.on('request', waitForApi);
  server.keepAliveTimeout = api.server.keepAliveTimeout;
  await ready;
  server.off('request', waitForApi);
  server.on('request', api.routing);
}

/**
 * Closes a start-up server whose port went to `api` (handOverToApi) as closeHttpApi closes an API that
 * listens itself: the API's shutdown first (each answer from then on says `Connection: close`, a new
 * request gets its 503), then the port, whose requests in flight get `graceMs` to finish.
 */
export async function closeHandedOver(startup: FastifyInstance, api: FastifyInstance, graceMs: number): Promise<{ forced: boolean }> {
  // The API's own server never listened: this runs its preClose and onClose hooks, and returns at once.
  await api.close();
  return closeHttpApi(startup, graceMs);
}
