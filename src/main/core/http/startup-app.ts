// The server of the browser mode while the startup gate is closed (first-run setup, or a passphrase
// vault waiting for its passphrase): the UI, the three startup channels over the bridge, and a 503
// GE500 for everything else, including the API, until the core is open. serve.ts then closes it and
// listens with the full API on the same port.
import type { FastifyInstance } from 'fastify';
import { asIpcResult } from '../ipc/ipc-result';
import type { StartupGate } from '../startup/startup-gate';
import { dispatchStartup, isStartupChannel } from '../ipc/startup-handlers';
import { sendError } from './error-reply';
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
