// `Expect: 100-continue` over a real socket: the interim 100 comes only for a body a route will read.
// A body over the limit, a bad key or a foreign Host is answered at once, without the 100 that would
// tell the client to upload what is then refused; a body that will be read gets its 100 first, and the
// lookup is answered (and charged once) after it arrives.
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from '../support/fixture';
import { DIR, DIRECTORY_CSV } from '../support/directory-data';
import { errorBodySchema } from '../../src/shared/api/common';
import { lookupResultSchema } from '../../src/shared/api/lookup';

let f: Fixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

async function listening(): Promise<{ fixture: Fixture; port: number; key: string }> {
  f = await createFixture({ credits: { cbu: 10 } });
  f.importDirectory(DIRECTORY_CSV);
  const key = f.createKey();
  await f.app.listen({ host: '127.0.0.1', port: 0 });
  return { fixture: f, port: (f.app.server.address() as AddressInfo).port, key };
}

interface Exchange {
  /** Everything the server sent, in order (latin1: one character per byte). */
  raw: string;
  /** Whether the body was sent: only after a 100 Continue. */
  bodySent: boolean;
}

/**
 * Sends the head, then the body only once the server says 100 Continue (as curl and browsers do);
 * resolves when a final answer's body is complete or the server closes.
 */
function exchange(port: number, head: string, body: string): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let raw = '';
    let bodySent = false;
    const timer = setTimeout(() => finish(new Error(`no final answer within 5 s: ${JSON.stringify(raw.slice(0, 300))}`)), 5_000);
    const finish = (error?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve({ raw, bodySent });
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      raw += chunk;
      if (!bodySent && raw.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
        bodySent = true;
        socket.write(body, 'latin1');
      }
      const final = raw.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
      const headEnd = final.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(final)?.[1];
      if (headEnd >= 0 && length !== undefined && final.length >= headEnd + 4 + Number(length)) finish();
    });
    socket.on('error', (error) => finish(error));
    socket.on('close', () => finish());
    socket.write(head, 'latin1');
  });
}

function finalAnswer(raw: string): { status: number; body: unknown } {
  const final = raw.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
  return { status: Number(final.split(' ')[1]), body: JSON.parse(final.slice(final.indexOf('\r\n\r\n') + 4)) };
}

const postHead = (path: string, headers: Record<string, string>, length: number) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n` +
  Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('') +
  `Content-Length: ${length}\r\n\r\n`;

describe('Expect: 100-continue', () => {
  it('a body over the 16 KiB limit is refused 413 at once, without a 100 Continue, and charges nothing', async () => {
    const { fixture, port, key } = await listening();
    const { raw, bodySent } = await exchange(port, postHead('/api/v1/lookup', { Authorization: `Bearer ${key}` }, 2 * 1024 * 1024), 'x');
    expect(raw).not.toContain('100 Continue');
    expect(bodySent).toBe(false);
    const answer = finalAnswer(raw);
    expect(answer.status).toBe(413);
    expect(errorBodySchema.parse(answer.body).error).toEqual({ code: 'INVALID_PARAMETER', message: 'The request body is too large: at most 16 KiB' });
    expect(fixture.balance('cbu')).toBe(10);
  });

  it('a request refused before its body is read (a bad key, a foreign Host) gets no 100 Continue', async () => {
    const { port, key } = await listening();
    const body = JSON.stringify({ identifier: DIR.company.cbu, type: 'cbu' });
    const badKey = await exchange(port, postHead('/api/v1/lookup', { Authorization: 'Bearer sk_live_not-a-key' }, body.length), body);
    expect(badKey.raw).not.toContain('100 Continue');
    expect(finalAnswer(badKey.raw).status).toBe(401);
    const foreignHost = await exchange(port, postHead('/api/v1/lookup', { Authorization: `Bearer ${key}` }, body.length).replace('Host: 127.0.0.1', 'Host: evil.example'), body);
    expect(foreignHost.raw).not.toContain('100 Continue');
    expect(finalAnswer(foreignHost.raw).status).toBe(403);
  });

  it('a body that will be read gets its 100 Continue first, then the lookup is answered and charged once', async () => {
    const { fixture, port, key } = await listening();
    const body = JSON.stringify({ identifier: DIR.company.cbu, type: 'cbu' });
    const { raw, bodySent } = await exchange(port, postHead('/api/v1/lookup', { Authorization: `Bearer ${key}` }, Buffer.byteLength(body)), body);
    expect(raw.startsWith('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n')).toBe(true);
    expect(bodySent).toBe(true);
    const answer = finalAnswer(raw);
    expect(lookupResultSchema.parse(answer.body).success).toBe(true);
    expect(fixture.balance('cbu')).toBe(9);
  });
});
