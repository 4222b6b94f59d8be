// The slow-down of wrong passphrases (core/vault/passphrase-attempts.ts), on its own clock: the
// Claves screen's reveal and unlock, and the start-up unlock screen, all go through it (their
// processes' tests: test/startup-gate.test.ts, test/ipc-*.test.ts). Here the times are given, so a
// check as slow as scrypt on a busy machine can be shown without one.
import { describe, expect, it } from 'vitest';
import { PassphraseAttempts } from '../src/main/core/vault/passphrase-attempts';
import { TitularError } from '../src/main/core/errors';

/** Three wrong attempts, each checked in `checkMs`, one after the other from t = 0; returns when the last ended. */
function threeWrong(attempts: PassphraseAttempts, checkMs: number): number {
  let t = 0;
  for (let i = 0; i < 3; i++) {
    attempts.admit(t);
    t += checkMs;
    attempts.failed(t);
  }
  return t;
}

function refusal(attempt: () => void): TitularError | null {
  try {
    attempt();
    return null;
  } catch (error) {
    if (error instanceof TitularError) return error;
    throw error;
  }
}

describe('wrong passphrases in a row', () => {
  it('three are free; the fourth waits 1 s from when the third was found wrong, then 2 s, 4 s …', () => {
    const attempts = new PassphraseAttempts();
    const end = threeWrong(attempts, 400);
    const early = refusal(() => attempts.admit(end + 999));
    expect(early).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(early?.message).toBe('Too many wrong passphrases; try again in 1 s');
    expect(refusal(() => attempts.admit(end + 1000))).toBeNull();
    attempts.failed(end + 1400);
    expect(refusal(() => attempts.admit(end + 1400 + 1999))?.message).toBe('Too many wrong passphrases; try again in 1 s');
    expect(refusal(() => attempts.admit(end + 1400 + 2000))).toBeNull();
  });

  it('a check slower than the wait (scrypt on a busy machine) still leaves the whole wait after it', () => {
    const attempts = new PassphraseAttempts();
    // Each check takes 1.5 s: counted from the third attempt's start, its 1 s wait would be over
    // before the guesser even learns the answer.
    const end = threeWrong(attempts, 1500);
    expect(refusal(() => attempts.admit(end + 10))).toMatchObject({ status: 429 });
    expect(refusal(() => attempts.admit(end + 1000))).toBeNull();
  });

  it('attempts sent together meet the wait as attempts in a row do, before any of them is checked', () => {
    const attempts = new PassphraseAttempts();
    for (let i = 0; i < 3; i++) attempts.admit(0);
    expect(refusal(() => attempts.admit(1))).toMatchObject({ status: 429 });
  });

  it('a right passphrase starts the count again', () => {
    const attempts = new PassphraseAttempts();
    const end = threeWrong(attempts, 400);
    attempts.admit(end + 1000);
    attempts.succeeded();
    for (let i = 0; i < 3; i++) expect(refusal(() => attempts.admit(end + 1001))).toBeNull();
  });
});
