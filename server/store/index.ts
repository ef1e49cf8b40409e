import type { Clock } from '../domain/clock.js';
import type { Db } from './db.js';
import { createAppStore } from './app-store.js';
import { createAuthStore } from './auth-store.js';
import { createDeviceStore } from './device-store.js';
import { createGroupStore } from './group-store.js';
import { createNotificationStore } from './notification-store.js';
import { createOutboxStore } from './outbox-store.js';
import { createPairingStore } from './pairing-store.js';
import { createSettingsStore } from './settings-store.js';
import { createUserStore } from './user-store.js';

/** Every store over one database, plus `transaction` to group their calls atomically. */
export type Store = ReturnType<typeof createStore>;

/** Builds all stores over an open, migrated database (see openDatabase). */
export function createStore(db: Db, clock: Clock) {
  return {
    db,
    apps: createAppStore(db, clock),
    users: createUserStore(db, clock),
    groups: createGroupStore(db, clock),
    devices: createDeviceStore(db, clock),
    auth: createAuthStore(db, clock),
    pairing: createPairingStore(db, clock),
    notifications: createNotificationStore(db),
    outbox: createOutboxStore(db),
    settings: createSettingsStore(db),
    /** Runs `fn` in one write transaction (BEGIN IMMEDIATE): all of it commits or none. */
    transaction<T>(fn: () => T): T {
      return db.transaction(fn).immediate();
    },
  };
}
