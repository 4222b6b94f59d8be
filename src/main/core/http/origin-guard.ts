// Requests that a web page made, from an origin nobody allowed. A browser cannot read the answer to
// such a request, but it still reaches the API: a page the user opens could probe for Titular on
// 127.0.0.1:8787, or send requests with made-up keys until the throttle of failed authentications
// (one bucket per address, and every local client shares 127.0.0.1) refuses the user's own tools.
// So the API's requests are refused before any key is read (server.ts; the browser-mode UI's page
// holds no secret, and its bridge wants a session token no page has). A browser says a request is a
// page's: with `Origin` (every cross-origin fetch and form, every POST) and with `Sec-Fetch-Site`
// (also an <img> or a no-cors fetch, which carry no Origin). Tools outside a browser send neither.
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Whether a request a browser may have sent can be served: not a page's, or one of an allowed origin,
 * or the browser-mode UI's own (same origin: its page is served by this server, under this Host).
 */
export function browserRequestAllowed(headers: IncomingHttpHeaders, allowedOrigins: ReadonlySet<string>): boolean {
  const origin = headers.origin;
  if (origin !== undefined) return allowedOrigins.has(origin) || origin === `http://${headers.host}`;
  const site = headers['sec-fetch-site'];
  // `none`: typed in the address bar or opened from a bookmark, as a person does, not a page.
  return site === undefined || site === 'same-origin' || site === 'none';
}
