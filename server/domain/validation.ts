import { z } from 'zod';
import { HubError, type ErrorCode } from './errors.js';

/**
 * Turns the first zod issue into the hub's error: a missing field is `missing_field`, a string
 * too long `too_long`, a custom check carries its own code in `params.code`, anything else is
 * `invalid_field`. `raw` is the input that was parsed, to tell "absent" from "wrong".
 */
export function toHubError(error: z.ZodError, raw: unknown): HubError {
  const issue = error.issues[0];
  if (!issue) return new HubError('invalid_field', 'invalid request');
  const field = issue.path.map(String).join('.') || undefined;
  const top = issue.path[0];
  const value =
    typeof raw === 'object' && raw !== null && top !== undefined ? (raw as Record<PropertyKey, unknown>)[top] : raw;
  const options = field ? { field } : {};
  if (issue.code === 'custom' && typeof issue.params?.code === 'string') {
    return new HubError(issue.params.code as ErrorCode, issue.message, options);
  }
  if (value === undefined || value === null || value === '') {
    return new HubError('missing_field', `${field ?? 'a field'} is required`, options);
  }
  const message = field ? `${field}: ${issue.message}` : issue.message;
  if (issue.code === 'too_big') return new HubError('too_long', message, options);
  return new HubError('invalid_field', message, options);
}

/**
 * Parses `raw` with `schema`, throwing the first problem as a 400 {@link HubError}.
 * Used for every JSON body of the admin API.
 */
export function parseBody<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const result = schema.safeParse(raw ?? {});
  if (!result.success) throw toHubError(result.error, raw);
  return result.data;
}

/**
 * `s` with every lone surrogate (a UTF-16 code unit U+D800–U+DFFF without its other half)
 * replaced by U+FFFD, as `String.prototype.toWellFormed` does (ES2024). JSON allows such strings
 * (`"\ud800"`, RFC 8259 §8.2) but UTF-8 cannot encode them: SQLite would store the bytes
 * ED A0 80 and give back three U+FFFD, so what was validated, answered and streamed would differ
 * from what is stored. Invalid UTF-8 bytes in a body already decode to U+FFFD; this does the same.
 */
export function toWellFormed(s: string): string {
  // With the u flag, a surrogate pair is one code point: \p{Cs} matches only the lone halves.
  return s.replace(/\p{Cs}/gu, '\ufffd');
}

/** A zod string made well-formed first ({@link toWellFormed}), for every text the hub stores. */
export const wellFormedString = () => z.string().overwrite(toWellFormed);

/** A custom zod issue carrying a hub error code (read back by {@link toHubError}). */
export function issue(code: ErrorCode, message: string): { message: string; params: { code: ErrorCode } } {
  return { message, params: { code } };
}
