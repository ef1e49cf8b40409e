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

/** Builds the push pipeline. `newId` makes time-sortable notification ids (ULIDs by default). */
export function createPushService({ store, clock, newId = monotonicFactory(), onAccepted }: {
  store: Store;
  clock: Clock;
  newId?: (seedTime?: number) => string;
  /** Called after the commit: wakes the dispatcher and the receivers' live streams. */
  onAccepted?: (notification: NotificationContent, userIds: string[]) => void;
}) {
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
      const accepted = store.transaction(() => {
        const user = input.userKey === undefined ? undefined : store.users.findByUserKey(input.userKey);
        if (input.userKey !== undefined && !user) {
          throw new HubError('unknown_user_key', 'no receiver has this User Key', { field: 'userKey' });
        }
        const group = input.userGroupKey === undefined ? undefined : store.groups.findByGroupKey(input.userGroupKey);
        if (input.userGroupKey !== undefined && !group) {
          throw new HubError('unknown_user_group_key', 'no User Group has this User Group Key', { field: 'userGroupKey' });
        }
        const createdAt = clock.now();
        const id = newId(createdAt);
        const label = [user?.name, group?.name].filter(Boolean).join(' + ');
        const { deliveries, userIds } = store.notifications.insert({
          id,
          app: { id: app.id, name: app.name },
          target: { userId: user?.id ?? null, groupId: group?.id ?? null, label },
          content: input,
          createdAt,
        });
        return { id, deliveries, userIds, createdAt };
      });
      onAccepted?.(
        {
          id: accepted.id,
          title: input.title,
          body: input.body,
          emoji: input.emoji ?? null,
          image: input.image ?? null,
          url: input.url ?? null,
          createdAt: accepted.createdAt,
        },
        accepted.userIds,
      );
      return { id: accepted.id, deliveries: accepted.deliveries };
    },
  };
}
