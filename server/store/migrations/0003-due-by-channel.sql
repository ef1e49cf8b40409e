-- Pushhub schema 3: the outbox's due index leads with the channel (speed issue, benchmark 3).
-- The dispatcher reads each channel's due deliveries on every look at the outbox. With the index
-- on next_attempt_at alone, a channel with nothing due (FCM while APNs drains 20,000 rows)
-- still walked every pending row of the other channels to find that out: about 1 ms per look
-- per empty channel at 20,000 pending. With (channel, next_attempt_at) it is one seek, and the
-- earliest due time is read per channel the same way.
DROP INDEX deliveries_due;
CREATE INDEX deliveries_due ON deliveries (channel, next_attempt_at) WHERE status = 'pending';
