// The desktop's IPC contract carried over HTTP, for the headless server's browser mode:
// `POST /bridge/<channel>` with `Authorization: Session <token>`. The token is random, handed to the
// page once at start (in the URL fragment, which is never sent to a server or logged), and compared
// in constant time. Answers are `{ ok: true, value }` or `{ ok: false, error }` like the preload's.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Titular } from '../titular';
import { TitularError } from '../errors';
import { dispatch, type IpcSession } from '../ipc/handlers';
import { sendError } from './error-reply';
import type { IpcResult } from '../../../shared/ipc/contract';

export class BridgeSessions {
  readonly #sessions: { digest: Buffer; userId: string }[] = [];

  /** How the vault is unlocked again after a lock, on this host (see IpcSession). */
  constructor(readonly unlockProvider?: IpcSession['unlockProvider']) {}

  /** Opens a session for a user and returns its token (shown once). */
  open(userId: string): string {
    const token = randomBytes(32).toString('base64url');
    this.#sessions.push({ digest: digest(token), userId });
    return token;
  }

  /** The user of a presented token, comparing against every session in constant time. */
  userOf(token: string): string | null {
    const presented = digest(token);
    let found: string | null = null;
    for (const session of this.#sessions) {
      if (timingSafeEqual(presented, session.digest)) found = session.userId;
    }
    return found;
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

export function registerBridge(app: FastifyInstance, titular: Titular, sessions: BridgeSessions): void {
  app.post<{ Params: { channel: string } }>('/bridge/:channel', async (request, reply) => {
    const match = /^Session ([A-Za-z0-9_-]{20,100})$/.exec(request.headers.authorization ?? '');
    const userId = match?.[1] ? sessions.userOf(match[1]) : null;
    if (!userId) return sendError(reply, 401, 'UNAUTHORIZED', 'Missing or unknown desktop session');
    let result: IpcResult<unknown>;
    try {
      result = { ok: true, value: await dispatch(titular, { userId, unlockProvider: sessions.unlockProvider }, request.params.channel, request.body) };
    } catch (error) {
      if (!(error instanceof TitularError)) throw error;
      result = { ok: false, error: { code: error.code, message: error.message, status: error.status } };
    }
    return reply.header('Cache-Control', 'no-store').send(result);
  });
}
