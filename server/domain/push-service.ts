import { monotonicFactory } from 'ulid';
import type { NotificationContent } from '../delivery/types.js';
import type { Clock } from './clock.js';
import { HubError } from './errors.js';
import type { NotificationInput } from './notification.js';
import type { AppRecord } from '../store/app-store.js';
import type { Store } from '../store/index.js';

/** The answer of an accepted push: the notification id (spec "Notification result"). */
export interface AcceptedPush {
  id: string;
  /** Deliveries written to the outbox (one per active device of every recipient). */
  deliveries: number;
}

/** The push pipeline shared by `POST /v1/push` and the console's test push. */
export type PushService = ReturnType<typeof createPushService>;

interface Stored extends AcceptedPush {
  notification: NotificationContent;
  userIds: string[];
}

interface Waiting {
  app: AppRecord;
  input: NotificationInput;
  resolve: (value: AcceptedPush) => void;
  reject: (err: unknown) => void;
}

/** Builds the push pipeline. `newId` makes time-sortable notification ids (ULIDs by default). */
export function createPushService({ store, clock, newId = monotonicFactory(), onAccepted, onlineStreamDevices }: {
  store: Store;
  clock: Clock;
  newId?: (seedTime?: number) => string;
  /**
   * The `stream` devices with an open stream now, as a JSON array of ids (the stream hub's
   * `onlineDevicesJson`): deliveries to the others are written waiting for them to connect.
   */
  onlineStreamDevices?: () => string;
  /** Called after the commit: wakes the dispatcher and the receivers' live streams. */
  onAccepted?: (notification: NotificationContent, userIds: string[]) => void;
}) {
  /**
   * Resolves the target: the User Key's user and the User Group. Reads only.
   * @throws HubError 400 for an unknown User Key / User Group Key.
   */
  const resolve = (input: NotificationInput) => {
    const user = input.userKey === undefined ? undefined : store.users.findByUserKey(input.userKey);
    if (input.userKey !== undefined && !user) {
      throw new HubError('unknown_user_key', 'no receiver has this User Key', { field: 'userKey' });
    }
    const group = input.userGroupKey === undefined ? undefined : store.groups.findByGroupKey(input.userGroupKey);
    if (input.userGroupKey !== undefined && !group) {
      throw new HubError('unknown_user_group_key', 'no User Group has this User Group Key', { field: 'userGroupKey' });
    }
    return { user, group };
  };

  /** Writes one resolved notification with its recipients and outbox rows. Must run inside a transaction. */
  const write = (app: AppRecord, input: NotificationInput, target: ReturnType<typeof resolve>): Stored => {
    const { user, group } = target;
    const createdAt = clock.now();
    const id = newId(createdAt);
    const { deliveries, userIds } = store.notifications.insert({
      id,
      app: { id: app.id, name: app.name },
      target: { userId: user?.id ?? null, groupId: group?.id ?? null, label: [user?.name, group?.name].filter(Boolean).join(' + ') },
      content: input,
      createdAt,
      ...(onlineStreamDevices ? { onlineStreamDevices: onlineStreamDevices() } : {}),
    });
    const notification: NotificationContent = {
      id,
      title: input.title,
      body: input.body,
      emoji: input.emoji ?? null,
      image: input.image ?? null,
      url: input.url ?? null,
      createdAt,
    };
    return { id, deliveries, notification, userIds };
  };

  const announce = (s: Stored) => onAccepted?.(s.notification, s.userIds);

  // Group commit: every push submitted during one event-loop turn is written in one transaction
  // (one fsync at synchronous=FULL), and each is answered only after that commit.
  let waiting: Waiting[] = [];
  const flush = () => {
    const batch = waiting;
    waiting = [];
    let outcomes: Array<{ ok: true; stored: Stored } | { ok: false; err: unknown }>;
    try {
      outcomes = store.transaction(() =>
        batch.map((w) => {
          let target: ReturnType<typeof resolve>;
          try {
            target = resolve(w.input); // an unknown key fails this push alone, before it writes anything
          } catch (err) {
            return { ok: false as const, err };
          }
          return { ok: true as const, stored: write(w.app, w.input, target) };
        }),
      );
    } catch (err) {
      // A write or the commit failed (disk full, database locked): nothing of the batch is stored.
      for (const w of batch) w.reject(err);
      return;
    }
    outcomes.forEach((o, i) => {
      const w = batch[i]!;
      if (o.ok) w.resolve({ id: o.stored.id, deliveries: o.stored.deliveries });
      else w.reject(o.err);
    });
    for (const o of outcomes) if (o.ok) announce(o.stored);
  };

  return {
    /**
     * Resolves the target (the union of the User Key's user and the User Group's members, each
     * user once) and, in one transaction, stores the notification and its outbox rows. When
     * this returns, the notification is durable; nothing is written when it throws.
     *
     * @throws HubError 400 `unknown_user_key` (field userKey) or `unknown_user_group_key`
     *   (field userGroupKey) when a key addresses nobody.
     */
    accept(app: AppRecord, input: NotificationInput): AcceptedPush {
      const stored = store.transaction(() => write(app, input, resolve(input)));
      announce(stored);
      return { id: stored.id, deliveries: stored.deliveries };
    },

    /**
     * The same as {@link accept}, committed together with the other pushes submitted in the same
     * event-loop turn (group commit). Resolves after the commit; rejects with the push's own
     * error (it alone is rolled back) or with the commit's error (nothing of the batch is stored).
     */
    submit(app: AppRecord, input: NotificationInput): Promise<AcceptedPush> {
      return new Promise((resolve, reject) => {
        waiting.push({ app, input, resolve, reject });
        if (waiting.length === 1) setImmediate(flush);
      });
    },
  };
}
