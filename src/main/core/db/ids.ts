// UUIDv7 (RFC 9562): 48-bit Unix milliseconds, then randomness. Ids sort by creation time across
// desktops, which history pagination and a later sync both rely on. Within one millisecond a
// 12-bit counter in rand_a keeps ids from this process strictly increasing (RFC 9562 §6.2, method 1).
import { randomFillSync } from 'node:crypto';

const pool = Buffer.allocUnsafe(16 * 256);
let poolOffset = pool.length;
let lastMs = -1;
let counter = 0;

function randomBytes16(): Buffer {
  if (poolOffset + 16 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + 16);
  poolOffset += 16;
  return bytes;
}

export function uuidv7(now: number = Date.now()): string {
  const bytes = Buffer.from(randomBytes16());
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
    counter = bytes.readUInt16BE(6) & 0x7ff; // random start, leaving headroom to count up
  }
  lastMs = ms;
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | ((counter >> 8) & 0x0f);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Request ids: "req_" + the UUIDv7 without dashes (sortable, easy to paste into a support ticket). */
export function requestId(): string {
  return `req_${uuidv7().replaceAll('-', '')}`;
}
