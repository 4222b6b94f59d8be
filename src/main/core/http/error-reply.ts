// Every non-2xx answer of every endpoint has the same body (decisions "Error body").
import type { FastifyReply } from 'fastify';
import type { ErrorBody, ErrorCode } from '../../../shared/api/common';

export function errorBody(requestId: string, code: ErrorCode, message: string, creditsRemaining?: number): ErrorBody {
  return {
    success: false,
    error: { code, message },
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
