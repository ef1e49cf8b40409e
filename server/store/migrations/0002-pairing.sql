-- Pushhub schema 2: one-time pairing links (issue "Web receiver app" / "Pairing"). The operator
-- makes one for a receiver in the console; opening it signs a device in to that account without
-- the password. Only the SHA-256 of the token is stored. used_at is set when it is redeemed, so
-- a second use can be told apart from an unknown link; rows are purged a day after they expire.

CREATE TABLE pairing_tokens (
  token_hash  BLOB PRIMARY KEY,
  user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL,
  used_at     INTEGER
);
CREATE INDEX pairing_tokens_user ON pairing_tokens (user_id);
CREATE INDEX pairing_tokens_expires ON pairing_tokens (expires_at);
