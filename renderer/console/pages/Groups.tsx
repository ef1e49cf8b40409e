import { useState, type FormEvent } from 'react';
import { api, errorMessage, type Group, type User } from '../api';
import { CopyButton, CopyField } from '../components/Copy';
import { ConfirmDialog, Dialog } from '../components/Dialog';
import { Icon } from '../components/Icon';
import { initials, MemberPicker } from '../components/MemberPicker';
import { Snippets } from '../components/Snippets';
import { EmptyState, ErrorState, Loading, PageHeader, Section } from '../components/States';
import { Time } from '../components/Status';
import { useToast } from '../components/Toast';
import { formatDateTime } from '../format';
import { useResource, useTitle } from '../hooks';
import { Link, useRouter } from '../router';

/** User Groups: one User Group Key reaches every member. */
export function GroupsPage() {
  useTitle('User Groups');
  const data = useResource(() => Promise.all([api.groups(), api.users()]), []);
  const [creating, setCreating] = useState(false);
  const { navigate } = useRouter();
  const toast = useToast();

  const create = (
    <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
      <Icon name="plus" size={16} /> Create group
    </button>
  );
  const [groups, users] = data.data ?? [undefined, undefined];
  return (
    <div className="page">
      <PageHeader
        title="User Groups"
        description="A group bundles users under one User Group Key: a notification sent to it reaches every member once."
        actions={create}
      />
      {data.error !== undefined && !data.data ? (
        <ErrorState error={data.error} onRetry={data.reload} title="The groups could not be loaded" />
      ) : !groups ? (
        <Loading label="Loading groups…" />
      ) : groups.length === 0 ? (
        <EmptyState icon="groups" title="No User Groups yet" action={create}>
          Groups are handy for “everyone in the house” or “the on-call team”.
        </EmptyState>
      ) : (
        <div className="card card-flush">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Members</th>
                <th scope="col">User Group Key</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {groups.map((g) => (
                <tr key={g.id}>
                  <td>
                    <Link to={`/groups/${g.id}`} className="row-link">
                      {g.name}
                    </Link>
                  </td>
                  <td>
                    <MemberAvatars ids={g.userIds} users={users ?? []} />
                  </td>
                  <td>
                    <span className="inline-key">
                      <code>{g.groupKey}</code>
                      <CopyButton value={g.groupKey} label={`Copy User Group Key of ${g.name}`} className="btn btn-small btn-ghost" />
                    </span>
                  </td>
                  <td>
                    <Time iso={g.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Dialog open={creating} onClose={() => setCreating(false)} title="Create User Group" wide>
        <CreateGroupForm
          users={users ?? []}
          onClose={() => setCreating(false)}
          onCreated={(g) => {
            setCreating(false);
            toast(`${g.name} created`);
            navigate(`/groups/${g.id}`);
          }}
        />
      </Dialog>
    </div>
  );
}

function MemberAvatars({ ids, users }: { ids: string[]; users: User[] }) {
  if (ids.length === 0) return <span className="muted">No members</span>;
  const members = ids.map((id) => users.find((u) => u.id === id)).filter((u): u is User => u !== undefined);
  return (
    <span className="avatars" title={members.map((m) => m.name).join(', ')}>
      {members.slice(0, 4).map((m) => (
        <span key={m.id} className="avatar avatar-small" aria-hidden="true">
          {initials(m.name)}
        </span>
      ))}
      <span className="avatars-count">
        {ids.length} {ids.length === 1 ? 'member' : 'members'}
      </span>
    </span>
  );
}

function CreateGroupForm({ users, onClose, onCreated }: { users: User[]; onClose: () => void; onCreated: (g: Group) => void }) {
  const [name, setName] = useState('');
  const [members, setMembers] = useState<Set<string>>(new Set());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onCreated(await api.createGroup(name.trim(), [...members]));
    } catch (err) {
      setError(errorMessage(err));
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit}>
      <div className="dialog-body">
        <label className="field">
          <span className="field-label">Name</span>
          <input name="name" required maxLength={100} autoFocus placeholder="Family" value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <div className="field">
          <span className="field-label">Members</span>
          <MemberPicker users={users} selected={members} onChange={setMembers} />
        </div>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
      </div>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy || !name.trim()}>
          {busy ? 'Creating…' : 'Create group'}
        </button>
      </div>
    </form>
  );
}

/** One User Group: key, members, examples. */
export function GroupDetailPage({ id }: { id: string }) {
  const data = useResource(() => Promise.all([api.group(id), api.users()]), [id]);
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [removing, setRemoving] = useState<string | null>(null);
  const { navigate } = useRouter();
  const toast = useToast();
  useTitle(data.data?.[0].name ?? 'User Group');

  const back = (
    <Link to="/groups" className="back-link">
      <Icon name="arrowLeft" size={16} /> User Groups
    </Link>
  );
  if (data.error !== undefined && !data.data) {
    return (
      <div className="page">
        <PageHeader title="User Group" back={back} />
        <ErrorState error={data.error} onRetry={data.reload} />
      </div>
    );
  }
  if (!data.data) return <Loading label="Loading the group…" />;
  const [group, users] = data.data;
  const members = group.userIds.map((uid) => users.find((u) => u.id === uid)).filter((u): u is User => u !== undefined);

  const saveMembers = async (userIds: string[]) => {
    const updated = await api.setMembers(group.id, userIds);
    data.setData([updated, users]);
  };
  const remove = async (user: User) => {
    setRemoving(user.id);
    try {
      await saveMembers(group.userIds.filter((x) => x !== user.id));
      toast(`${user.name} removed from ${group.name}`);
    } catch (err) {
      toast(errorMessage(err), 'error');
    } finally {
      setRemoving(null);
    }
  };

  return (
    <div className="page">
      <PageHeader
        back={back}
        title={group.name}
        description={`Created ${formatDateTime(group.createdAt)}`}
        actions={
          <button type="button" className="btn btn-danger-outline" onClick={() => setDeleting(true)}>
            <Icon name="trash" size={16} /> Delete
          </button>
        }
      />
      <Section title="User Group Key" description="Send to this key to reach every member.">
        <CopyField value={group.groupKey} label="User Group Key" />
      </Section>
      <Section
        id="members"
        title={`Members (${members.length})`}
        actions={
          <button type="button" className="btn btn-small btn-primary" onClick={() => setAdding(true)}>
            <Icon name="plus" size={14} /> Add members
          </button>
        }
      >
        {members.length === 0 ? (
          <p className="muted">No members yet: notifications to this group reach nobody.</p>
        ) : (
          <ul className="list" aria-label="Members">
            {members.map((m) => (
              <li key={m.id} className="list-row">
                <Link to={`/users/${m.id}`} className="with-avatar list-main">
                  <span className="avatar" aria-hidden="true">
                    {initials(m.name)}
                  </span>
                  <span>
                    {m.name} <span className="muted">@{m.username}</span>
                  </span>
                </Link>
                <button
                  type="button"
                  className="btn btn-small btn-ghost-danger"
                  onClick={() => void remove(m)}
                  disabled={removing === m.id}
                  aria-label={`Remove ${m.name} from the group`}
                >
                  {removing === m.id ? 'Removing…' : 'Remove'}
                </button>
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Section title="Send from a script" description="Any app’s API key can send to this group.">
        <Snippets target={{ userGroupKey: group.groupKey }} />
      </Section>

      <Dialog open={adding} onClose={() => setAdding(false)} title={`Add members to ${group.name}`} wide>
        <AddMembersForm
          users={users}
          members={group.userIds}
          onClose={() => setAdding(false)}
          onSave={async (ids) => {
            await saveMembers([...group.userIds, ...ids]);
            toast(ids.length === 1 ? 'Member added' : `${ids.length} members added`);
            setAdding(false);
          }}
        />
      </Dialog>
      <ConfirmDialog
        open={deleting}
        onClose={() => setDeleting(false)}
        title={`Delete ${group.name}?`}
        confirmLabel="Delete group"
        danger
        onConfirm={async () => {
          await api.deleteGroup(group.id);
          toast(`${group.name} deleted`);
          navigate('/groups', { replace: true });
        }}
      >
        <p>Its User Group Key stops working. The users themselves are not deleted.</p>
      </ConfirmDialog>
    </div>
  );
}

function AddMembersForm({ users, members, onClose, onSave }: {
  users: User[];
  members: string[];
  onClose: () => void;
  onSave: (ids: string[]) => Promise<void>;
}) {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSave([...selected]);
    } catch (err) {
      setError(errorMessage(err));
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit}>
      <div className="dialog-body">
        <MemberPicker users={users} selected={selected} onChange={setSelected} exclude={members} />
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
      </div>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy || selected.size === 0}>
          {busy ? 'Adding…' : selected.size > 1 ? `Add ${selected.size} members` : 'Add member'}
        </button>
      </div>
    </form>
  );
}
