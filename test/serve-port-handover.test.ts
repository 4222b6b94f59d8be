// `serve --ui` on a locked passphrase vault, as a process: the start-up screen's server holds the port,
// and once the vault is unlocked the full API answers there with no moment where nothing listens.
// The port used to be closed by the start-up server and then listened on again by the API: a client
// connecting in between was refused (ECONNREFUSED), and another process could take the port, leaving
// the server unable to listen. Here new connections are opened to 127.0.0.1 all through the unlock,
// a few at a time, and every one of them is answered (503 by the locked start-up server, then 200 by
// the API); a connection opened before the unlock is answered by the API after it; the API's Host
// guard applies; and the server still stops cleanly.
import http from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startServer } from './support/processes';
import { tempDirsOf } from './support/temp-dirs';

const PASSPHRASE = 'frase de prueba para el traspaso';
const tempDir = tempDirsOf('titular-handover-');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

interface Answer {
  status?: number;
  error?: string;
  body: string;
  reusedSocket: boolean;
}

/** One GET to 127.0.0.1 (a new connection unless `agent` has one), answered or failed within 10 s. */
function get(port: number, urlPath: string, options: { agent?: http.Agent; host?: string } = {}): Promise<Answer> {
  return new Promise((resolve) => {
    const request = http.get(
      { host: '127.0.0.1', port, path: urlPath, agent: options.agent ?? false, headers: { host: options.host ?? `127.0.0.1:${port}` }, timeout: 10_000 },
      (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode, body, reusedSocket: request.reusedSocket }));
      },
    );
    request.on('timeout', () => request.destroy(new Error('no answer within 10 s')));
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message, body: '', reusedSocket: request.reusedSocket }));
  });
}

/** POSTs a desktop channel over the browser mode's bridge, as the page does. */
async function bridge(origin: string, token: string, channel: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${origin}/bridge/${channel}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Session ${token}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

describe('serve --ui: unlocking hands the port from the start-up screen to the API', { timeout: 90_000 }, () => {
  it('never refuses a connection during the unlock, and the API answers on the same port afterwards', async () => {
    const dataDir = path.join(tempDir(), 'data');
    const init = await runCli(['init', '--org', 'Acme', '--admin-name', 'Ada', '--admin-email', 'ada@acme.test', '--data-dir', dataDir], {
      env: { TITULAR_PASSPHRASE: PASSPHRASE },
    });
    expect(init.code, init.stderr).toBe(0);

    // No TITULAR_PASSPHRASE (startServer clears it): the vault stays locked and the start-up screen serves.
    const server = await startServer(['--ui', '--port', '0', '--data-dir', dataDir]);
    const port = Number(new URL(server.url).port);
    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let polling = true;
    const answers: Answer[] = [];
    const pollers: Promise<void>[] = [];
    try {
      await until(() => /#session=[A-Za-z0-9_-]+/.test(server.output()), 'the session link');
      const token = /#session=([A-Za-z0-9_-]+)/.exec(server.output())![1]!;
      expect(server.output()).toContain('Titular is locked or not set up yet');

      // A connection the page already has (keep-alive), opened while Titular is locked.
      const before = await get(port, '/api/v1/openapi.json', { agent: keepAlive });
      expect(before.status, before.error).toBe(503);

      // Three loops, each opening a new connection to 127.0.0.1 every 2 ms or so, until the API has
      // answered for a while: whatever moment the handover happens at, connections are being made.
      for (let i = 0; i < 3; i++) {
        pollers.push(
          (async () => {
            while (polling) {
              answers.push(await get(port, '/api/v1/openapi.json'));
              await sleep(2);
            }
          })(),
        );
      }
      await until(() => answers.length >= 30, 'the first polls');

      const unlocked = await bridge(server.url, token, 'startup.unlock', { passphrase: PASSPHRASE });
      expect(unlocked.status).toBe(200);
      expect(unlocked.json).toMatchObject({ ok: true, value: { phase: 'ready' } });
      // Polling goes on until the API has answered, then for 300 more connections and at least 300 ms.
      // (Bounded: the old handover waited for the unlock's own keep-alive connection to end before
      // the API listened, refusing every connection meanwhile.)
      const deadline = Date.now() + 15_000;
      while (!answers.some((a) => a.status === 200) && Date.now() < deadline) await sleep(10);
      const seen = answers.length;
      const since = Date.now();
      await until(() => answers.length >= seen + 300 && Date.now() - since >= 300, 'the polls after the unlock');
      polling = false;
      await Promise.all(pollers);

      const failed = new Map<string, number>();
      for (const a of answers) if (a.error !== undefined) failed.set(a.error, (failed.get(a.error) ?? 0) + 1);
      // Before, e.g. { ECONNREFUSED: 14109, ECONNRESET: 1 } out of 14147: the API never listened while
      // the page's connection (here fetch's, keep-alive) held the start-up server's close.
      expect(Object.fromEntries(failed), `failed connections out of ${answers.length}`).toEqual({});
      const statuses = answers.map((a) => a.status);
      // Locked (the start-up server's 503), then the API's 200, and nothing else in between.
      expect(statuses[0]).toBe(503);
      expect(statuses.at(-1)).toBe(200);
      expect(new Set(statuses)).toEqual(new Set([503, 200]));
      expect(server.output()).toContain(`Titular unlocked; API listening on http://127.0.0.1:${port}`);

      // The connection opened while locked is now answered by the API.
      const after = await get(port, '/api/v1/openapi.json', { agent: keepAlive });
      expect(after.status, after.error).toBe(200);
      expect(JSON.parse(after.body)).toMatchObject({ openapi: expect.any(String) });
      // The API's guards apply on the handed-over port: a foreign Host is refused.
      const foreign = await get(port, '/api/v1/openapi.json', { host: 'evil.example' });
      expect(foreign.status).toBe(403);
      expect(JSON.parse(foreign.body)).toMatchObject({ success: false, error: { code: 'FORBIDDEN' } });
      // The page's session is signed in now: a channel the start-up server refused answers.
      const session = await bridge(server.url, token, 'session.get', {});
      expect(session.status).toBe(200);
      expect(session.json).toMatchObject({ ok: true, value: { user: { email: 'ada@acme.test' } } });
    } finally {
      polling = false;
      await Promise.all(pollers);
      keepAlive.destroy();
      const code = await server.stop();
      expect(code, server.output()).toBe(0);
    }
    expect(server.output()).toContain('Titular stopped');
  });
});
