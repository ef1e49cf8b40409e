/** The source of time, injected so tests can fix it (DESIGN.md convention 8). */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** Milliseconds → ISO 8601 (UTC), or null. The API's time format. */
export function toIso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}
