// Where and for whom the localhost API listens, from a flag or an environment variable: the port,
// and the browser origins allowed to call it (CORS). Shared by `serve` (a bad value: exit 2) and the
// desktop (a bad value: its start-up error box), so both read TITULAR_PORT and TITULAR_ALLOW_ORIGINS alike.

import { readWholeNumber } from '../whole-number';

/** A value that cannot be used; the message names the flag or variable it came from. */
export class ListenConfigError extends Error {}

/**
 * A port (0 picks a free one) from `raw`, read from `from` (`--port`, `TITULAR_PORT`), refused in the
 * words of every number a person gives (whole-number.ts): "TITULAR_PORT must be from 0 to 65535 (got 70000)".
 */
export function parsePort(raw: string, from: string): number {
  const port = readWholeNumber(raw, from, { min: 0, max: 65535, separators: false });
  if (!port.ok) throw new ListenConfigError(port.message);
  return port.value;
}

/**
 * Browser origins allowed to call the API, each `http(s)://host[:port]`, kept as a browser sends it
 * in `Origin` (`HTTP://Tool.local:80/` is `http://tool.local`). `values` are the flag's repetitions or the
 * variable split at commas and spaces. A wildcard is refused: any web page the user opens could then
 * use a key it learned, and the DNS-rebinding guard (the Host check) would be all that is left.
 */
export function parseAllowedOrigins(values: readonly string[], from: string): string[] {
  const origins: string[] = [];
  for (const value of values.flatMap((v) => v.split(/[\s,]+/)).filter((v) => v !== '')) {
    if (value === '*' || value === 'null') throw new ListenConfigError(`${from}: ${value} is not allowed; name each origin, e.g. http://localhost:3000`);
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new ListenConfigError(`${from}: ${value} is not an origin (scheme://host[:port], e.g. http://localhost:3000)`);
    }
    const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password && !value.endsWith('#') && !value.endsWith('?');
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !bare) {
      throw new ListenConfigError(`${from}: ${value} is not an origin (scheme://host[:port] with http or https, no path, e.g. http://localhost:3000)`);
    }
    if (!origins.includes(url.origin)) origins.push(url.origin);
  }
  return origins;
}
