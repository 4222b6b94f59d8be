// The floor of a durable lookup: the least a route can do and still reply only after its write is on
// disk. One INSERT per request (a time-ordered text id, the identifier, a timestamp), the inserts of
// one event-loop turn committed in one transaction, the WAL flushed with fdatasync on the thread pool
// before the replies go out: the group commit the issue measured at 0.5–0.6× the bare route.
//
// No key check, rate limit, validation, resolution, ledger, history index or day counter: the gap
// between this and Titular's FULL lookups is what the contract's work per lookup costs, measured in
// the same run. Not a product path; bench/run.mjs starts it beside the real server.
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { randomBytes } from 'node:crypto';
import { fdatasync, mkdtempSync, openSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const size = Number(process.argv[2] ?? 500);
const shell = JSON.stringify({ success: true, data: { pad: '' } });
const body = JSON.stringify({ success: true, data: { pad: 'x'.repeat(Math.max(0, size - shell.length)) } });

const dir = mkdtempSync(path.join(os.tmpdir(), 'titular-floor-'));
const file = path.join(dir, 'floor.db');
const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE writes (id TEXT PRIMARY KEY, identifier TEXT NOT NULL, created_at INTEGER NOT NULL)');
const insert = db.prepare('INSERT INTO writes (id, identifier, created_at) VALUES (?, ?, ?)');
const commit = db.transaction((batch) => {
  for (const item of batch) insert.run(item.id, item.identifier, item.at);
});
const wal = openSync(`${file}-wal`, 'r');

let sequence = 0;
/** Time-ordered like a UUIDv7: inserts append to the end of the primary-key index. */
const nextId = () => `${Date.now().toString(16).padStart(12, '0')}-${(sequence++).toString(16).padStart(12, '0')}-${randomBytes(6).toString('hex')}`;

let queued = [];
let scheduled = false;
let syncing = false;
let awaitingSync = [];

function flush() {
  scheduled = false;
  if (syncing || queued.length === 0) return; // the running flush commits what queued meanwhile
  const batch = queued;
  queued = [];
  commit.immediate(batch);
  awaitingSync.push(...batch);
  sync();
}

function sync() {
  if (syncing || awaitingSync.length === 0) return;
  const released = awaitingSync;
  awaitingSync = [];
  syncing = true;
  fdatasync(wal, (error) => {
    syncing = false;
    for (const item of released) item.reply(error);
    flush();
  });
}

const app = Fastify({ logger: false });
app.get('/api/v1/lookup', (request, reply) => {
  queued.push({
    id: nextId(),
    identifier: String(request.query.identifier ?? ''),
    at: Date.now(),
    reply: (error) => (error ? reply.code(500).send({ success: false }) : reply.header('content-type', 'application/json; charset=utf-8').send(body)),
  });
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
});
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening on ${address}\n`);
process.on('SIGTERM', () =>
  app.close().then(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }),
);
