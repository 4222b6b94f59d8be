// DNS-rebinding guard: a page on evil.example that resolves its name to 127.0.0.1 still sends
// `Host: evil.example`, so only loopback names (and the configured extra hosts) are served.
import type { IncomingMessage } from 'node:http';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export function hostAllowed(hostHeader: string | undefined, extraHosts: ReadonlySet<string>): boolean {
  if (!hostHeader) return false;
  const host = hostHeader.trim().toLowerCase();
  // Strip a port: "[::1]:8787" → "[::1]", "localhost:8787" → "localhost". A bracketed name must be
  // followed by nothing or a port, so "[::1].evil.example" is not read as "[::1]".
  const bracketed = /^(\[[^\]]*\])(?::\d+)?$/.exec(host);
  const name = host.startsWith('[') ? (bracketed?.[1] ?? '') : host.replace(/:\d+$/, '');
  if (LOOPBACK_HOSTS.has(name) || extraHosts.has(name)) return true;
  return /^127(\.\d{1,3}){3}$/.test(name);
}

/**
 * The whole request, not just its Host header: exactly one Host line (Node keeps the first of
 * several, which would let a second, foreign one slip by), and a request target in absolute form
 * (`GET http://evil.example/…`, which HTTP says overrides Host) must name this machine too.
 */
export function requestHostAllowed(request: IncomingMessage, extraHosts: ReadonlySet<string>): boolean {
  let hostLines = 0;
  const raw = request.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') hostLines++;
  }
  if (hostLines !== 1 || !hostHeaderAllowed(request.headers.host, extraHosts)) return false;
  const target = request.url ?? '/';
  if (target.startsWith('/')) return true;
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(target)?.[1];
  return authority !== undefined && hostAllowed(authority.replace(/^.*@/, ''), extraHosts);
}

/**
 * hostAllowed for the Host header of every request, remembered per set of extra hosts: a client sends
 * the same few values again and again. Bounded, since the values are the client's to choose.
 */
const decidedHosts = new WeakMap<ReadonlySet<string>, Map<string, boolean>>();
const DECIDED_HOSTS_LIMIT = 64;

function hostHeaderAllowed(hostHeader: string | undefined, extraHosts: ReadonlySet<string>): boolean {
  if (!hostHeader) return false;
  let decided = decidedHosts.get(extraHosts);
  if (!decided) decidedHosts.set(extraHosts, (decided = new Map()));
  let allowed = decided.get(hostHeader);
  if (allowed === undefined) {
    allowed = hostAllowed(hostHeader, extraHosts);
    if (decided.size >= DECIDED_HOSTS_LIMIT) decided.clear();
    decided.set(hostHeader, allowed);
  }
  return allowed;
}

/** How many Host values have a remembered verdict for this set of extra hosts (for tests). */
export function rememberedHostVerdicts(extraHosts: ReadonlySet<string>): number {
  return decidedHosts.get(extraHosts)?.size ?? 0;
}
