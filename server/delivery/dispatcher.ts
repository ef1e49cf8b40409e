import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { channels, type Channel } from '../store/device-store.js';
import type { DueCursor, DueDelivery, OutboxStore } from '../store/outbox-store.js';
import type { PushSender, SendOutcome } from './types.js';

/** Retry and concurrency settings of the dispatcher (config `delivery`). Times in ms. */
export interface DispatcherOptions {
  /** Sends in flight at once, per channel (unless `channelConcurrency` says otherwise for it). */
  concurrency: number;
  /** Per-channel overrides of `concurrency` (APNs multiplexes ~1000 streams; see decision 0004). */
  channelConcurrency?: Partial<Record<Channel, number>>;
  /** A delivery not done this long after its notification was accepted ends `expired`. */
  maxAgeMs: number;
  /** First retry delay; doubled per attempt, capped at maxBackoffMs, with jitter. */
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** Longest sleep between looks at the outbox, as a safety net besides wake() (default 1000). */
  pollMs?: number;
}

/** Shortest time between two looks at the outbox (ms). */
const MIN_PUMP_INTERVAL_MS = 5;

/** The outbox loop. */
export type Dispatcher = ReturnType<typeof createDispatcher>;

/**
 * The delay before retry number `attempts + 1` (ms): exponential backoff with jitter (50–100% of
 * base · 2^attempts, capped), never sooner than the push service's Retry-After.
 */
export function retryDelay(
  attempts: number,
  retryAfterMs: number | undefined,
  o: Pick<DispatcherOptions, 'baseBackoffMs' | 'maxBackoffMs'>,
  random: () => number = Math.random,
): number {
  const exp = Math.min(o.maxBackoffMs, o.baseBackoffMs * 2 ** Math.min(attempts, 30));
  const jittered = Math.round(exp * (0.5 + random() * 0.5));
  return Math.max(jittered, retryAfterMs ?? 0);
}

/**
 * Sends the outbox (DESIGN.md "Data flow"): reads due deliveries from SQLite, sends each
 * through its channel's sender with bounded concurrency per channel, and records the outcome:
 * `delivered` (with the provider's id), a retry at a later time (backoff with jitter, honouring
 * Retry-After; `expired` past `maxAgeMs`), `invalid_token` (the device is deactivated and its
 * pending deliveries fail), or `failed` with the reason. A channel without a sender
 * (no credentials) fails its deliveries at once with `channel_not_configured`.
 *
 * Nothing is marked in the database before a send: after a crash every pending delivery is
 * simply due again (at-least-once).
 */
export function createDispatcher(deps: {
  outbox: OutboxStore;
  /** The current sender of a channel, or null when the channel is not configured. */
  senderFor: (channel: Channel) => PushSender | null;
  clock: Clock;
  logger: Logger;
  options: DispatcherOptions;
  random?: () => number;
  /** Hears every outcome (for metrics); `latencyMs` from acceptance, for deliveries. */
  onOutcome?: (channel: Channel, outcome: 'delivered' | 'retry' | 'invalid_token' | 'failed' | 'expired' | 'not_configured', latencyMs?: number) => void;
}) {
  const { outbox, clock, logger, options } = deps;
  const pollMs = options.pollMs ?? 1000;
  const inFlight = new Map<Channel, Map<number, Promise<void>>>(channels.map((c) => [c, new Map()]));
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let pumpQueued = false;
  let lastPumpAt = -Infinity;
  const cursors = new Map<Channel, DueCursor>();

  const record = (due: DueDelivery, outcome: SendOutcome) => {
    const { job } = due;
    const now = clock.now();
    const log = { deliveryId: job.deliveryId, channel: job.device.channel, deviceId: job.device.id, attempt: job.attempts + 1 };
    switch (outcome.kind) {
      case 'delivered':
        outbox.delivered(job.deliveryId, job.device.id, outcome.providerId ?? null, now);
        deps.onOutcome?.(job.device.channel, 'delivered', now - due.acceptedAt);
        logger.debug(log, 'delivered');
        return;
      case 'invalid_token':
        outbox.deactivateDevice(job.device.id, outcome.reason, now);
        deps.onOutcome?.(job.device.channel, 'invalid_token');
        logger.info({ ...log, reason: outcome.reason }, 'device token is no longer valid; device deactivated');
        return;
      case 'failed':
        outbox.end(job.deliveryId, 'failed', outcome.reason, now);
        deps.onOutcome?.(job.device.channel, 'failed');
        logger.warn({ ...log, reason: outcome.reason }, 'delivery failed');
        return;
      case 'retry': {
        const at = now + retryDelay(job.attempts, outcome.retryAfterMs, options, deps.random);
        if (at > due.acceptedAt + options.maxAgeMs) {
          outbox.end(job.deliveryId, 'expired', `gave up after ${job.attempts + 1} attempts: ${outcome.reason}`, now);
          deps.onOutcome?.(job.device.channel, 'expired');
          logger.warn({ ...log, reason: outcome.reason }, 'delivery expired');
        } else {
          outbox.retry(job.deliveryId, at, outcome.reason, now);
          deps.onOutcome?.(job.device.channel, 'retry');
          logger.debug({ ...log, reason: outcome.reason, retryAt: at }, 'delivery will be retried');
        }
      }
    }
  };

  // Outcomes that arrive in one event-loop turn are written in one transaction (one fsync).
  let toRecord: Array<{ due: DueDelivery; outcome: SendOutcome; done: () => void }> = [];
  const flushOutcomes = () => {
    const batch = toRecord;
    toRecord = [];
    try {
      outbox.transaction(() => {
        for (const r of batch) record(r.due, r.outcome);
      });
    } catch (err) {
      // The database refused the write: the deliveries stay pending and are sent again later.
      logger.error({ err, deliveries: batch.length }, 'could not record delivery outcomes');
    }
    for (const r of batch) r.done();
  };

  const run = async (due: DueDelivery, sender: PushSender) => {
    let outcome: SendOutcome;
    try {
      outcome = await sender.send(due.job);
    } catch (err) {
      outcome = { kind: 'retry', reason: `sender error: ${(err as Error).message}` };
    }
    // The delivery stays "in flight" until its outcome is written, so it is not picked up twice.
    await new Promise<void>((done) => {
      toRecord.push({ due, outcome, done });
      if (toRecord.length === 1) setImmediate(flushOutcomes);
    });
  };

  /** Settles deliveries that cannot be sent at all, without a send. */
  const settleWithoutSending = (due: DueDelivery, sender: PushSender | null, now: number): boolean => {
    const id = due.job.deliveryId;
    const channel = due.job.device.channel;
    if (now > due.acceptedAt + options.maxAgeMs) {
      outbox.end(id, 'expired', 'not sent before the age limit', now, false);
      deps.onOutcome?.(channel, 'expired');
    } else if (due.deviceDeactivated) {
      outbox.end(id, 'failed', 'device deactivated', now, false);
      deps.onOutcome?.(channel, 'failed');
    } else if (!sender) {
      outbox.end(id, 'failed', 'channel_not_configured', now, false);
      deps.onOutcome?.(channel, 'not_configured');
    } else {
      return false;
    }
    return true;
  };

  const pump = () => {
    pumpQueued = false;
    lastPumpAt = performance.now();
    if (!running) return;
    if (timer) clearTimeout(timer);
    timer = undefined;
    try {
      const now = clock.now();
      for (const channel of channels) {
        const flying = inFlight.get(channel)!;
        const free = (options.channelConcurrency?.[channel] ?? options.concurrency) - flying.size;
        if (free <= 0) continue;
        const sender = deps.senderFor(channel);
        let started = 0;
        // Read on from where the last read stopped, so the rows in flight are not read again;
        // at the end of the due rows start over (to pick up retries that came due meanwhile).
        const after = cursors.get(channel);
        const rows = outbox.due(channel, now, free, after);
        if (rows.length < free) cursors.delete(channel);
        else cursors.set(channel, rows.at(-1)!.cursor);
        for (const due of rows) {
          if (started >= free) break;
          if (flying.has(due.job.deliveryId)) continue;
          if (settleWithoutSending(due, sender, now)) continue;
          const id = due.job.deliveryId;
          const p = run(due, sender!).finally(() => {
            flying.delete(id);
            schedulePump();
          });
          flying.set(id, p);
          started++;
        }
      }
      const next = outbox.nextDueAt();
      const wait = next === null ? pollMs : Math.min(pollMs, Math.max(0, next - clock.now()));
      timer = setTimeout(pump, Math.max(wait, 5));
      timer.unref();
    } catch (err) {
      logger.error({ err }, 'dispatcher could not read the outbox; trying again');
      timer = setTimeout(pump, pollMs);
      timer.unref();
    }
  };

  // Under a burst of pushes every accept wakes the loop; looking at the outbox at most every
  // MIN_PUMP_INTERVAL_MS keeps those looks from crowding out the requests themselves.
  const schedulePump = () => {
    if (!running || pumpQueued) return;
    pumpQueued = true;
    const wait = lastPumpAt + MIN_PUMP_INTERVAL_MS - performance.now();
    if (wait > 0) setTimeout(pump, wait).unref();
    else setImmediate(pump);
  };

  return {
    /** Starts the loop; pending deliveries from before a restart are sent right away. */
    start(): void {
      if (running) return;
      running = true;
      schedulePump();
    },
    /** Looks at the outbox now (called after a push is accepted or a device reconnects). */
    wake: schedulePump,
    /** Sends in flight right now, per channel. */
    inFlight(): Record<Channel, number> {
      return Object.fromEntries(channels.map((c) => [c, inFlight.get(c)!.size])) as Record<Channel, number>;
    },
    /**
     * Stops taking new work and waits up to `timeoutMs` for sends in flight; whatever is still
     * unfinished stays pending in the outbox and is sent after the next start.
     */
    async stop(timeoutMs = 5000): Promise<void> {
      running = false;
      if (timer) clearTimeout(timer);
      const all = [...inFlight.values()].flatMap((m) => [...m.values()]);
      if (!all.length) return;
      let t: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled(all), new Promise((r) => (t = setTimeout(r, timeoutMs)))]);
      clearTimeout(t);
    },
  };
}
