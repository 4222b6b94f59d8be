// A fixture whose app serves the desktop's IPC bridge (browser mode), with a session per user, and
// the call a screen makes through it: POST /bridge/<channel> with a session token.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BridgeSessions } from '../../src/main/core/http/bridge';
import { headlessKeyProvider } from '../../src/main/headless/config';
import { createFixture, type Fixture, type FixtureOptions } from './fixture';

export interface BridgeFixture extends Fixture {
  adminToken: string;
  operatorToken: string;
  /** A bridge call with a session token (the admin's unless given; null: none), answered as status and body. */
  call(channel: string, input: unknown, token?: string | null): Promise<{ status: number; body: any }>;
  /** `call` that must succeed (200, `ok: true`): its value; anything else throws with the answer. */
  value(channel: string, input: unknown, token?: string | null): Promise<any>;
}

export async function createBridgeFixture(options: Omit<FixtureOptions, 'ui'> = {}): Promise<BridgeFixture> {
  const rendererDir = mkdtempSync(path.join(os.tmpdir(), 'titular-ui-'));
  mkdirSync(path.join(rendererDir, 'assets'));
  writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Titular</title><script type="module" src="/assets/app.js"></script>');
  writeFileSync(path.join(rendererDir, 'assets', 'app.js'), 'console.log("ui")');
  let dataDir = '';
  const sessions = new BridgeSessions((kind) => headlessKeyProvider(dataDir, {})(kind));
  const f = await createFixture({ ...options, ui: { rendererDir, sessions } });
  dataDir = f.dataDir;
  const adminToken = sessions.open(f.adminId);
  const call: BridgeFixture['call'] = async (channel, input, token = adminToken) => {
    const res = await f.app.inject({
      method: 'POST',
      url: `/bridge/${channel}`,
      headers: { ...(token ? { authorization: `Session ${token}` } : {}), 'content-type': 'application/json' },
      payload: JSON.stringify(input),
    });
    return { status: res.statusCode, body: res.json() };
  };
  const value: BridgeFixture['value'] = async (channel, input, token) => {
    const { status, body } = await call(channel, input, token);
    if (status !== 200 || body.ok !== true) throw new Error(`${channel} answered ${status}: ${JSON.stringify(body)}`);
    return body.value;
  };
  return Object.assign(f, { adminToken, operatorToken: sessions.open(f.operatorId), call, value });
}
