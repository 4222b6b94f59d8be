// `Expect: 100-continue` answered when a route starts reading the body, not on arrival. Node sends the
// interim 100 as soon as the headers are in, so a client about to upload 2 MB was told to go ahead and
// then refused with 413 (or 401, 403, 404, 429): the body the 100-continue handshake exists to spare
// crossed the socket anyway. Here the request goes to Fastify without the 100; Fastify authenticates,
// routes and compares Content-Length with the route's body limit first, and only a body that will be
// read gets its 100 Continue. Only requests that carry the header take this path: the lookups' hot
// path has no hook added.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export function continueOnRead(server: Server): void {
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    const read = request._read;
    request._read = function continueThenRead(this: IncomingMessage, size: number) {
      request._read = read;
      // Node also reads (drains) a body nobody took after a final answer: no 100 after that answer.
      if (!response.headersSent && !response.writableEnded) response.writeContinue();
      return read.call(this, size);
    };
    server.emit('request', request, response);
  });
}
