// A circuit breaker for the remote resolver. After `failureThreshold` consecutive failed attempts
// the upstream is presumed down: calls fail fast (no traffic, no waiting) for `cooldownMs`, then one
// trial call is let through (half-open). Its success closes the circuit; its failure opens it again
// for a whole cooldown. This keeps a dead upstream from holding every lookup for the full timeout
// and retries, and gives it room to recover instead of a stampede of retries.

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerOptions {
  /** Consecutive failed attempts that open the circuit. */
  failureThreshold: number;
  /** How long the circuit stays open before a trial call, in milliseconds. */
  cooldownMs: number;
  now?: () => number;
}

export interface BreakerStatus {
  state: BreakerState;
  consecutiveFailures: number;
  /** ISO instant when an open circuit lets a trial through; null unless open. */
  openUntil: string | null;
}

/** Whether an attempt may go out; when not, how long until one may (milliseconds). */
export type BreakerPermit = { allowed: true } | { allowed: false; retryAfterMs: number };

// While the single half-open trial is out, other calls are told to come back shortly: the trial
// settles within one timeout, and then the circuit is either closed or open with a fresh cooldown.
const TRIAL_IN_FLIGHT_RETRY_MS = 1_000;

export class CircuitBreaker {
  #state: BreakerState = 'closed';
  #failures = 0;
  #openedAt = 0;
  #trialInFlight = false;
  readonly #now: () => number;

  constructor(private readonly options: BreakerOptions) {
    this.#now = options.now ?? Date.now;
  }

  /** Asks to send one attempt. A permit in the half-open state is the trial: report its outcome. */
  acquire(): BreakerPermit {
    if (this.#state === 'open') {
      const remaining = this.#openedAt + this.options.cooldownMs - this.#now();
      if (remaining > 0) return { allowed: false, retryAfterMs: remaining };
      this.#state = 'half-open';
      this.#trialInFlight = false;
    }
    if (this.#state === 'half-open') {
      if (this.#trialInFlight) return { allowed: false, retryAfterMs: TRIAL_IN_FLIGHT_RETRY_MS };
      this.#trialInFlight = true;
    }
    return { allowed: true };
  }

  /** The upstream answered (found, not found, or even rejected our key: it is up). */
  success(): void {
    this.#state = 'closed';
    this.#failures = 0;
    this.#trialInFlight = false;
  }

  /** The upstream could not answer (timeout, connection refused, 5xx, 429, malformed body). */
  failure(): void {
    this.#failures++;
    if (this.#state === 'half-open' || this.#failures >= this.options.failureThreshold) {
      this.#state = 'open';
      this.#openedAt = this.#now();
      this.#trialInFlight = false;
    }
  }

  /** How long until an open circuit lets a trial through (ms), or null when it is not open. */
  acquireWouldWaitMs(): number | null {
    if (this.#state !== 'open') return null;
    const remaining = this.#openedAt + this.options.cooldownMs - this.#now();
    return remaining > 0 ? remaining : null;
  }

  status(): BreakerStatus {
    // An open circuit whose cooldown has passed reads as half-open: the next call is the trial.
    const open = this.#state === 'open';
    const openUntil = this.#openedAt + this.options.cooldownMs;
    const cooled = open && openUntil <= this.#now();
    return {
      state: cooled ? 'half-open' : this.#state,
      consecutiveFailures: this.#failures,
      openUntil: open && !cooled ? new Date(openUntil).toISOString() : null,
    };
  }
}
