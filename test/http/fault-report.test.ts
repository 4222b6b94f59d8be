// The API's faults as the host's log gets them (core/http/fault-report.ts): every GE500 of Titular's
// own with its request id and reason, masked; a full disk in words, once a minute at most.
import { describe, expect, it } from 'vitest';
import { DISK_FULL_REPEAT_MS, faultReporter } from '../../src/main/core/http/fault-report';

const diskFull = () => Object.assign(new Error('database or disk is full'), { name: 'SqliteError', code: 'SQLITE_FULL' });

describe('fault report', () => {
  it('writes each fault with its request id and reason, with any key in it masked', () => {
    const lines: string[] = [];
    const report = faultReporter((line) => lines.push(line), '/datos/titular');
    report('req_1', new TypeError('boom'));
    report('req_2', new Error('near sk_live_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd'), 'confirming the key:');
    expect(lines[0]).toBe('error req_1 TypeError: boom');
    expect(lines[1]).toBe('error req_2 confirming the key: Error: near sk_live_***');
    expect(lines[1]).not.toContain('AbCdEfGhIjKlMnOp');
  });

  it('says a full disk once a minute, naming the folder, also when it comes wrapped', () => {
    const lines: string[] = [];
    let now = 1_000_000;
    const report = faultReporter((line) => lines.push(line), '/datos/titular', () => now);
    report('req_1', diskFull());
    report('req_2', new Error('a write of the batch failed', { cause: diskFull() }));
    now += DISK_FULL_REPEAT_MS - 1;
    report('req_3', Object.assign(new Error('no space'), { code: 'ENOSPC' }));
    expect(lines).toEqual([expect.stringMatching(/^error req_1: the disk holding \/datos\/titular is full\. .*charge nothing until space is freed there/)]);
    now += 1;
    report('req_4', diskFull());
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^error req_4: the disk holding/);
    // Other faults meanwhile are still each written.
    report('req_5', new Error('other'));
    expect(lines[2]).toBe('error req_5 Error: other');
  });

  it('writes nothing where the host gave no log', () => {
    expect(() => faultReporter(undefined, '/x')('req_1', diskFull())).not.toThrow();
  });
});
