import { useId, useMemo, useState } from 'react';
import type { User } from '../api';
import { Icon } from './Icon';

/**
 * Picks users for a group: a search box filtering a list of checkboxes (native controls, so
 * Tab, Space and screen readers work as everywhere else).
 */
export function MemberPicker({ users, selected, onChange, exclude = [] }: {
  users: User[];
  selected: ReadonlySet<string>;
  onChange: (next: Set<string>) => void;
  /** Users not offered (already members). */
  exclude?: readonly string[];
}) {
  const [query, setQuery] = useState('');
  const listId = useId();
  const offered = useMemo(() => users.filter((u) => !exclude.includes(u.id)), [users, exclude]);
  const shown = useMemo(() => {
    const q = query.trim().toLowerCase();
    return q ? offered.filter((u) => u.name.toLowerCase().includes(q) || u.username.toLowerCase().includes(q)) : offered;
  }, [offered, query]);
  const toggle = (id: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    onChange(next);
  };

  if (offered.length === 0) {
    return <p className="muted picker-empty">{users.length === 0 ? 'There are no users yet.' : 'Every user is already a member.'}</p>;
  }
  return (
    <div className="picker">
      <div className="search-field">
        <Icon name="search" size={16} />
        <input
          type="search"
          placeholder="Search by name or username"
          aria-label="Search users"
          aria-controls={listId}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
      </div>
      <fieldset className="picker-list" id={listId}>
        <legend className="visually-hidden">Users</legend>
        {shown.length === 0 && <p className="muted picker-empty">No user matches “{query}”.</p>}
        {shown.map((u) => (
          <label key={u.id} className="picker-item">
            <input type="checkbox" checked={selected.has(u.id)} onChange={(e) => toggle(u.id, e.target.checked)} />
            <span className="avatar" aria-hidden="true">
              {initials(u.name)}
            </span>
            <span className="picker-name">
              {u.name} <span className="muted">@{u.username}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <p className="picker-count" aria-live="polite">
        {selected.size === 0 ? 'Nobody selected' : `${selected.size} selected`}
      </p>
    </div>
  );
}

/** "Alice Smith" → "AS". */
export function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return ((parts[0]?.[0] ?? '?') + (parts.length > 1 ? (parts.at(-1)?.[0] ?? '') : '')).toUpperCase();
}
