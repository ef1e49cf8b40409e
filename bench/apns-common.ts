// Constants and helpers shared by the dispatch benchmark's processes (kept free of heavy
// imports, so a client process loads only what it measures).

/** Apple Team ID and Key ID used for the benchmark's provider tokens (any 10 characters). */
export const TEAM_ID = 'TEAM123456';
export const KEY_ID = 'KEY9876543';
/** The apns-topic (bundle id) of the benchmark's notifications. */
export const TOPIC = 'com.example.bench';

/** The APNs device token of seeded device `i`: 64 hex digits, unique per i. */
export const apnsToken = (i: number) => i.toString(16).padStart(64, '0');
