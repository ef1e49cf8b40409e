import { useEffect, useId, useState, type FormEvent, type ReactNode } from 'react';
import { api, ApiError, errorMessage, type ApnsSettings, type Bucket, type FcmSettings, type WebPushSettings } from '../api';
import { CopyField } from '../components/Copy';
import { ConfirmDialog } from '../components/Dialog';
import { Icon } from '../components/Icon';
import { ErrorState, Loading, PageHeader, Section } from '../components/States';
import { useToast } from '../components/Toast';
import { formatBytes, formatDuration } from '../format';
import { useResource, useTitle } from '../hooks';
import { useBaseUrl, useHubInfo } from '../hub';

/** Push service credentials, the hub's address, limits and retention. */
export function SettingsPage() {
  useTitle('Settings');
  return (
    <div className="page">
      <PageHeader title="Settings" description="Push service credentials and how this hub is set up." />
      <HubAddress />
      <ApnsSection />
      <FcmSection />
      <WebPushSection />
      <AccountSection />
      <Limits />
    </div>
  );
}

function Configured({ on }: { on: boolean }) {
  return on ? <span className="badge badge-delivered">Configured</span> : <span className="badge badge-neutral">Not configured</span>;
}

function HubAddress() {
  const info = useHubInfo();
  const base = useBaseUrl();
  return (
    <Section title="Hub address" description="What scripts, snippets and receiver apps use to reach this hub.">
      <CopyField value={base} label="Hub address" />
      <p className="hint">
        {info?.publicUrl ? (
          <>
            Set by <code>PUSHHUB_PUBLIC_URL</code>.
          </>
        ) : (
          <>
            <code>PUSHHUB_PUBLIC_URL</code> is not set, so this is the address of this page. Set it (and restart the hub) when people reach
            the hub under another name, e.g. behind a reverse proxy.
          </>
        )}
      </p>
      {info && (
        <dl className="facts facts-compact">
          <div>
            <dt>Listening on</dt>
            <dd>
              <code>
                {info.listen.host}:{info.listen.port || window.location.port}
              </code>
            </dd>
          </div>
          <div>
            <dt>Data directory</dt>
            <dd>
              <code className="break">{info.dataDir}</code>
            </dd>
          </div>
        </dl>
      )}
    </Section>
  );
}

/** Reads an uploaded file as text. */
const readFile = (file: File) => file.text();

function FileField({ label, accept, hint, onText, chosen }: { label: string; accept: string; hint: ReactNode; onText: (name: string, text: string) => void; chosen: string | null }) {
  const id = useId();
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        type="file"
        accept={accept}
        className="file-input"
        onChange={async (e) => {
          const file = e.target.files?.[0];
          if (file) onText(file.name, await readFile(file));
        }}
      />
      <span className="field-hint">{chosen ? `Selected: ${chosen}` : hint}</span>
    </div>
  );
}

/**
 * The state of a settings form: `busy` while saving, the `error` (with the field at fault, when the
 * hub named one) or `saved`. `run(save)` makes the form's submit handler.
 */
function useSave() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; field?: string } | null>(null);
  const [saved, setSaved] = useState(false);
  const run = (save: () => Promise<void>) => async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      await save();
      setSaved(true);
    } catch (err) {
      setError({ message: errorMessage(err), ...(err instanceof ApiError && err.field ? { field: err.field } : {}) });
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, saved, run };
}

function SaveBar({ busy, error, saved, children }: { busy: boolean; error: string | null; saved: boolean; children?: ReactNode }) {
  return (
    <div className="form-actions">
      <button type="submit" className="btn btn-primary" disabled={busy}>
        {busy ? 'Saving…' : 'Save'}
      </button>
      {children}
      {saved && !error && (
        <span className="saved" role="status">
          <Icon name="check" size={16} /> Saved
        </span>
      )}
      {error && (
        <span className="form-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

/** The save bar of a push service's credentials, with "Remove" (confirmed) once they are stored. */
function SaveWithRemove({ state, configured, what, remove, onRemoved, consequence }: {
  state: Pick<ReturnType<typeof useSave>, 'busy' | 'error' | 'saved'>;
  configured: boolean;
  what: string;
  remove: () => Promise<unknown>;
  onRemoved: () => void;
  consequence: string;
}) {
  const [removing, setRemoving] = useState(false);
  const toast = useToast();
  return (
    <>
      <SaveBar busy={state.busy} error={state.error?.message ?? null} saved={state.saved}>
        {configured && (
          <button type="button" className="btn btn-danger-outline" onClick={() => setRemoving(true)}>
            Remove
          </button>
        )}
      </SaveBar>
      <ConfirmDialog
        open={removing}
        onClose={() => setRemoving(false)}
        title={`Remove the ${what} credentials?`}
        confirmLabel="Remove"
        danger
        onConfirm={async () => {
          await remove();
          setRemoving(false);
          toast(`${what} credentials removed`);
          onRemoved();
        }}
      >
        <p>{consequence}</p>
      </ConfirmDialog>
    </>
  );
}

function ApnsSection() {
  const apns = useResource(api.apns, []);
  return (
    <Section
      id="apns"
      title="Apple Push Notification service"
      description="For iPhone, iPad and Apple Watch. Create a key in your Apple Developer account (Keys → Apple Push Notifications service)."
      actions={apns.data && <Configured on={apns.data.configured} />}
    >
      {apns.error !== undefined && !apns.data ? (
        <ErrorState error={apns.error} onRetry={apns.reload} />
      ) : !apns.data ? (
        <Loading inline />
      ) : (
        <ApnsForm current={apns.data} onSaved={(s) => apns.setData(s)} onRemoved={apns.reload} />
      )}
    </Section>
  );
}

function ApnsForm({ current, onSaved, onRemoved }: { current: ApnsSettings; onSaved: (s: ApnsSettings) => void; onRemoved: () => void }) {
  const [keyId, setKeyId] = useState(current.keyId ?? '');
  const [teamId, setTeamId] = useState(current.teamId ?? '');
  const [topic, setTopic] = useState(current.defaultTopic ?? '');
  const [environment, setEnvironment] = useState<'sandbox' | 'production'>(current.environment ?? 'production');
  const [key, setKey] = useState<{ name: string; text: string } | null>(null);
  const { busy, error, saved, run } = useSave();
  const ids = { keyId: useId(), teamId: useId(), topic: useId() };
  const env = useId();

  const submit = run(async () => {
    const s = await api.saveApns({
      keyId: keyId.trim(),
      teamId: teamId.trim(),
      defaultTopic: topic.trim(),
      environment,
      ...(key ? { privateKey: key.text } : {}),
    });
    onSaved(s);
    setKey(null);
  });
  const invalid = (f: string) => error?.field === f || undefined;
  return (
    <form className="form" onSubmit={submit}>
      <FileField
        label="Signing key (.p8)"
        accept=".p8,.pem,text/plain"
        chosen={key?.name ?? null}
        hint={current.privateKeySet ? 'A key is stored. Choose a file only to replace it.' : 'The AuthKey_XXXXXXXXXX.p8 file Apple gave you.'}
        onText={(name, text) => setKey({ name, text })}
      />
      <div className="form-row">
        <div className="field">
          <label className="field-label" htmlFor={ids.keyId}>
            Key ID
          </label>
          <input id={ids.keyId} className="mono" value={keyId} onChange={(e) => setKeyId(e.target.value.toUpperCase())} placeholder="ABC123DEFG" maxLength={10} required aria-invalid={invalid('keyId')} />
        </div>
        <div className="field">
          <label className="field-label" htmlFor={ids.teamId}>
            Team ID
          </label>
          <input id={ids.teamId} className="mono" value={teamId} onChange={(e) => setTeamId(e.target.value.toUpperCase())} placeholder="DEF123GHIJ" maxLength={10} required aria-invalid={invalid('teamId')} />
        </div>
      </div>
      <div className="field">
        <label className="field-label" htmlFor={ids.topic}>
          Topic (bundle id of the receiver app)
        </label>
        <input id={ids.topic} className="mono" value={topic} onChange={(e) => setTopic(e.target.value)} placeholder="com.example.pushhub" required aria-invalid={invalid('defaultTopic')} />
      </div>
      <fieldset className="field">
        <legend className="field-label">Environment</legend>
        <div className="segmented">
          <label>
            <input type="radio" name={env} checked={environment === 'production'} onChange={() => setEnvironment('production')} />
            <span>Production</span>
          </label>
          <label>
            <input type="radio" name={env} checked={environment === 'sandbox'} onChange={() => setEnvironment('sandbox')} />
            <span>Sandbox (development builds)</span>
          </label>
        </div>
      </fieldset>
      <SaveWithRemove
        state={{ busy, error, saved }}
        configured={current.configured}
        what="APNs"
        remove={api.deleteApns}
        onRemoved={onRemoved}
        consequence="Deliveries to Apple devices fail until you add a key again."
      />
    </form>
  );
}

function FcmSection() {
  const fcm = useResource(api.fcm, []);
  return (
    <Section
      id="fcm"
      title="Firebase Cloud Messaging"
      description="For Android and Wear OS. In the Firebase console: Project settings → Service accounts → Generate new private key."
      actions={fcm.data && <Configured on={fcm.data.configured} />}
    >
      {fcm.error !== undefined && !fcm.data ? (
        <ErrorState error={fcm.error} onRetry={fcm.reload} />
      ) : !fcm.data ? (
        <Loading inline />
      ) : (
        <FcmForm current={fcm.data} onSaved={(s) => fcm.setData(s)} onRemoved={fcm.reload} />
      )}
    </Section>
  );
}

function FcmForm({ current, onSaved, onRemoved }: { current: FcmSettings; onSaved: (s: FcmSettings) => void; onRemoved: () => void }) {
  const [file, setFile] = useState<{ name: string; text: string } | null>(null);
  const { busy, error, saved, run } = useSave();
  const submit = run(async () => {
    if (!file) throw new Error('Choose the service account JSON file first.');
    let json: unknown;
    try {
      json = JSON.parse(file.text);
    } catch {
      throw new Error(`${file.name} is not a JSON file.`);
    }
    onSaved(await api.saveFcm(json));
    setFile(null);
  });
  return (
    <form className="form" onSubmit={submit}>
      {current.configured && (
        <dl className="facts facts-compact">
          <div>
            <dt>Project</dt>
            <dd>
              <code>{current.projectId}</code>
            </dd>
          </div>
          <div>
            <dt>Service account</dt>
            <dd>
              <code className="break">{current.clientEmail}</code>
            </dd>
          </div>
        </dl>
      )}
      <FileField
        label="Service account key (JSON)"
        accept=".json,application/json"
        chosen={file?.name ?? null}
        hint={current.configured ? 'Choose a file only to replace the stored account.' : 'The file downloaded from the Firebase console.'}
        onText={(name, text) => setFile({ name, text })}
      />
      <SaveWithRemove
        state={{ busy, error, saved }}
        configured={current.configured}
        what="FCM"
        remove={api.deleteFcm}
        onRemoved={onRemoved}
        consequence="Deliveries to Android devices fail until you add an account again."
      />
    </form>
  );
}

function WebPushSection() {
  const webpush = useResource(api.webpush, []);
  return (
    <Section
      id="webpush"
      title="Web Push"
      description="For browsers and installed web apps. The hub made its own VAPID keys; nothing to set up but a contact."
      actions={webpush.data && <Configured on={webpush.data.configured} />}
    >
      {webpush.error !== undefined && !webpush.data ? (
        <ErrorState error={webpush.error} onRetry={webpush.reload} />
      ) : !webpush.data ? (
        <Loading inline />
      ) : (
        <WebPushForm current={webpush.data} onSaved={(s) => webpush.setData(s)} />
      )}
    </Section>
  );
}

function WebPushForm({ current, onSaved }: { current: WebPushSettings; onSaved: (s: WebPushSettings) => void }) {
  const [subject, setSubject] = useState(current.subject ?? '');
  const { busy, error, saved, run } = useSave();
  const id = useId();
  useEffect(() => setSubject(current.subject ?? ''), [current.subject]);
  const submit = run(async () => {
    onSaved(await api.saveWebpush(subject.trim()));
  });
  return (
    <form className="form" onSubmit={submit}>
      {current.publicKey && (
        <div className="field">
          <span className="field-label">VAPID public key</span>
          <CopyField value={current.publicKey} label="VAPID public key" />
        </div>
      )}
      <div className="field">
        <label className="field-label" htmlFor={id}>
          Contact (subject)
        </label>
        <input id={id} value={subject} onChange={(e) => setSubject(e.target.value)} placeholder="mailto:you@example.com" required />
        <span className="field-hint">A mailto: address or https: URL push services can reach you at if something goes wrong.</span>
      </div>
      <SaveBar busy={busy} error={error?.message ?? null} saved={saved} />
    </form>
  );
}

/** The operator's own password (a desktop hub's account starts with a random one). */
function AccountSection() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const { busy, error, saved, run } = useSave();
  const currentId = useId();
  const nextId = useId();
  const submit = run(async () => {
    await api.changePassword(current, next);
    setCurrent('');
    setNext('');
  });
  return (
    <Section title="Your account" description="Change the password you sign in to this console with.">
      <form className="form" onSubmit={submit}>
        <div className="field">
          <label className="field-label" htmlFor={currentId}>
            Current password
          </label>
          <input id={currentId} type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} />
          <span className="field-hint">Leave empty in the desktop app if you never set one.</span>
        </div>
        <div className="field">
          <label className="field-label" htmlFor={nextId}>
            New password
          </label>
          <input id={nextId} type="password" autoComplete="new-password" minLength={8} required value={next} onChange={(e) => setNext(e.target.value)} />
        </div>
        <SaveBar busy={busy} error={error?.message ?? null} saved={saved} />
      </form>
    </Section>
  );
}

const rate = (b: Bucket, unit: 'second' | 'minute') => {
  const per = unit === 'second' ? 1000 : 60_000;
  const n = Math.round(((b.refill * per) / b.intervalMs) * 100) / 100;
  return `${n} per ${unit}`;
};

function Limits() {
  const info = useHubInfo();
  return (
    <Section title="Limits and retention" description="Set in the hub’s configuration file or environment; shown here for reference.">
      {!info ? (
        <Loading inline />
      ) : (
        <dl className="facts">
          <div>
            <dt>Sending rate per app</dt>
            <dd>
              bursts of {info.limits.perApp.burst}, then {rate(info.limits.perApp, 'second')}
              <span className="fact-note">PUSHHUB_RATE_LIMIT_BURST, PUSHHUB_RATE_LIMIT_PER_SECOND</span>
            </dd>
          </div>
          <div>
            <dt>Failed keys and sign-ins per address</dt>
            <dd>
              {info.limits.authFailures.burst}, then {rate(info.limits.authFailures, 'minute')}
            </dd>
          </div>
          <div>
            <dt>Request size</dt>
            <dd>{formatBytes(info.limits.bodyBytes)}</dd>
          </div>
          <div>
            <dt>Title and body</dt>
            <dd>
              {info.limits.titleChars} characters, {formatBytes(info.limits.notificationBodyBytes)}
            </dd>
          </div>
          <div>
            <dt>Retries</dt>
            <dd>
              from {formatDuration(info.delivery.baseBackoffMs)} up to every {formatDuration(info.delivery.maxBackoffMs)}; a delivery still
              failing after {formatDuration(info.delivery.maxAgeMs)} ends as expired
            </dd>
          </div>
          <div>
            <dt>Notification history</dt>
            <dd>
              {info.retention.notificationsMaxAgeMs === null
                ? 'kept until deleted (no automatic clean-up)'
                : `kept for ${formatDuration(info.retention.notificationsMaxAgeMs)}`}
            </dd>
          </div>
        </dl>
      )}
    </Section>
  );
}
