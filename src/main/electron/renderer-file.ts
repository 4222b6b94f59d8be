// Which built renderer file an `app://titular/…` URL names (the desktop window's own scheme, see
// app-protocol.ts). Only files inside the renderer's folder: a path that climbs out of it, another
// host or an undecodable path names nothing. No Electron import: the rule is tested on plain Node.
import path from 'node:path';

export const APP_SCHEME = 'app';
export const APP_HOST = 'titular';
/** The window's origin; what the IPC sender check and the permission check trust. */
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

export function rendererFile(rendererDir: string, url: string): string | null {
  let parsed: URL;
  let pathname: string;
  try {
    parsed = new URL(url);
    pathname = decodeURIComponent(parsed.pathname);
  } catch {
    return null;
  }
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST) return null;
  const root = path.resolve(rendererDir);
  const file = path.resolve(root, `.${pathname === '/' || pathname === '' ? '/index.html' : pathname}`);
  const relative = path.relative(root, file);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return null;
  return file;
}
