// The API's port and CORS origins as serve and the desktop read them from a flag or the environment
// (core/http/listen-config.ts); the servers' use of them is tested as processes (server-process.test.ts).
import { describe, expect, it } from 'vitest';
import { ListenConfigError, parseAllowedOrigins, parsePort } from '../src/main/core/http/listen-config';

describe('parsePort', () => {
  it('takes 0 to 65535, and nothing else, naming where the value came from', () => {
    expect(parsePort('8787', 'TITULAR_PORT')).toBe(8787);
    expect(parsePort('0', '--port')).toBe(0);
    expect(parsePort(' 9000 ', '--port')).toBe(9000);
    // In the words of every number a person gives (core/whole-number.ts), which serve and the desktop say.
    const refusals: [string, string][] = [
      ['', 'TITULAR_PORT must be a whole number (got "")'],
      [' ', 'TITULAR_PORT must be a whole number (got " ")'],
      ['http', 'TITULAR_PORT must be a whole number (got "http")'],
      ['80.5', 'TITULAR_PORT must be a whole number (got "80.5")'],
      ['1e3', 'TITULAR_PORT must be a whole number (got "1e3")'],
      ['-1', 'TITULAR_PORT must be from 0 to 65535 (got -1)'],
      ['65536', 'TITULAR_PORT must be from 0 to 65535 (got 65536)'],
      ['99999999999999999999', 'TITULAR_PORT must be from 0 to 65535 (got 99999999999999999999)'],
    ];
    for (const [bad, message] of refusals) {
      expect(() => parsePort(bad, 'TITULAR_PORT'), JSON.stringify(bad)).toThrow(ListenConfigError);
      expect(() => parsePort(bad, 'TITULAR_PORT'), JSON.stringify(bad)).toThrow(new ListenConfigError(message));
    }
  });
});

describe('parseAllowedOrigins', () => {
  it('keeps each origin as a browser sends it, once, from repetitions or a comma- or space-separated list', () => {
    expect(parseAllowedOrigins(['http://localhost:3000', 'https://Intranet.Acme.test/'], '--allow-origin')).toEqual(['http://localhost:3000', 'https://intranet.acme.test']);
    expect(parseAllowedOrigins(['http://a.test, http://b.test:8080  http://a.test'], 'TITULAR_ALLOW_ORIGINS')).toEqual(['http://a.test', 'http://b.test:8080']);
    // A default port is not part of the Origin a browser sends.
    expect(parseAllowedOrigins(['http://tool.local:80', 'https://tool.local:443'], 'x')).toEqual(['http://tool.local', 'https://tool.local']);
    expect(parseAllowedOrigins([], 'x')).toEqual([]);
    expect(parseAllowedOrigins([' , '], 'x')).toEqual([]);
  });

  it('refuses wildcards, "null", paths, queries, credentials and schemes other than http and https', () => {
    for (const bad of ['*', 'null', 'localhost:3000', 'http://localhost:3000/app', 'http://localhost:3000/?x=1', 'http://localhost:3000#top', 'http://user:pw@localhost:3000', 'file:///tmp/a.html', 'ftp://tool.local', 'tool']) {
      expect(() => parseAllowedOrigins([bad], 'TITULAR_ALLOW_ORIGINS'), bad).toThrow(ListenConfigError);
      expect(() => parseAllowedOrigins([bad], 'TITULAR_ALLOW_ORIGINS'), bad).toThrow(/^TITULAR_ALLOW_ORIGINS: /);
    }
  });
});
