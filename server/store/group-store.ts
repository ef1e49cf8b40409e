import { ulid } from 'ulid';
import type { Db } from './db.js';
import type { Clock } from '../domain/clock.js';
import { HubError } from '../domain/errors.js';
import { newGroupKey } from '../domain/keys.js';

/** A User Group: a named set of receivers addressed by its User Group Key. */
export interface GroupRecord {
  id: string;
  name: string;
  groupKey: string;
  userIds: string[];
  createdAt: number;
}

interface GroupRow {
  id: string;
  name: string;
  group_key: string;
  created_at: number;
}

/** User Groups and their members. */
export type GroupStore = ReturnType<typeof createGroupStore>;

/** Builds the group store over an open database. */
export function createGroupStore(db: Db, clock: Clock) {
  const insert = db.prepare('INSERT INTO groups (id, name, group_key, created_at) VALUES (?, ?, ?, ?)');
  const selectAll = db.prepare<[], GroupRow>('SELECT * FROM groups ORDER BY name COLLATE NOCASE, id');
  const selectById = db.prepare<[string], GroupRow>('SELECT * FROM groups WHERE id = ?');
  const selectByKey = db.prepare<[string], GroupRow>('SELECT * FROM groups WHERE group_key = ?');
  const selectMembers = db
    .prepare<[string], string>('SELECT user_id FROM group_members WHERE group_id = ? ORDER BY user_id')
    .pluck();
  const userExists = db.prepare<[string], number>('SELECT 1 FROM users WHERE id = ?').pluck();
  const clearMembers = db.prepare('DELETE FROM group_members WHERE group_id = ?');
  const addMember = db.prepare('INSERT OR IGNORE INTO group_members (group_id, user_id) VALUES (?, ?)');
  const remove = db.prepare('DELETE FROM groups WHERE id = ?');

  const toRecord = (r: GroupRow): GroupRecord => ({
    id: r.id,
    name: r.name,
    groupKey: r.group_key,
    userIds: selectMembers.all(r.id),
    createdAt: r.created_at,
  });

  const replaceMembers = (groupId: string, userIds: string[]) => {
    userIds.forEach((userId, i) => {
      if (!userExists.get(userId)) {
        throw new HubError('unknown_user', `no user has the id "${userId}"`, { field: `userIds.${i}` });
      }
    });
    clearMembers.run(groupId);
    for (const userId of userIds) addMember.run(groupId, userId);
  };

  return {
    /** @throws HubError 400 `unknown_user` when a member id does not exist (nothing is created). */
    create(input: { name: string; userIds?: string[] }): GroupRecord {
      return db.transaction(() => {
        const row: GroupRow = { id: ulid(), name: input.name, group_key: newGroupKey(), created_at: clock.now() };
        insert.run(row.id, row.name, row.group_key, row.created_at);
        replaceMembers(row.id, input.userIds ?? []);
        return toRecord(row);
      })();
    },
    list(): GroupRecord[] {
      return selectAll.all().map(toRecord);
    },
    get(id: string): GroupRecord | undefined {
      const row = selectById.get(id);
      return row && toRecord(row);
    },
    findByGroupKey(groupKey: string): GroupRecord | undefined {
      const row = selectByKey.get(groupKey);
      return row && toRecord(row);
    },
    /** Sets the members to exactly `userIds`; undefined if no such group. @throws as {@link create}. */
    setMembers(id: string, userIds: string[]): GroupRecord | undefined {
      return db.transaction(() => {
        const row = selectById.get(id);
        if (!row) return undefined;
        replaceMembers(id, userIds);
        return toRecord(row);
      })();
    },
    delete(id: string): boolean {
      return remove.run(id).changes > 0;
    },
  };
}
