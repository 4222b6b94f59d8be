// Answers for requests that never reach a route, in the documented error body (decisions "Error
// body") instead of Fastify's or Node's own: bytes that are not HTTP, headers too large, a URL the
// router cannot decode, an Expect header Node cannot meet. None of them is a lookup, so none is charged.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { requestId } from '../db/ids';
import { errorBody, sendError } from './error-reply';

/** Fastify's `clientErrorHandler`: the parser gave up on the connection before a request existed. */
export function clientErrorReply(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has no one left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const [status, reason, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'The request line or headers are too large']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', 'The request was not received in time']
          : [400, 'Bad Request', 'Malformed HTTP request'];
    const id = requestId();
    const body = JSON.stringify(errorBody(id, 'INVALID_PARAMETER', message));
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nRequest-Id: ${id}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** Fastify's `frameworkErrors`: the router rejected the URL before any hook ran. */
export function frameworkErrorReply(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('Request-Id', request.id);
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    sendError(reply, 414, 'INVALID_PARAMETER', 'A path segment of the request URL is too long');
  } else {
    sendError(reply, 400, 'INVALID_PARAMETER', 'The request URL is not valid (bad percent-encoding)');
  }
}

/**
 * Node's `checkExpectation`: an `Expect` other than 100-continue, which Node would refuse with an
 * empty 417 of its own.
 */
export function expectationFailedReply(_request: IncomingMessage, response: ServerResponse): void {
  const id = requestId();
  const body = JSON.stringify(errorBody(id, 'INVALID_PARAMETER', 'Unsupported Expect header; only 100-continue is supported'));
  response.writeHead(417, { 'Request-Id': id, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}

/**
 * How long a client may take to send a request on this localhost API: its request line and headers
 * (Node's `headersTimeout`), and the whole request with its body (`requestTimeout`; the body is at
 * most 16 KB). A request not received in time gets the documented 408 (clientErrorReply). Node
 * checks them every `connectionsCheckingInterval`, so the 408 comes at most that much later. They
 * bound receiving the request only: a request already received (a remote lookup waiting on its
 * upstream) is not cut by them.
 */
export const REQUEST_TIMEOUTS = { headersMs: 10_000, requestMs: 30_000, checkEveryMs: 1_000 } as const;

/**
 * The Fastify options both local servers take (the API, and the startup gate's while Titular is
 * locked): the timeouts above — Fastify's default (0) would switch Node's request timeout off, and a
 * client that stops partway through a request would hold its connection, and a graceful close, for
 * ever — and the documented error body for malformed HTTP and undecodable URLs; a missing Host
 * reaches the Host guard (403) instead of Node's empty 400. Add `expectationFailedReply` as the
 * server's `checkExpectation` listener.
 */
export const LOCAL_PROTOCOL_OPTIONS = {
  requestTimeout: REQUEST_TIMEOUTS.requestMs,
  clientErrorHandler: clientErrorReply,
  frameworkErrors: frameworkErrorReply,
  http: { requireHostHeader: false, headersTimeout: REQUEST_TIMEOUTS.headersMs, connectionsCheckingInterval: REQUEST_TIMEOUTS.checkEveryMs },
} as const;
