import { describe, expect, it } from 'vitest';
import {
  API_KEY_PATTERN,
  GROUP_KEY_PATTERN,
  USER_KEY_PATTERN,
  apiKeyPrefix,
  hashApiKey,
  newApiKey,
  newGroupKey,
  newUserKey,
} from '../../server/domain/keys.js';
import { isSingleEmoji } from '../../server/domain/notification.js';
import { createKeyedLimiter } from '../../server/http/middleware/rate-limit.js';

describe('keys', () => {
  it('have the documented formats and do not repeat', () => {
    const api = Array.from({ length: 2000 }, newApiKey);
    expect(api.every((k) => API_KEY_PATTERN.test(k))).toBe(true);
    expect(new Set(api).size).toBe(api.length);
    expect(USER_KEY_PATTERN.test(newUserKey())).toBe(true);
    expect(GROUP_KEY_PATTERN.test(newGroupKey())).toBe(true);
  });

  it('use the whole base62 alphabet', () => {
    const chars = new Set(Array.from({ length: 500 }, () => newApiKey().slice(3)).join(''));
    expect(chars.size).toBe(62);
  });

  it('hash API keys with SHA-256 and show a short prefix', () => {
    const key = newApiKey();
    expect(hashApiKey(key)).toHaveLength(32);
    expect(hashApiKey(key).equals(hashApiKey(key))).toBe(true);
    expect(apiKeyPrefix(key)).toBe(key.slice(0, 7));
  });
});

describe('isSingleEmoji', () => {
  it('accepts one emoji grapheme and nothing else', () => {
    for (const e of ['🔥', '🚪', '👩‍💻', '🏳️‍🌈', '🇯🇵', '⚠', '✅']) expect(isSingleEmoji(e), e).toBe(true);
    for (const e of ['', 'x', '🔥 ', '🔥🔥', '12', '#', '☃️☃️']) expect(isSingleEmoji(e), e).toBe(false);
  });
});

describe('createKeyedLimiter', () => {
  it('allows the burst, then refuses with a wait in seconds, per key', () => {
    const limiter = createKeyedLimiter({ burst: 2, refill: 1, intervalMs: 60_000 });
    expect(limiter.take('a')).toEqual({ ok: true });
    expect(limiter.take('a')).toEqual({ ok: true });
    const refused = limiter.take('a');
    expect(refused.ok).toBe(false);
    expect(refused.ok === false && refused.retryAfterSeconds).toBeGreaterThan(50);
    expect(limiter.take('b')).toEqual({ ok: true });
  });

  it('forgets full buckets when it holds too many keys', () => {
    const limiter = createKeyedLimiter({ burst: 1, refill: 1000, intervalMs: 1 }, 3);
    for (let i = 0; i < 100; i++) expect(limiter.take(`ip${i}`).ok).toBe(true);
  });
});
