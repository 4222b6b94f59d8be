// GET /api/v1/openapi.json. Served without authentication: the document describes the API and holds
// no data of the organization (no keys, balances or lookups), and client generators fetch it before
// they have a key. The server-wide onRequest hook still applies (Host guard, Request-Id, shutdown).
import type { FastifyInstance } from 'fastify';
import { OPENAPI_PATH, openApiJson } from './document';

export function registerOpenApiRoute(app: FastifyInstance): void {
  // Generated here, at startup, once per process; each request sends the same string.
  const json = openApiJson();
  app.get(OPENAPI_PATH, async (_request, reply) =>
    reply.header('Cache-Control', 'no-cache').type('application/json; charset=utf-8').send(json),
  );
}
