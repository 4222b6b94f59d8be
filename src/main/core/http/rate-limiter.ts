// Token buckets, one per API key (decisions: 20 burst, 10/s refill by default, configurable per
// key) and one per client address for failed authentications, so key guessing is throttled too.
export interface BucketDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until one token is available (for Retry-After on a 429). */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();

  constructor(private readonly maxBuckets = 100_000) {}

  take(id: string, burst: number, perSecond: number, now: number): BucketDecision {
    let bucket = this.#buckets.get(id);
    if (!bucket) {
      if (this.#buckets.size >= this.maxBuckets) this.#evictFull(now, burst, perSecond);
      bucket = { tokens: burst, updatedAt: now };
      this.#buckets.set(id, bucket);
    } else {
      bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * perSecond);
      bucket.updatedAt = now;
    }
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return {
      allowed,
      limit: burst,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((burst - bucket.tokens) / perSecond),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond)),
    };
  }

  /** Looks at a bucket without taking a token. */
  peek(id: string, burst: number, perSecond: number, now: number): number {
    const bucket = this.#buckets.get(id);
    if (!bucket) return burst;
    return Math.min(burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * perSecond);
  }

  /** Drops buckets that have refilled completely: forgetting them changes nothing. */
  #evictFull(now: number, burst: number, perSecond: number): void {
    for (const [id, bucket] of this.#buckets) {
      if (bucket.tokens + ((now - bucket.updatedAt) / 1000) * perSecond >= burst) this.#buckets.delete(id);
    }
    if (this.#buckets.size >= this.maxBuckets) this.#buckets.clear();
  }
}
