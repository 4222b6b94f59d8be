// DNS-rebinding guard: a page on evil.example that resolves its name to 127.0.0.1 still sends
// `Host: evil.example`, so only loopback names (and the configured extra hosts) are served.
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export function hostAllowed(hostHeader: string | undefined, extraHosts: ReadonlySet<string>): boolean {
  if (!hostHeader) return false;
  const host = hostHeader.trim().toLowerCase();
  // Strip a port: "[::1]:8787" → "[::1]", "localhost:8787" → "localhost".
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
  if (LOOPBACK_HOSTS.has(name) || extraHosts.has(name)) return true;
  return /^127(\.\d{1,3}){3}$/.test(name);
}
