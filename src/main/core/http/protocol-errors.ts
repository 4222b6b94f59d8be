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
