// Serves the built renderer (out/renderer) from memory for the headless server's browser mode, with
// the same strict Content-Security-Policy as the desktop window.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

export const UI_CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

export function registerStaticUi(app: FastifyInstance, rendererDir: string): void {
  const files = new Map<string, { body: Buffer; type: string }>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else files.set(`/${path.relative(rendererDir, full).split(path.sep).join('/')}`, { body: readFileSync(full), type: TYPES[path.extname(name)] ?? 'application/octet-stream' });
    }
  };
  walk(rendererDir);
  const index = files.get('/index.html');
  if (!index) throw new Error(`No index.html in ${rendererDir}: run the build first`);

  const headers = {
    'Content-Security-Policy': UI_CSP,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
  };
  app.get('/', async (_request, reply) => reply.headers({ ...headers, 'Cache-Control': 'no-store' }).type(index.type).send(index.body));
  app.get('/assets/*', async (request, reply) => {
    const file = files.get(request.url.split('?')[0] ?? '');
    if (!file) return reply.callNotFound();
    return reply.headers({ ...headers, 'Cache-Control': 'public, max-age=31536000, immutable' }).type(file.type).send(file.body);
  });
}
