// UUIDv7 (RFC 9562): 48-bit Unix milliseconds, then randomness. Ids sort by creation time across
// desktops, which history pagination and a later sync both rely on. Within one millisecond a
// 12-bit counter in rand_a keeps ids from this process strictly increasing (RFC 9562 §6.2, method 1).
import { randomFillSync } from 'node:crypto';

const pool = Buffer.allocUnsafe(16 * 256);
let poolOffset = pool.length;
let lastMs = -1;
let counter = 0;

/** Fills the next 16 bytes of the pool as a UUIDv7 and returns their offset (the bytes are used once). */
function nextUuidBytes(now: number): number {
  if (poolOffset + 16 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const at = poolOffset;
  poolOffset += 16;
  let ms = now;
  if (ms <= lastMs) {
    // Same (or a backwards-stepping) clock: keep the last timestamp and bump the counter.
    ms = lastMs;
    counter++;
    if (counter > 0xfff) {
      ms = lastMs + 1;
      counter = 0;
    }
  } else {
    counter = pool.readUInt16BE(at + 6) & 0x7ff; // random start, leaving headroom to count up
  }
  lastMs = ms;
  pool.writeUIntBE(ms, at, 6);
  pool[at + 6] = 0x70 | ((counter >> 8) & 0x0f);
  pool[at + 7] = counter & 0xff;
  pool[at + 8] = 0x80 | ((pool[at + 8] ?? 0) & 0x3f);
  return at;
}

export function uuidv7(now: number = Date.now()): string {
  const at = nextUuidBytes(now);
  const hex = pool.toString('hex', at, at + 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Request ids: "req_" + the UUIDv7 without dashes (sortable, easy to paste into a support ticket). */
export function requestId(): string {
  const at = nextUuidBytes(Date.now());
  return `req_${pool.toString('hex', at, at + 16)}`;
}

/**
 * The smallest UUIDv7 of millisecond `ms`: every id made at that millisecond or later sorts at or after
 * it, as text too. Lets a time range be read through a primary key of UUIDv7 ids.
 */
export function uuidv7Floor(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0').slice(-12);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}
