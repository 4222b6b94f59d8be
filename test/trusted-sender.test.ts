// The Electron shell's IPC sender check (src/main/electron/trusted-sender.ts) and the files its app://
// scheme serves (renderer-file.ts), on plain Node.
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { trustedSender } from '../src/main/electron/trusted-sender';
import { APP_ORIGIN, rendererFile } from '../src/main/electron/renderer-file';

describe('IPC sender check', () => {
  const rendererDir = '/opt/Titular/resources/app/out/renderer';
  const folder = pathToFileURL(rendererDir).href; // no trailing slash, as the shell builds it
  const trusted = trustedSender([folder, 'http://localhost:5173/']);

  it('admits the top frame of the app\'s own pages', () => {
    expect(trusted(`${folder}/index.html`, true)).toBe(true);
    expect(trusted(`${folder}/index.html#/keys`, true)).toBe(true);
    expect(trusted('http://localhost:5173/index.html', true)).toBe(true);
  });

  it('refuses sibling folders and files that only share the folder\'s name as a prefix, subframes and other origins', () => {
    expect(trusted(`${folder}-x/evil.html`, true)).toBe(false);
    expect(trusted(`${folder}.html`, true)).toBe(false);
    expect(trusted(`${folder}/index.html`, false)).toBe(false);
    expect(trusted('http://localhost:51730/index.html', true)).toBe(false);
    expect(trusted('https://evil.example/index.html', true)).toBe(false);
  });
});

describe('app://titular/ serves the built renderer only', () => {
  const rendererDir = path.resolve('/opt/Titular/resources/app/out/renderer');
  const file = (url: string) => rendererFile(rendererDir, url);

  it('maps the window\'s URLs to files of the renderer folder', () => {
    expect(file(`${APP_ORIGIN}/`)).toBe(path.join(rendererDir, 'index.html'));
    expect(file(`${APP_ORIGIN}/index.html#/claves`)).toBe(path.join(rendererDir, 'index.html'));
    expect(file(`${APP_ORIGIN}/assets/index-abc.js`)).toBe(path.join(rendererDir, 'assets', 'index-abc.js'));
    expect(file(`${APP_ORIGIN}/assets/a%20b.css?v=1`)).toBe(path.join(rendererDir, 'assets', 'a b.css'));
  });

  it('names nothing outside it: climbing out (plain or encoded), another host or scheme, an undecodable path', () => {
    for (const url of [
      `${APP_ORIGIN}/../titular.db`,
      `${APP_ORIGIN}/%2e%2e/%2e%2e/data/titular.db`,
      `${APP_ORIGIN}/assets/..%2f..%2f..%2fmaster.key`,
      `${APP_ORIGIN}/..%5c..%5cmaster.key`,
      'app://other/index.html',
      'file:///opt/Titular/resources/app/out/renderer/index.html',
      `${APP_ORIGIN}/%E0%A4%A`,
    ]) {
      const found = file(url);
      expect(found === null || found.startsWith(`${rendererDir}${path.sep}`), url).toBe(true);
    }
    expect(file(`${APP_ORIGIN}/../titular.db`)).toBe(path.join(rendererDir, 'titular.db')); // the URL parser drops the '..'
    expect(file(`${APP_ORIGIN}/assets/..%2f..%2f..%2fmaster.key`)).toBeNull();
    expect(file('app://other/index.html')).toBeNull();
    expect(file(`${APP_ORIGIN}/%E0%A4%A`)).toBeNull();
  });

  it('the sender check trusts the scheme\'s origin as a folder', () => {
    const trusted = trustedSender([`${APP_ORIGIN}/`]);
    expect(trusted(`${APP_ORIGIN}/index.html#/consulta`, true)).toBe(true);
    expect(trusted('app://titular.evil/index.html', true)).toBe(false);
    expect(trusted(`${APP_ORIGIN}/index.html`, false)).toBe(false);
  });
});
