// The desktop window loads the renderer from `app://titular/`, not from file://: a page on file://
// gets Electron's extra file privileges (it could read other local files, the database included, if
// a script were ever injected), and its origin names no folder the IPC and permission checks could
// trust. The scheme serves only the built renderer's files (renderer-file.ts), each with the CSP.
import { net, protocol } from 'electron';
import { statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { APP_SCHEME, rendererFile } from './renderer-file';

/** Before the app is ready: a standard, secure scheme (an origin of its own, modules and fetch work as on https). */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
}

/** Once the app is ready: answers `app://titular/<file>` from `rendererDir`, 404 for anything else. */
export function serveRenderer(rendererDir: string, contentSecurityPolicy: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const file = rendererFile(rendererDir, request.url);
    // Files only: a folder would get Chromium's directory listing, a missing file a network error.
    if (!file || !statSync(file, { throwIfNoEntry: false })?.isFile()) {
      return new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain', 'X-Content-Type-Options': 'nosniff' } });
    }
    const response = await net.fetch(pathToFileURL(file).href);
    const headers = new Headers(response.headers);
    headers.set('Content-Security-Policy', contentSecurityPolicy);
    headers.set('X-Content-Type-Options', 'nosniff');
    return new Response(response.body, { status: response.status, headers });
  });
}
