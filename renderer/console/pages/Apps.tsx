import { useState, type FormEvent } from 'react';
import { api, errorMessage, type App, type CreatedApp } from '../api';
import { SecretOnce } from '../components/Copy';
import { ConfirmDialog, Dialog } from '../components/Dialog';
import { Icon } from '../components/Icon';
import { Snippets } from '../components/Snippets';
import { EmptyState, ErrorState, Loading, PageHeader, Section } from '../components/States';
import { SummaryBar, Time } from '../components/Status';
import { useToast } from '../components/Toast';
import { displayTitle, formatDateTime } from '../format';
import { useResource, useTitle } from '../hooks';
import { Link, useRouter } from '../router';
import { TargetPicker, useTargets, type Target } from './targets';

type Flow =
  | { kind: 'create' }
  | { kind: 'rotate'; app: App }
  | { kind: 'delete'; app: App }
  | { kind: 'key'; app: App; apiKey: string; created: boolean }
  | null;

/** Apps (senders): create (key shown once), rotate, delete. */
export function AppsPage() {
  useTitle('Apps');
  const apps = useResource(api.apps, []);
  const [flow, setFlow] = useState<Flow>(null);

  return (
    <div className="page">
      <PageHeader
        title="Apps"
        description={
          <>
            An app is a sender (a script, Home Assistant, a cron job). It authenticates <code>POST /v1/push</code> with its API key.
          </>
        }
        actions={
          <button type="button" className="btn btn-primary" onClick={() => setFlow({ kind: 'create' })}>
            <Icon name="plus" size={16} /> Create app
          </button>
        }
      />
      {apps.error !== undefined && !apps.data ? (
        <ErrorState error={apps.error} onRetry={apps.reload} title="The apps could not be loaded" />
      ) : !apps.data ? (
        <Loading label="Loading apps…" />
      ) : apps.data.length === 0 ? (
        <EmptyState
          icon="apps"
          title="No apps yet"
          action={
            <button type="button" className="btn btn-primary" onClick={() => setFlow({ kind: 'create' })}>
              <Icon name="plus" size={16} /> Create app
            </button>
          }
        >
          Create an app for each thing that sends notifications, so you can tell them apart and revoke one without the others.
        </EmptyState>
      ) : (
        <div className="card card-flush">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">API key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {apps.data.map((app) => (
                <tr key={app.id}>
                  <td>
                    <Link to={`/apps/${app.id}`} className="row-link">
                      {app.name}
                    </Link>
                  </td>
                  <td>
                    <code className="key-prefix">{app.keyPrefix}…</code>
                  </td>
                  <td>
                    <Time iso={app.createdAt} />
                  </td>
                  <td>
                    <Time iso={app.lastUsedAt} />
                  </td>
                  <td className="row-actions">
                    <button type="button" className="btn btn-small" onClick={() => setFlow({ kind: 'rotate', app })} aria-label={`Rotate key of ${app.name}`}>
                      <Icon name="rotate" size={14} /> Rotate key
                    </button>
                    <button
                      type="button"
                      className="btn btn-small btn-ghost-danger"
                      onClick={() => setFlow({ kind: 'delete', app })}
                      aria-label={`Delete ${app.name}`}
                    >
                      <Icon name="trash" size={14} />
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <AppFlows flow={flow} setFlow={setFlow} onChanged={apps.reload} />
    </div>
  );
}

/** The dialogs around an app: create, key shown once, rotate, delete. */
function AppFlows({ flow, setFlow, onChanged, onDeleted }: {
  flow: Flow;
  setFlow: (f: Flow) => void;
  onChanged: () => Promise<void> | void;
  onDeleted?: () => void;
}) {
  const toast = useToast();
  const close = () => setFlow(null);
  return (
    <>
      <CreateAppDialog
        open={flow?.kind === 'create'}
        onClose={close}
        onCreated={(created) => {
          void onChanged();
          setFlow({ kind: 'key', app: created, apiKey: created.apiKey, created: true });
        }}
      />
      <KeyDialog flow={flow?.kind === 'key' ? flow : null} onClose={close} />
      <ConfirmDialog
        open={flow?.kind === 'rotate'}
        onClose={close}
        title={flow?.kind === 'rotate' ? `Rotate the key of ${flow.app.name}?` : 'Rotate key'}
        confirmLabel="Rotate key"
        danger
        onConfirm={async () => {
          if (flow?.kind !== 'rotate') return;
          const { apiKey } = await api.rotateKey(flow.app.id);
          void onChanged();
          setFlow({ kind: 'key', app: flow.app, apiKey, created: false });
        }}
      >
        <p>
          The current key stops working at once: whatever still sends with it gets <strong>401</strong> until you give it the new key.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={flow?.kind === 'delete'}
        onClose={close}
        title={flow?.kind === 'delete' ? `Delete ${flow.app.name}?` : 'Delete app'}
        confirmLabel="Delete app"
        danger
        onConfirm={async () => {
          if (flow?.kind !== 'delete') return;
          await api.deleteApp(flow.app.id);
          toast(`${flow.app.name} deleted`);
          close();
          void onChanged();
          onDeleted?.();
        }}
      >
        <p>Its API key stops working at once. Notifications it sent stay in the history.</p>
      </ConfirmDialog>
    </>
  );
}

function CreateAppDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (app: CreatedApp) => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Create app" description="Name it after what sends the notifications.">
      <CreateAppForm onClose={onClose} onCreated={onCreated} />
    </Dialog>
  );
}

function CreateAppForm({ onClose, onCreated }: { onClose: () => void; onCreated: (app: CreatedApp) => void }) {
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onCreated(await api.createApp(name.trim()));
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
          <input name="name" required maxLength={100} autoFocus placeholder="Home Assistant" value={name} onChange={(e) => setName(e.target.value)} />
        </label>
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
          {busy ? 'Creating…' : 'Create app'}
        </button>
      </div>
    </form>
  );
}

/** The API key, once, with ready-to-run examples that use it. */
function KeyDialog({ flow, onClose }: { flow: Extract<Flow, { kind: 'key' }> | null; onClose: () => void }) {
  const targets = useTargets(flow !== null);
  const [target, setTarget] = useState<Target | null>(null);
  const chosen = target ?? targets.first;
  return (
    <Dialog
      open={flow !== null}
      onClose={onClose}
      dismissable={false}
      wide
      title={flow ? (flow.created ? `${flow.app.name} is ready` : `New key for ${flow.app.name}`) : ''}
      description={flow?.created ? 'This is the app’s API key.' : 'The old key no longer works. This is the new one.'}
    >
      {flow && (
        <>
          <div className="dialog-body">
            <SecretOnce value={flow.apiKey} label="API key" />
            <h3 className="subheading">Send a notification with it</h3>
            {targets.options.length > 0 && (
              <TargetPicker targets={targets.options} value={chosen} onChange={setTarget} label="Send to" />
            )}
            <Snippets apiKey={flow.apiKey} {...(chosen ? { target: chosen.address } : {})} />
          </div>
          <div className="dialog-actions">
            <button type="button" className="btn btn-primary" onClick={onClose}>
              I have copied the key
            </button>
          </div>
        </>
      )}
    </Dialog>
  );
}

/** One app: its key, examples, recent notifications. */
export function AppDetailPage({ id }: { id: string }) {
  const apps = useResource(api.apps, []);
  const recent = useResource(() => api.notifications({ appId: id, limit: 5 }), [id]);
  const { navigate } = useRouter();
  const [flow, setFlow] = useState<Flow>(null);
  const targets = useTargets(true);
  const [target, setTarget] = useState<Target | null>(null);
  const app = apps.data?.find((a) => a.id === id);
  useTitle(app?.name ?? 'App');

  const back = (
    <Link to="/apps" className="back-link">
      <Icon name="arrowLeft" size={16} /> Apps
    </Link>
  );
  if (apps.error !== undefined && !apps.data) return <ErrorState error={apps.error} onRetry={apps.reload} />;
  if (!apps.data) return <Loading label="Loading the app…" />;
  if (!app) {
    return (
      <div className="page">
        <PageHeader title="App not found" back={back} />
        <EmptyState icon="apps" title="This app does not exist" action={<Link to="/apps" className="btn">All apps</Link>}>
          It may have been deleted.
        </EmptyState>
      </div>
    );
  }
  const chosen = target ?? targets.first;
  return (
    <div className="page">
      <PageHeader
        back={back}
        title={app.name}
        description={`Created ${formatDateTime(app.createdAt)}`}
        actions={
          <>
            <button type="button" className="btn" onClick={() => setFlow({ kind: 'rotate', app })}>
              <Icon name="rotate" size={16} /> Rotate key
            </button>
            <button type="button" className="btn btn-danger-outline" onClick={() => setFlow({ kind: 'delete', app })}>
              <Icon name="trash" size={16} /> Delete
            </button>
          </>
        }
      />
      <div className="grid-2">
        <Section title="API key" description="Shown only when the app is created or its key rotated.">
          <dl className="facts">
            <div>
              <dt>Key starts with</dt>
              <dd>
                <code className="key-prefix">{app.keyPrefix}…</code>
              </dd>
            </div>
            <div>
              <dt>Last used</dt>
              <dd>
                <Time iso={app.lastUsedAt} />
              </dd>
            </div>
          </dl>
        </Section>
        <Section title="Send a test" description="Try the app’s pipeline from the console.">
          <p className="muted">Picks this app on the Send test page: the notification goes through the same checks as POST /v1/push.</p>
          <Link to={`/send?app=${app.id}`} className="btn">
            <Icon name="send" size={16} /> Send a test notification
          </Link>
        </Section>
      </div>
      <Section title="Send from a script" description="The app’s key goes where the placeholder is.">
        {targets.options.length > 0 && <TargetPicker targets={targets.options} value={chosen} onChange={setTarget} label="Send to" />}
        <Snippets {...(chosen ? { target: chosen.address } : {})} />
      </Section>
      <Section
        title="Recent notifications"
        actions={
          <Link to={`/notifications?app=${app.id}`} className="btn btn-small">
            All from this app
          </Link>
        }
      >
        {recent.error !== undefined && !recent.data ? (
          <ErrorState error={recent.error} onRetry={recent.reload} />
        ) : !recent.data ? (
          <Loading inline />
        ) : recent.data.items.length === 0 ? (
          <p className="muted">Nothing sent yet.</p>
        ) : (
          <ul className="list">
            {recent.data.items.map((n) => (
              <li key={n.id}>
                <Link to={`/notifications/${n.id}`} className="list-row">
                  <span className="list-main">{displayTitle(n)}</span>
                  <span className="list-meta">
                    {n.target.label || 'deleted target'} · <Time iso={n.createdAt} />
                  </span>
                  <SummaryBar summary={n.summary} />
                </Link>
              </li>
            ))}
          </ul>
        )}
      </Section>
      <AppFlows flow={flow} setFlow={setFlow} onChanged={apps.reload} onDeleted={() => navigate('/apps', { replace: true })} />
    </div>
  );
}
