// Shared by the reliability harness: seeds (printed, overridable), a seeded PRNG, data directories
// prepared through the core before a server process opens them, a keep-alive HTTP client that
// records when each request was sent and how it ended, the CLI as a process, and raw reads of the
// database the way an auditor would make them.
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { errorBodySchema, type ErrorCode } from '../../src/shared/api/common';
import { withCheckDigits, withCuitCheckDigit } from '../../src/shared/identifiers';
import { runCli as runCliProcess, type CliRun } from '../support/processes';

export { prepareDataDir, type Prepared, type PreparedKey } from '../support/data-dir';
export { prng } from '../support/prng';


/**
 * The seed of a randomized test: `TITULAR_SEED` when set (to replay a failure), else `fallback`.
 * Printed so that a failing CI run can be replayed exactly.
 */
export function seedFor(test: string, fallback: number): number {
  const fromEnv = process.env.TITULAR_SEED;
  const seed = fromEnv !== undefined && /^\d+$/.test(fromEnv) ? Number(fromEnv) : fallback;
  process.stdout.write(`[reliability] ${test}: seed ${seed} (replay with TITULAR_SEED=${seed})\n`);
  return seed;
}

/** `count` distinct directory accounts (valid check digits, one fictitious holder each). */
export function generatedDirectory(count: number): { csv: string; cbus: string[] } {
  const taxId = withCuitCheckDigit('2030111222');
  if (!taxId) throw new Error('no check digit');
  const cbus = Array.from({ length: count }, (_, i) => withCheckDigits('285', '0590', String(1_000_000 + i).padStart(13, '0')));
  const rows = cbus.map((cbu, i) => `${cbu},,CA,ARS,true,Titular ${i},${taxId}`);
  return { csv: ['cbu,alias,account_type,currency,active,holder_name,holder_tax_id', ...rows].join('\n'), cbus };
}

/** How one request ended: a complete answer, or an error before the answer was complete. */
export type Outcome =
  | { kind: 'answer'; status: number; headers: http.IncomingHttpHeaders; text: string; sentAt: number; reusedSocket: boolean }
  | { kind: 'error'; error: string; sentAt: number; staleSocket?: boolean };

export interface RequestSpec {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** A loopback source address (any of 127.0.0.0/8), so that the server sees distinct clients. */
  localAddress?: string;
}

/**
 * A keep-alive client with room for `sockets` requests in flight at once. With `retryStaleSocket`,
 * a request that fails at once on a reused connection the server had just closed as idle (its
 * keep-alive timeout) is sent again on a new one — the server never read it. Off where a failure
 * is the point (a killed server).
 */
export class Client {
  readonly agent: http.Agent;
  readonly #base: URL;
  readonly #retryStaleSocket: boolean;

  constructor(baseUrl: string, sockets: number, options: { retryStaleSocket?: boolean } = {}) {
    this.#base = new URL(baseUrl);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets, scheduling: 'fifo' });
    this.#retryStaleSocket = options.retryStaleSocket ?? false;
  }

  /** Sends one request; `sentAt` (performance.now()) is taken just before its bytes are written. */
  async send(spec: RequestSpec): Promise<Outcome> {
    const outcome = await this.#sendOnce(spec);
    if (this.#retryStaleSocket && outcome.kind === 'error' && outcome.staleSocket) return this.#sendOnce(spec);
    return outcome;
  }

  #sendOnce(spec: RequestSpec): Promise<Outcome> {
    return new Promise((resolve) => {
      const headers: Record<string, string | number> = { ...spec.headers };
      if (spec.body !== undefined) headers['content-length'] = Buffer.byteLength(spec.body);
      const sentAt = performance.now();
      const req = http.request(
        { hostname: this.#base.hostname, port: this.#base.port, path: spec.path, method: spec.method ?? 'GET', headers, agent: this.agent, localAddress: spec.localAddress },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ kind: 'answer', status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), sentAt, reusedSocket: req.reusedSocket }),
          );
          res.on('error', (error) => resolve({ kind: 'error', error: error.message, sentAt }));
          res.on('aborted', () => resolve({ kind: 'error', error: 'aborted', sentAt }));
        },
      );
      req.on('error', (error: Error & { code?: string }) =>
        // No response had started: on a reused socket with ECONNRESET, the server closed it as idle.
        resolve({ kind: 'error', error: error.message, sentAt, staleSocket: req.reusedSocket && error.code === 'ECONNRESET' }),
      );
      req.end(spec.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

/** The i-th of many loopback client addresses (127.0.x.y). */
export const loopbackAddress = (i: number) => `127.0.${Math.floor(i / 250)}.${(i % 250) + 2}`;

/**
 * Keeps up to `workers` requests in flight, each worker sending `next(worker)` again as soon as its
 * previous answer arrives, until `done(worker)` says so. Returns every request with how it ended.
 */
export async function sustainLoad<T>(
  client: Client,
  workers: number,
  next: (worker: number) => { spec: RequestSpec; tag: T },
  done: (worker: number) => boolean,
  onAnswer: (worker: number, outcome: Outcome) => void = () => {},
): Promise<{ tag: T; outcome: Outcome }[]> {
  const results: { tag: T; outcome: Outcome }[] = [];
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (!done(worker)) {
        const { spec, tag } = next(worker);
        const outcome = await client.send(spec);
        results.push({ tag, outcome });
        onAnswer(worker, outcome);
      }
    }),
  );
  return results;
}

export function jsonPost(path: string, secret: string, payload: unknown, extra: Record<string, string> = {}): RequestSpec {
  return { method: 'POST', path, headers: { ...bearer(secret), 'content-type': 'application/json', ...extra }, body: JSON.stringify(payload) };
}

/**
 * Asserts a complete answer in the documented error body: status, code, the strict shape, and the
 * Request-Id header equal to the body's request_id. Returns the body.
 */
export function expectErrorAnswer(outcome: Outcome, status: number, code: ErrorCode) {
  expect(outcome.kind, outcome.kind === 'error' ? outcome.error : '').toBe('answer');
  const answer = outcome as Extract<Outcome, { kind: 'answer' }>;
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const body = errorBodySchema.strict().parse(JSON.parse(answer.text));
  expect(body.error.code).toBe(code);
  expect(answer.headers['request-id']).toBe(body.request_id);
  return body;
}

export function answered(outcome: Outcome): Extract<Outcome, { kind: 'answer' }> {
  if (outcome.kind !== 'answer') throw new Error(`expected an answer, got ${outcome.error}`);
  return outcome;
}

/** A connection of our own to a data directory's database (WAL: it reads what the server committed). */
export function openDatabaseFile(dataDir: string): Database.Database {
  const db = new Database(path.join(dataDir, 'titular.db'), { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return db;
}

export const countOf = (db: Database.Database, sql: string, ...params: unknown[]) => (db.prepare(sql).get(...params) as { n: number }).n;

/** Runs the CLI entry as a process (the built bundle under `npm test`, else the source through tsx). */
export function runCli(args: string[]): Promise<CliRun> {
  return runCliProcess(args, { timeoutMs: 30_000 });
}
