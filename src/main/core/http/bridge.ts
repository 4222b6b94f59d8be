// The desktop's IPC contract carried over HTTP, for the headless server's browser mode:
// `POST /bridge/<channel>` with `Authorization: Session <token>`. The token is random, handed to the
// page once at start (in the URL fragment, which is never sent to a server or logged), and compared
// in constant time. Answers are `{ ok: true, value }` or `{ ok: false, error }` like the preload's.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Titular } from '../titular';
import { dispatch, type IpcSession } from '../ipc/handlers';
import { asIpcResult } from '../ipc/ipc-result';
import { sendError } from './error-reply';
import { VaultAutoLock } from '../vault/auto-lock';

export class BridgeSessions {
  readonly #sessions: { digest: Buffer; userId: string }[] = [];
  readonly #pending: Buffer[] = [];

  /** What the settings screen shows about this host; the server sets the port once it listens. */
  settingsHost: NonNullable<IpcSession['settingsHost']> = {};

  /** How the vault is unlocked again after a lock, on this host (see IpcSession). */
  constructor(readonly unlockProvider?: IpcSession['unlockProvider']) {}

  /** Opens a session for a user and returns its token (shown once). */
  open(userId: string): string {
    const token = newSessionToken();
    this.#sessions.push({ digest: digest(token), userId });
    return token;
  }

  /**
   * Binds a token handed out before anyone could sign in (the startup gate's page) to the user the
   * session belongs to once the core is open, so the page keeps working without a new URL.
   */
  bind(token: string, userId: string): void {
    this.#sessions.push({ digest: digest(token), userId });
  }

  /** Whether a token was handed out (bound or still pending). */
  knows(token: string): boolean {
    const presented = digest(token);
    let found = false;
    for (const pending of this.#pending) if (timingSafeEqual(presented, pending)) found = true;
    return found || this.userOf(token) !== null;
  }

  /** A token for the startup gate's page; `bind` gives it its user later. */
  openPending(): string {
    const token = newSessionToken();
    this.#pending.push(digest(token));
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

function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The token of an `Authorization: Session <token>` header, or null. */
export function sessionTokenOf(authorization: string | undefined): string | null {
  return /^Session ([A-Za-z0-9_-]{20,100})$/.exec(authorization ?? '')?.[1] ?? null;
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** A bulk job's pasted list or CSV (bulk-contract.ts MAX_BULK_CONTENT_CHARS) travels in one call. */
const BRIDGE_BODY_LIMIT = 10 * 1024 * 1024;

export function registerBridge(app: FastifyInstance, titular: Titular, sessions: BridgeSessions): void {
  // The browser mode locks an idle vault as the desktop window does (vault/auto-lock.ts).
  const autoLock = new VaultAutoLock(titular);
  app.addHook('onClose', (_instance, done) => {
    autoLock.stop();
    done();
  });
  const sessionUser = (authorization: string | undefined) => {
    const token = sessionTokenOf(authorization);
    return token ? sessions.userOf(token) : null;
  };
  // The session is checked before the (larger than the API's) body is read.
  const onRequest = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!sessionUser(request.headers.authorization)) return sendError(reply, 401, 'UNAUTHORIZED', 'Missing or unknown desktop session');
  };
  app.post<{ Params: { channel: string } }>('/bridge/:channel', { bodyLimit: BRIDGE_BODY_LIMIT, onRequest }, async (request, reply) => {
    const userId = sessionUser(request.headers.authorization);
    if (!userId) return sendError(reply, 401, 'UNAUTHORIZED', 'Missing or unknown desktop session');
    const session = { userId, unlockProvider: sessions.unlockProvider, settingsHost: sessions.settingsHost };
    const result = await asIpcResult(() => dispatch(titular, session, request.params.channel, request.body), titular.dataDir);
    // Once the call is done: the idle time counts from then, with a new setting the call may have saved.
    autoLock.called(request.params.channel);
    return reply.header('Cache-Control', 'no-store').send(result);
  });
}
