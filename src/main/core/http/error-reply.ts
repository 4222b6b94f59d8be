// Every non-2xx answer of every endpoint has the same body (decisions "Error body").
import type { FastifyReply } from 'fastify';
import type { ErrorBody, ErrorCode } from '../../../shared/api/common';
import { maskKeys } from '../keys/secrets';

export function errorBody(requestId: string, code: ErrorCode, message: string, creditsRemaining?: number): ErrorBody {
  return {
    success: false,
    // A message may quote the request (a parameter's name, a path); a key quoted there is masked
    // here, once for every error of every endpoint (decisions "Keys": no plaintext key in an error).
    error: { code, message: maskKeys(message) },
    ...(creditsRemaining === undefined ? {} : { credits_remaining: creditsRemaining }),
    request_id: requestId,
  };
}

export function sendError(
  reply: FastifyReply,
  status: number,
  code: ErrorCode,
  message: string,
  extras: { creditsRemaining?: number; headers?: Record<string, string> } = {},
): FastifyReply {
  if (extras.headers) reply.headers(extras.headers);
  return reply.code(status).send(errorBody(reply.request.id, code, message, extras.creditsRemaining));
}
