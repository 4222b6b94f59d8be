// AES-256-GCM with a fresh random 96-bit IV per encryption. Layout: iv(12) ‖ ciphertext ‖ tag(16).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function seal(key: Buffer, plaintext: Buffer, aad: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

/** Throws if the key, the AAD or any byte of the box is wrong (GCM authentication). */
export function open(key: Buffer, box: Buffer, aad: Buffer): Buffer {
  if (box.length < IV_BYTES + TAG_BYTES) throw new Error('sealed box too short');
  const iv = box.subarray(0, IV_BYTES);
  const tag = box.subarray(box.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(box.subarray(IV_BYTES, box.length - TAG_BYTES)), decipher.final()]);
}
