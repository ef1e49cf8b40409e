-- Pushhub schema 1: operator accounts, apps (API keys), receivers, groups, devices,
-- notifications and the delivery outbox. Times are integer milliseconds since the Unix epoch.

CREATE TABLE admins (
  id            TEXT PRIMARY KEY,
  username      TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  created_at    INTEGER NOT NULL
);

-- Bearer/cookie sessions; only the SHA-256 of the token is stored.
CREATE TABLE sessions (
  token_hash  BLOB PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN ('admin', 'receiver')),
  subject_id  TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL
);
CREATE INDEX sessions_subject ON sessions (kind, subject_id);

-- An app is a sender; its API key is stored only as a SHA-256 hash.
CREATE TABLE apps (
  id           TEXT PRIMARY KEY,
  name         TEXT NOT NULL,
  key_hash     BLOB NOT NULL UNIQUE,
  key_prefix   TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  last_used_at INTEGER
);

-- A receiver account; user_key is its address (spec: User Key).
CREATE TABLE users (
  id            TEXT PRIMARY KEY,
  name          TEXT NOT NULL,
  username      TEXT NOT NULL UNIQUE COLLATE NOCASE,
  password_hash TEXT NOT NULL,
  user_key      TEXT NOT NULL UNIQUE,
  created_at    INTEGER NOT NULL
);

CREATE TABLE groups (
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  group_key  TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
);

CREATE TABLE group_members (
  group_id TEXT NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  user_id  TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  PRIMARY KEY (group_id, user_id)
) WITHOUT ROWID;
CREATE INDEX group_members_user ON group_members (user_id);

-- A receiver's device and the channel it is reached through.
CREATE TABLE devices (
  id              TEXT PRIMARY KEY,
  user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name            TEXT NOT NULL,
  platform        TEXT NOT NULL CHECK (platform IN ('ios', 'ipados', 'watchos', 'android', 'wearos', 'web', 'desktop')),
  channel         TEXT NOT NULL CHECK (channel IN ('apns', 'fcm', 'webpush', 'stream')),
  token           TEXT,          -- APNs device token, FCM registration token, Web Push endpoint
  topic           TEXT,          -- APNs topic (bundle id)
  subscription    TEXT,          -- Web Push subscription JSON {endpoint, keys:{p256dh, auth}}
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  last_success_at INTEGER,
  deactivated_at  INTEGER,
  deactivated_reason TEXT
);
CREATE INDEX devices_user ON devices (user_id);
CREATE UNIQUE INDEX devices_channel_token ON devices (channel, token) WHERE token IS NOT NULL;

-- A notification as accepted by POST /v1/push. app_name and target_label are copies taken at
-- send time so history stays readable after an app, user or group is deleted.
CREATE TABLE notifications (
  id              TEXT PRIMARY KEY,   -- ULID: time-sortable
  app_id          TEXT REFERENCES apps (id) ON DELETE SET NULL,
  app_name        TEXT NOT NULL,
  target_user_id  TEXT REFERENCES users (id) ON DELETE SET NULL,
  target_group_id TEXT REFERENCES groups (id) ON DELETE SET NULL,
  target_label    TEXT NOT NULL,
  title           TEXT NOT NULL,
  body            TEXT NOT NULL,
  emoji           TEXT,
  image           TEXT,
  url             TEXT,
  created_at      INTEGER NOT NULL
);
CREATE INDEX notifications_app ON notifications (app_id, id);

-- Who a notification was addressed to (each user once): the receiver's history.
CREATE TABLE notification_recipients (
  user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  notification_id TEXT NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
  PRIMARY KEY (user_id, notification_id)
) WITHOUT ROWID;
CREATE INDEX notification_recipients_notification ON notification_recipients (notification_id);

-- The outbox: one row per (notification, device), written in the same transaction as the
-- notification. status: pending -> delivered | failed | expired.
CREATE TABLE deliveries (
  id              INTEGER PRIMARY KEY,
  notification_id TEXT NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
  device_id       TEXT NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  channel         TEXT NOT NULL,
  status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'expired')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  provider_id     TEXT,
  last_error      TEXT,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  UNIQUE (notification_id, device_id)
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_device ON deliveries (device_id);

-- Operator settings (push service credentials, limits), one JSON value per key.
CREATE TABLE settings (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
