// The Electron shell's IPC sender check (src/main/electron/trusted-sender.ts), on plain Node.
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { trustedSender } from '../src/main/electron/trusted-sender';

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
