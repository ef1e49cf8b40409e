import { createHash, randomBytes } from 'node:crypto';
import { customAlphabet } from 'nanoid';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// nanoid draws from crypto.getRandomValues with rejection sampling: uniform over the alphabet.
const base62_32 = customAlphabet(BASE62, 32);
const base62_30 = customAlphabet(BASE62, 30);

/** API key format: `pk_` + 32 base62 characters (≈190 bits). */
export const API_KEY_PATTERN = /^pk_[0-9A-Za-z]{32}$/;
/** User Key format: `uk_` + 30 base62 characters. */
export const USER_KEY_PATTERN = /^uk_[0-9A-Za-z]{30}$/;
/** User Group Key format: `gk_` + 30 base62 characters. */
export const GROUP_KEY_PATTERN = /^gk_[0-9A-Za-z]{30}$/;

/** A new API key from a CSPRNG. Shown to the operator once; only {@link hashApiKey} is stored. */
export function newApiKey(): string {
  return `pk_${base62_32()}`;
}

/** A new User Key (an address, stored as it is). */
export function newUserKey(): string {
  return `uk_${base62_30()}`;
}

/** A new User Group Key (an address, stored as it is). */
export function newGroupKey(): string {
  return `gk_${base62_30()}`;
}

/** SHA-256 of an API key or session token, as stored in the database (32 bytes). */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Alias of {@link hashSecret} for API keys. */
export const hashApiKey = hashSecret;

/** The part of an API key shown in lists so the operator can tell keys apart: `pk_` + 4 characters. */
export function apiKeyPrefix(apiKey: string): string {
  return apiKey.slice(0, 7);
}

/** A session or setup token: 32 random bytes, base64url (43 characters). */
export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}
