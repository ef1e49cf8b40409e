/**
 * The catalogue of error codes the hub answers with. The body of every error except the push
 * operation's 401 is `{"error":{"code","message","field"?}}` (DESIGN.md "Contracts the spec
 * leaves open"); the code is stable, the message is for people.
 */
export const errorCodes = {
  malformed_json: 400,
  missing_field: 400,
  invalid_field: 400,
  too_long: 400,
  unknown_user_key: 400,
  unknown_user_group_key: 400,
  unknown_user: 400,
  invalid_setup_token: 400,
  /** A pairing link whose token the hub never issued (or whose user was deleted). */
  pairing_invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  /** A pairing link that was already used to sign a device in (they work once). */
  pairing_used: 410,
  /** A pairing link older than its 15 minutes. */
  pairing_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

/** One of the codes in {@link errorCodes}. */
export type ErrorCode = keyof typeof errorCodes;

/**
 * The hub's one error type: `throw new HubError('unknown_user_key', 'no receiver has this User Key', { field: 'userKey' })`.
 * The HTTP status follows from the code; one middleware renders it.
 */
export class HubError extends Error {
  override readonly name = 'HubError';
  readonly status: number;
  readonly field?: string;
  /** Seconds for a `Retry-After` header (429, 503). */
  readonly retryAfterSeconds?: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { field?: string; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.status = errorCodes[code];
    if (options.field !== undefined) this.field = options.field;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** The JSON body: `{"error":{"code","message","field"?}}`. */
  toBody(): { error: { code: ErrorCode; message: string; field?: string } } {
    return { error: { code: this.code, message: this.message, ...(this.field ? { field: this.field } : {}) } };
  }
}
