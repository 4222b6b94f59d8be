// The renderer's transport: one object implementing `TitularApi`. Inside Electron the preload exposes
// `window.titular` (one function per channel, each answering an `IpcResult`); in a browser served by
// the headless server the same channels are reached over `POST /bridge/<channel>`. Either way the
// result is unwrapped here: `ok: false` becomes a thrown `IpcCallError`, so React Query sees errors.
import type { z } from 'zod';
import {
  CHANNELS,
  ipcContract,
  type Channel,
  type ChannelInput,
  type ChannelOutput,
  type IpcResult,
  type PreloadApi,
  type TitularApi,
} from '../../../shared/ipc/contract';

declare global {
  interface Window {
    titular?: Partial<PreloadApi> & { version?: string };
  }
}

/** Codes the transport adds to the API's own: the server could not be reached at all. */
export type ClientErrorCode = 'NETWORK';

/** An error answer of a channel (or of the transport), as React Query sees it. */
export class IpcCallError extends Error {
  override name = 'IpcCallError';
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    /** Credits left, when the answer said so (lookups). */
    readonly creditsRemaining?: number,
  ) {
    super(message);
  }
}

export function isIpcCallError(error: unknown): error is IpcCallError {
  return error instanceof IpcCallError;
}

// ---------------------------------------------------------------------------------------------
// Session token of the HTTP bridge: handed over once in `#session=<token>`, then kept in
// sessionStorage and removed from the address bar (it must not end up in bookmarks or screenshots).

const SESSION_STORAGE_KEY = 'titular.session';

function takeSessionToken(): string | null {
  if (typeof window === 'undefined') return null;
  const match = /(?:^#|[#&])session=([^&]+)/.exec(window.location.hash);
  if (match?.[1]) {
    const token = decodeURIComponent(match[1]);
    try {
      window.sessionStorage.setItem(SESSION_STORAGE_KEY, token);
    } catch {
      // storage disabled: keep the token in memory only
    }
    window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}`);
    return token;
  }
  try {
    return window.sessionStorage.getItem(SESSION_STORAGE_KEY);
  } catch {
    return null;
  }
}

let sessionToken: string | null = takeSessionToken();

/** Whether the app runs inside Electron with the preload's channels. */
export function hasPreload(): boolean {
  return typeof window !== 'undefined' && typeof window.titular?.['session.get'] === 'function';
}

export function hasSessionToken(): boolean {
  return sessionToken !== null;
}

// ---------------------------------------------------------------------------------------------

type AnyResult = IpcResult<unknown>;

async function viaPreload(channel: Channel, input: unknown): Promise<AnyResult> {
  const fn = window.titular?.[channel] as ((input: unknown) => Promise<AnyResult>) | undefined;
  if (typeof fn !== 'function') throw new IpcCallError('NETWORK', `The desktop bridge does not expose ${channel}`, 0);
  return fn(input);
}

async function viaHttpBridge(channel: Channel, input: unknown): Promise<AnyResult> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (sessionToken !== null) headers.Authorization = `Session ${sessionToken}`;
  let response: Response;
  try {
    response = await fetch(`/bridge/${channel}`, { method: 'POST', headers, body: JSON.stringify(input), cache: 'no-store' });
  } catch (error) {
    throw new IpcCallError('NETWORK', error instanceof Error ? error.message : 'Network error', 0);
  }
  if (response.status === 401) {
    sessionToken = null;
    try {
      window.sessionStorage.removeItem(SESSION_STORAGE_KEY);
    } catch {
      // ignore
    }
    throw new IpcCallError('UNAUTHORIZED', 'The session token was rejected', 401);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new IpcCallError('GE500', `Unexpected answer from the server (HTTP ${response.status})`, response.status || 500);
  }
  if (body && typeof body === 'object' && 'ok' in body) return body as AnyResult;
  // Anything in front of the bridge (host guard, unknown route) answers the API's error body.
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (error && typeof error.code === 'string') {
    throw new IpcCallError(error.code, typeof error.message === 'string' ? error.message : `HTTP ${response.status}`, response.status);
  }
  throw new IpcCallError('GE500', `Unexpected answer from the server (HTTP ${response.status})`, response.status || 500);
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

async function call<C extends Channel>(channel: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  const schema = ipcContract[channel].input as unknown as z.ZodType;
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new IpcCallError('INVALID_PARAMETER', describeIssues(parsed.error), 400);
  const result = hasPreload() ? await viaPreload(channel, parsed.data) : await viaHttpBridge(channel, parsed.data);
  if (!result.ok) {
    const { code, message, status } = result.error;
    throw new IpcCallError(code, message, status);
  }
  return result.value as ChannelOutput<C>;
}

/** The renderer's `TitularApi`: every channel, validated, sent, and unwrapped. */
export const api: TitularApi = Object.fromEntries(
  CHANNELS.map((channel) => [channel, (input: unknown) => call(channel, input as ChannelInput<typeof channel>)]),
) as unknown as TitularApi;
