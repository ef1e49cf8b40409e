import { useState, type FormEvent } from 'react';
import { api, ApiError, errorMessage, type Device, type User } from '../api';
import { AddDevice } from '../components/AddDevice';
import { CopyButton, CopyField } from '../components/Copy';
import { TextField } from '../components/Field';
import { ConfirmDialog, Dialog } from '../components/Dialog';
import { Icon } from '../components/Icon';
import { initials } from '../components/MemberPicker';
import { Snippets } from '../components/Snippets';
import { EmptyState, ErrorState, Loading, PageHeader, Section } from '../components/States';
import { SummaryBar, Time } from '../components/Status';
import { useToast } from '../components/Toast';
import { channelNames, displayTitle, formatDateTime, platformNames } from '../format';
import { useResource, useTitle } from '../hooks';
import { Link, useRouter } from '../router';

const MIN_PASSWORD = 8;

/** Receivers: each has a username and password for the receiver apps, and a User Key. */
export function UsersPage() {
  useTitle('Users');
  const users = useResource(api.users, []);
  const [creating, setCreating] = useState(false);
  const { navigate } = useRouter();
  const toast = useToast();

  const create = (
    <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
      <Icon name="plus" size={16} /> Create user
    </button>
  );
  return (
    <div className="page">
      <PageHeader
        title="Users"
        description="Users receive notifications on their devices. Each signs in to the receiver apps and has a User Key that scripts send to."
        actions={create}
      />
      {users.error !== undefined && !users.data ? (
        <ErrorState error={users.error} onRetry={users.reload} title="The users could not be loaded" />
      ) : !users.data ? (
        <Loading label="Loading users…" />
      ) : users.data.length === 0 ? (
        <EmptyState icon="users" title="No users yet" action={create}>
          Create a user for each person who should receive notifications.
        </EmptyState>
      ) : (
        <div className="card card-flush">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Username</th>
                <th scope="col">User Key</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {users.data.map((u) => (
                <tr key={u.id}>
                  <td>
                    <Link to={`/users/${u.id}`} className="row-link with-avatar">
                      <span className="avatar" aria-hidden="true">
                        {initials(u.name)}
                      </span>
                      {u.name}
                    </Link>
                  </td>
                  <td className="muted">@{u.username}</td>
                  <td>
                    <span className="inline-key">
                      <code>{u.userKey}</code>
                      <CopyButton value={u.userKey} label={`Copy User Key of ${u.name}`} className="btn btn-small btn-ghost" />
                    </span>
                  </td>
                  <td>
                    <Time iso={u.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Dialog open={creating} onClose={() => setCreating(false)} title="Create user" description="The username and password are what they type in the receiver app.">
        <CreateUserForm
          onClose={() => setCreating(false)}
          onCreated={(u) => {
            setCreating(false);
            toast(`${u.name} created`);
            navigate(`/users/${u.id}`);
          }}
        />
      </Dialog>
    </div>
  );
}

function CreateUserForm({ onClose, onCreated }: { onClose: () => void; onCreated: (u: User) => void }) {
  const [name, setName] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; field?: string } | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onCreated(await api.createUser({ name: name.trim(), username: username.trim(), password }));
    } catch (err) {
      setBusy(false);
      if (err instanceof ApiError && err.code === 'conflict') setError({ message: `The username “${username}” is taken.`, field: 'username' });
      else setError({ message: errorMessage(err), ...(err instanceof ApiError && err.field ? { field: err.field } : {}) });
    }
  };
  return (
    <form onSubmit={submit}>
      <div className="dialog-body">
        <TextField
          label="Name"
          name="name"
          required
          maxLength={100}
          autoFocus
          placeholder="Alice"
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={error?.field === 'name' ? error.message : null}
        />
        <TextField
          label="Username"
          name="username"
          required
          maxLength={64}
          autoComplete="off"
          placeholder="alice"
          pattern="[A-Za-z0-9._@\-]+"
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          hint="Letters, digits and . _ @ - only."
          error={error?.field === 'username' ? error.message : null}
        />
        <TextField
          label="Password"
          name="password"
          type="password"
          required
          minLength={MIN_PASSWORD}
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          hint={`At least ${MIN_PASSWORD} characters. Give it to them in person.`}
          error={error?.field === 'password' ? error.message : null}
        />
        {error && !['name', 'username', 'password'].includes(error.field ?? '') && (
          <p className="form-error" role="alert">
            {error.message}
          </p>
        )}
      </div>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create user'}
        </button>
      </div>
    </form>
  );
}

type UserFlow = { kind: 'rename' } | { kind: 'password' } | { kind: 'delete' } | { kind: 'remove-device'; device: Device } | null;

/** One receiver: User Key, devices, examples, recent notifications. */
export function UserDetailPage({ id }: { id: string }) {
  const user = useResource(() => api.user(id), [id]);
  const recent = useResource(() => api.notifications({ userId: id, limit: 5 }), [id]);
  const [flow, setFlow] = useState<UserFlow>(null);
  const { navigate } = useRouter();
  const toast = useToast();
  useTitle(user.data?.name ?? 'User');

  const back = (
    <Link to="/users" className="back-link">
      <Icon name="arrowLeft" size={16} /> Users
    </Link>
  );
  if (user.error !== undefined && !user.data) {
    return (
      <div className="page">
        <PageHeader title="User" back={back} />
        <ErrorState error={user.error} onRetry={user.reload} />
      </div>
    );
  }
  if (!user.data) return <Loading label="Loading the user…" />;
  const u = user.data;
  const close = () => setFlow(null);

  return (
    <div className="page">
      <PageHeader
        back={back}
        title={u.name}
        description={`@${u.username} · created ${formatDateTime(u.createdAt)}`}
        actions={
          <>
            <button type="button" className="btn" onClick={() => setFlow({ kind: 'rename' })}>
              <Icon name="edit" size={16} /> Rename
            </button>
            <button type="button" className="btn" onClick={() => setFlow({ kind: 'password' })}>
              <Icon name="key" size={16} /> Reset password
            </button>
            <button type="button" className="btn btn-danger-outline" onClick={() => setFlow({ kind: 'delete' })}>
              <Icon name="trash" size={16} /> Delete
            </button>
          </>
        }
      />

      <Section title="User Key" description="Scripts address this user with it, together with an app’s API key.">
        <CopyField value={u.userKey} label="User Key" />
      </Section>

      <Section id="devices" title="Devices" description="Every notification to this user goes to each active device.">
        {u.devices.length === 0 ? (
          <p className="muted">No devices yet. A device appears here when {u.name} signs in to a receiver app.</p>
        ) : (
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Device</th>
                  <th scope="col">Platform</th>
                  <th scope="col">Channel</th>
                  <th scope="col">Last delivery</th>
                  <th scope="col">State</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {u.devices.map((d) => (
                  <tr key={d.id}>
                    <td>
                      <span className="with-icon">
                        <Icon name="device" size={16} /> {d.name}
                      </span>
                    </td>
                    <td>{platformNames[d.platform]}</td>
                    <td>{channelNames[d.channel]}</td>
                    <td>
                      <Time iso={d.lastSuccessAt} />
                    </td>
                    <td>
                      {d.deactivated ? (
                        <span className="badge badge-failed" title={d.deactivatedReason ?? undefined}>
                          Deactivated{d.deactivatedReason ? `: ${d.deactivatedReason}` : ''}
                        </span>
                      ) : (
                        <span className="badge badge-delivered">Active</span>
                      )}
                    </td>
                    <td className="row-actions">
                      <button
                        type="button"
                        className="btn btn-small btn-ghost-danger"
                        onClick={() => setFlow({ kind: 'remove-device', device: d })}
                        aria-label={`Remove ${d.name}`}
                      >
                        <Icon name="trash" size={14} /> Remove
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>

      {/* ADD A DEVICE: a one-time pairing link and its QR code (components/AddDevice.tsx). Keep the id and data-slot so tests can find it. */}
      <Section id="add-device" title="Add a device" description="Sign in a phone or computer to this account without typing the password.">
        <div data-slot="add-device">
          <AddDevice key={u.id} userId={u.id} name={u.name} username={u.username} />
        </div>
      </Section>

      <Section title="Send from a script" description="Any app’s API key can send to this user.">
        <Snippets target={{ userKey: u.userKey }} />
      </Section>

      <Section
        title="Recent notifications"
        actions={
          <Link to={`/notifications?user=${u.id}`} className="btn btn-small">
            All to {u.name}
          </Link>
        }
      >
        {recent.error !== undefined && !recent.data ? (
          <ErrorState error={recent.error} onRetry={recent.reload} />
        ) : !recent.data ? (
          <Loading inline />
        ) : recent.data.items.length === 0 ? (
          <p className="muted">Nothing sent to {u.name} yet.</p>
        ) : (
          <ul className="list">
            {recent.data.items.map((n) => (
              <li key={n.id}>
                <Link to={`/notifications/${n.id}`} className="list-row">
                  <span className="list-main">{displayTitle(n)}</span>
                  <span className="list-meta">
                    {n.app.name} · <Time iso={n.createdAt} />
                  </span>
                  <SummaryBar summary={n.summary} />
                </Link>
              </li>
            ))}
          </ul>
        )}
      </Section>

      <Dialog open={flow?.kind === 'rename'} onClose={close} title={`Rename ${u.name}`}>
        <SingleFieldForm
          label="Name"
          initial={u.name}
          submitLabel="Save"
          onCancel={close}
          onSubmit={async (name) => {
            user.setData(await api.updateUser(u.id, { name }).then((updated) => ({ ...u, ...updated })));
            toast('Name saved');
            close();
          }}
        />
      </Dialog>
      <Dialog
        open={flow?.kind === 'password'}
        onClose={close}
        title={`Reset the password of ${u.name}`}
        description="Devices already signed in stay signed in; the new password is needed for the next sign-in."
      >
        <SingleFieldForm
          label="New password"
          type="password"
          minLength={MIN_PASSWORD}
          hint={`At least ${MIN_PASSWORD} characters.`}
          submitLabel="Set password"
          onCancel={close}
          onSubmit={async (password) => {
            await api.updateUser(u.id, { password });
            toast(`Password of ${u.name} changed`);
            close();
          }}
        />
      </Dialog>
      <ConfirmDialog
        open={flow?.kind === 'delete'}
        onClose={close}
        title={`Delete ${u.name}?`}
        confirmLabel="Delete user"
        danger
        onConfirm={async () => {
          await api.deleteUser(u.id);
          toast(`${u.name} deleted`);
          navigate('/users', { replace: true });
        }}
      >
        <p>
          Their devices stop receiving notifications and their User Key stops working. Notifications already sent stay in the history.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={flow?.kind === 'remove-device'}
        onClose={close}
        title={flow?.kind === 'remove-device' ? `Remove ${flow.device.name}?` : 'Remove device'}
        confirmLabel="Remove device"
        danger
        onConfirm={async () => {
          if (flow?.kind !== 'remove-device') return;
          await api.removeDevice(u.id, flow.device.id);
          toast(`${flow.device.name} removed`);
          close();
          await user.reload();
        }}
      >
        <p>It gets no more notifications until it signs in again.</p>
      </ConfirmDialog>
    </div>
  );
}

/** A one-input form (rename, new password) with its error in place. */
export function SingleFieldForm({ label, initial = '', type = 'text', minLength, hint, submitLabel, onCancel, onSubmit }: {
  label: string;
  initial?: string;
  type?: 'text' | 'password';
  minLength?: number;
  hint?: string;
  submitLabel: string;
  onCancel: () => void;
  onSubmit: (value: string) => Promise<void>;
}) {
  const [value, setValue] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSubmit(type === 'text' ? value.trim() : value);
    } catch (err) {
      setError(errorMessage(err));
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit}>
      <div className="dialog-body">
        <TextField
          label={label}
          type={type}
          required
          autoFocus
          minLength={minLength}
          maxLength={type === 'text' ? 100 : 1024}
          autoComplete={type === 'password' ? 'new-password' : 'off'}
          value={value}
          onChange={(e) => setValue(e.target.value)}
          hint={hint}
        />
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
      </div>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
      </div>
    </form>
  );
}
