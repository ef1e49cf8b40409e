import { useEffect, useId, useMemo, useState } from 'react';
import { api, type Group, type User } from '../api';

/** Someone a notification can be sent to: a user (User Key) or a User Group (User Group Key). */
export interface Target {
  value: string;
  kind: 'user' | 'group';
  name: string;
  address: { userKey: string } | { userGroupKey: string };
}

const fromUser = (u: User): Target => ({ value: `user:${u.id}`, kind: 'user', name: u.name, address: { userKey: u.userKey } });
const fromGroup = (g: Group): Target => ({
  value: `group:${g.id}`,
  kind: 'group',
  name: g.name,
  address: { userGroupKey: g.groupKey },
});

/** Loads users and groups as targets when `enabled`. */
export function useTargets(enabled: boolean): { options: Target[]; first: Target | null; loading: boolean; error: unknown } {
  const [users, setUsers] = useState<User[] | undefined>(undefined);
  const [groups, setGroups] = useState<Group[] | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    Promise.all([api.users(), api.groups()]).then(
      ([u, g]) => {
        if (!live) return;
        setUsers(u);
        setGroups(g);
      },
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [enabled]);
  const options = useMemo(() => [...(users ?? []).map(fromUser), ...(groups ?? []).map(fromGroup)], [users, groups]);
  return { options, first: options[0] ?? null, loading: enabled && users === undefined && error === undefined, error };
}

/** A select of users and User Groups. */
export function TargetPicker({ targets, value, onChange, label }: {
  targets: Target[];
  value: Target | null;
  onChange: (t: Target) => void;
  label: string;
}) {
  const id = useId();
  const users = targets.filter((t) => t.kind === 'user');
  const groups = targets.filter((t) => t.kind === 'group');
  return (
    <div className="field field-inline">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <select
        id={id}
        value={value?.value ?? ''}
        onChange={(e) => {
          const t = targets.find((x) => x.value === e.target.value);
          if (t) onChange(t);
        }}
      >
        {users.length > 0 && (
          <optgroup label="Users">
            {users.map((t) => (
              <option key={t.value} value={t.value}>
                {t.name}
              </option>
            ))}
          </optgroup>
        )}
        {groups.length > 0 && (
          <optgroup label="User Groups">
            {groups.map((t) => (
              <option key={t.value} value={t.value}>
                {t.name} (group)
              </option>
            ))}
          </optgroup>
        )}
      </select>
    </div>
  );
}
