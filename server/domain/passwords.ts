import { hash, verify } from '@node-rs/argon2';

/** Minimum length of operator and receiver passwords. */
export const MIN_PASSWORD_LENGTH = 8;

/**
 * Hashes a password with argon2id (RFC 9106; @node-rs/argon2 defaults: m=19 MiB, t=2, p=1,
 * the OWASP recommendation). Returns the PHC string, which carries its own salt and parameters.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

/** True when `password` matches the PHC string `stored`; false on any mismatch or malformed hash. */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}
