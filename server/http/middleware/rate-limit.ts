import { TokenBucket } from 'limiter';

/** A token bucket's parameters: `burst` tokens at most, `refill` tokens added per `intervalMs`. */
export interface BucketOptions {
  burst: number;
  refill: number;
  intervalMs: number;
}

/** The outcome of {@link KeyedLimiter.take}: allowed, or refused with the wait in whole seconds. */
export type TakeResult = { ok: true } | { ok: false; retryAfterSeconds: number };

/** Token buckets keyed by app id or client IP. */
export type KeyedLimiter = ReturnType<typeof createKeyedLimiter>;

/**
 * One token bucket per key (the `limiter` package's TokenBucket). Buckets that have refilled
 * completely are dropped once the map passes `maxKeys`, so an address scan cannot grow memory
 * without bound: a full bucket is the same as no bucket. `onLimited` hears every refusal (metrics).
 */
export function createKeyedLimiter(options: BucketOptions, maxKeys = 10_000, onLimited?: () => void) {
  const buckets = new Map<string, TokenBucket>();

  const sweep = () => {
    for (const [key, bucket] of buckets) {
      bucket.drip();
      if (bucket.content >= bucket.bucketSize) buckets.delete(key);
    }
  };

  const bucketFor = (key: string) => {
    let bucket = buckets.get(key);
    if (!bucket) {
      if (buckets.size >= maxKeys) sweep();
      bucket = new TokenBucket({ bucketSize: options.burst, tokensPerInterval: options.refill, interval: options.intervalMs });
      bucket.content = options.burst;
      buckets.set(key, bucket);
    }
    return bucket;
  };

  return {
    /** Takes one token for `key`; when none is left, says how long until one is. */
    take(key: string): TakeResult {
      const bucket = bucketFor(key);
      if (bucket.tryRemoveTokens(1)) return { ok: true };
      onLimited?.();
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(bucket.getWaitTime(1) / 1000)) };
    },
  };
}
