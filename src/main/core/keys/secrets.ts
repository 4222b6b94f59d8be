// API key secrets: generation, hashing and the shape a presented key must have.
import { hash, randomBytes } from 'node:crypto';
import { invalidParameter } from '../errors';

export type KeyEnvironment = 'live' | 'sandbox';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const RANDOM_LENGTH = 32;
// Largest multiple of 62 below 256: bytes at or above it are dropped, so every character is
// equally likely (no modulo bias).
const ACCEPT_BELOW = 256 - (256 % ALPHABET.length);

export const KEY_PATTERN = /^sk_(live|test)_[A-Za-z0-9]{32}$/;

const KEY_LIKE = /sk_(live|test)_[A-Za-z0-9]+/g;

/** Whether text carries something shaped like an API key (it must not be stored or logged). */
export function containsKeyLike(text: string): boolean {
  return /sk_(live|test)_/.test(text);
}

/**
 * Refuses a label someone typed (a key's name, a purchase reference, a user's name or email)
 * that carries an API key: labels are stored and shown as typed, and a key must be nowhere in the
 * database in plaintext (decisions, "Keys"). Refused rather than masked, so the person sees why.
 */
export function refuseKeyLike(what: KeyLikeLabel, text: string | null | undefined): void {
  if (text && containsKeyLike(text)) throw invalidParameter(`${what} must not contain an API key`);
}

export type KeyLikeLabel = 'The key name' | 'The reference' | 'The organization name' | "The user's name" | 'The email';

/** Text with anything shaped like an API key masked (`sk_live_***`), for logs and stored inputs. */
export function maskKeys(text: string): string {
  return text.replace(KEY_LIKE, 'sk_$1_***');
}

// A key's random part without its prefix: 32 characters of the key alphabet in a row. No identifier
// Titular takes is one (a CBU is 22 digits, an alias at most 20 characters, a CUIT 11 digits).
const BARE_RANDOM_PART = /[A-Za-z0-9]{32,}/g;

/**
 * maskKeys, and also what could be a key's random part pasted without its `sk_live_`: for a looked-up
 * input that is recorded as sent (lookup-service.ts). Its first four characters are kept, as a key's
 * display prefix shows them, so support can still tell what was sent.
 */
export function maskKeysAndRandomParts(text: string): string {
  return maskKeys(text).replace(BARE_RANDOM_PART, (run) => `${run.slice(0, 4)}***`);
}

export function keyPrefix(environment: KeyEnvironment): string {
  return environment === 'live' ? 'sk_live_' : 'sk_test_';
}

export function generateKeySecret(environment: KeyEnvironment): string {
  let out = keyPrefix(environment);
  while (out.length < keyPrefix(environment).length + RANDOM_LENGTH) {
    for (const byte of randomBytes(48)) {
      if (byte >= ACCEPT_BELOW) continue;
      out += ALPHABET[byte % ALPHABET.length];
      if (out.length === keyPrefix(environment).length + RANDOM_LENGTH) break;
    }
  }
  return out;
}

export function hashKey(secret: string): string {
  // One-shot hash: runs on every API request, and costs half of createHash().update().digest().
  return hash('sha256', secret, 'hex');
}

/** What may be shown of a key in lists and logs: its prefix and first four random characters. */
export function displayPrefix(secret: string): string {
  return `${secret.slice(0, 12)}…`;
}

export function environmentOf(secret: string): KeyEnvironment {
  return secret.startsWith('sk_live_') ? 'live' : 'sandbox';
}
