import { useEffect, useState, type FormEvent } from 'react';
import { CopyButton } from '../../console/components/Copy';
import { ConfirmDialog } from '../../console/components/Dialog';
import { TextField } from '../../console/components/Field';
import { Icon } from '../../console/components/Icon';
import { ErrorState, Loading, Section } from '../../console/components/States';
import { Time } from '../../console/components/Status';
import { useToast } from '../../console/components/Toast';
import { channelNames, platformNames } from '../../console/format';
import { useResource } from '../../console/hooks';
import { errorMessage, receiverApi, type Device } from '../api';
import { disablePush, enablePush, notificationPermission, pushSupport, type PushSupport } from '../push';
import { loadDevicePrefs, saveDevicePrefs, type Session } from '../session';

const permissionText: Record<NotificationPermission, string> = {
  default: 'Not asked yet',
  granted: 'Allowed',
  denied: 'Blocked',
};

const supportText: Record<Exclude<PushSupport, 'supported'>, string> = {
  insecure:
    'Push notifications need a secure connection: open the hub over https (or on this computer as localhost). Ask the hub’s operator; until then, notifications arrive here while this page is open.',
  'ios-home-screen':
    'On iPhone and iPad, add Pushhub to the Home Screen first (Share → Add to Home Screen), then open it from there and turn notifications on.',
  unsupported: 'This browser cannot receive push notifications. Notifications arrive here while this page is open.',
};

/**
 * Settings, behind the ⋮ menu (spec: "Afterwards it is shown on the settings page, behind a
 * three-dots icon"): the User Key, this device's name, push notifications on this device, the
 * account's devices and signing out.
 */
export function SettingsPage({ session, onSignOut }: { session: Session; onSignOut: () => Promise<void> }) {
  const me = useResource(() => receiverApi.me(session.token), [session.token]);
  const [prefs, setPrefs] = useState(loadDevicePrefs);
  const [confirming, setConfirming] = useState<'sign-out' | { remove: Device } | null>(null);
  const toast = useToast();
  const thisDevice = prefs.pushDeviceId;

  return (
    <div className="receiver-page settings">
      <Section title="Your User Key" description="Scripts and apps send notifications to you with it. It is the same on every device you sign in to.">
        <div className="key-block">
          <output className="user-key" aria-label="User Key">
            {session.userKey}
          </output>
          <CopyButton value={session.userKey} label="Copy User Key" className="btn" />
        </div>
      </Section>

      <DeviceNameSection
        session={session}
        name={prefs.name}
        registered={thisDevice !== undefined}
        onSaved={(name) => {
          setPrefs((p) => ({ ...p, name }));
          void me.reload();
          toast('Device name saved');
        }}
      />

      <PushSection
        session={session}
        deviceName={prefs.name}
        enabled={thisDevice !== undefined && (me.data?.devices.some((d) => d.id === thisDevice && !d.deactivated) ?? true)}
        onChange={() => {
          setPrefs(loadDevicePrefs());
          void me.reload();
        }}
      />

      <Section id="devices" title="Your devices" description="Every notification to you goes to each of them.">
        {me.error !== undefined && !me.data ? (
          <ErrorState error={me.error} onRetry={me.reload} title="Your devices could not be loaded" />
        ) : !me.data ? (
          <Loading inline label="Loading your devices…" />
        ) : me.data.devices.length === 0 ? (
          <p className="muted">
            None of your devices gets push notifications yet. Turn them on above to be notified while Pushhub is closed; while it is open, new
            notifications appear in the inbox either way.
          </p>
        ) : (
          <ul className="device-list" aria-label="Devices">
            {me.data.devices.map((d) => (
              <li key={d.id} className="device-row">
                <span className="device-icon" aria-hidden="true">
                  <Icon name="device" size={18} />
                </span>
                <div className="device-text">
                  <span className="device-name">
                    {d.name}
                    {d.id === thisDevice && <span className="badge badge-neutral this-device">This device</span>}
                  </span>
                  <span className="device-meta">
                    {platformNames[d.platform]} · {channelNames[d.channel]} · last delivery <Time iso={d.lastSuccessAt} />
                  </span>
                  {d.deactivated && (
                    <span className="badge badge-failed" title={d.deactivatedReason ?? undefined}>
                      Not reachable{d.deactivatedReason ? `: ${d.deactivatedReason}` : ''}
                    </span>
                  )}
                </div>
                <button type="button" className="btn btn-small btn-ghost-danger" aria-label={`Remove ${d.name}`} onClick={() => setConfirming({ remove: d })}>
                  <Icon name="trash" size={14} /> Remove
                </button>
              </li>
            ))}
          </ul>
        )}
      </Section>

      <Section title="Account" description={me.data ? `Signed in as ${me.data.name} (@${me.data.username}).` : `Signed in as ${session.user.name}.`}>
        <div>
          <button type="button" className="btn btn-danger-outline" onClick={() => setConfirming('sign-out')}>
            <Icon name="logout" size={16} /> Sign out
          </button>
        </div>
      </Section>

      <ConfirmDialog
        open={confirming === 'sign-out'}
        onClose={() => setConfirming(null)}
        title="Sign out of Pushhub?"
        confirmLabel="Sign out"
        danger
        onConfirm={onSignOut}
      >
        <p>This device stops receiving notifications until you sign in again. Your other devices are not affected.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={typeof confirming === 'object' && confirming !== null}
        onClose={() => setConfirming(null)}
        title={typeof confirming === 'object' && confirming ? `Remove ${confirming.remove.name}?` : 'Remove device'}
        confirmLabel="Remove device"
        danger
        onConfirm={async () => {
          if (typeof confirming !== 'object' || !confirming) return;
          const d = confirming.remove;
          if (d.id === thisDevice) await disablePush(session);
          else await receiverApi.removeDevice(session.token, d.id);
          setPrefs(loadDevicePrefs());
          setConfirming(null);
          toast(`${d.name} removed`);
          await me.reload();
        }}
      >
        <p>It gets no more notifications until it signs in again (or, for this browser, until you turn notifications on again).</p>
      </ConfirmDialog>
    </div>
  );
}

/** This device's name: shown in the account's device list (and the operator's console). */
function DeviceNameSection({ session, name, registered, onSaved }: { session: Session; name: string; registered: boolean; onSaved: (name: string) => void }) {
  const [value, setValue] = useState(name);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setValue(name), [name]);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const next = value.trim();
    if (!next) return;
    setBusy(true);
    setError(null);
    try {
      // A registered device is renamed by registering its subscription again under the new name.
      if (registered) await enablePush(session, next);
      else saveDevicePrefs({ ...loadDevicePrefs(), name: next });
      onSaved(next);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title="This device" description="The name your device list shows for this browser.">
      <form className="device-name-form" onSubmit={submit}>
        <TextField label="Device name" name="deviceName" required maxLength={100} value={value} onChange={(e) => setValue(e.target.value)} error={error} />
        <button type="submit" className="btn" disabled={busy || value.trim() === name || !value.trim()}>
          {busy ? 'Saving…' : 'Save'}
        </button>
      </form>
    </Section>
  );
}

/** Push notifications on this device: the permission, and the button that turns them on or off. */
function PushSection({ session, deviceName, enabled, onChange }: { session: Session; deviceName: string; enabled: boolean; onChange: () => void }) {
  const support = pushSupport();
  const [permission, setPermission] = useState(notificationPermission);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const toast = useToast();

  const run = async (action: () => Promise<unknown>, done: string) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      toast(done);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setPermission(notificationPermission());
      setBusy(false);
      onChange();
    }
  };

  const state = support !== 'supported' ? 'unavailable' : enabled && permission === 'granted' ? 'on' : permission === 'denied' ? 'blocked' : 'off';
  return (
    <Section id="push" title="Notifications on this device" description="Push notifications arrive even when Pushhub is closed.">
      <dl className="facts push-facts">
        <div>
          <dt>Status</dt>
          <dd>
            {state === 'on' ? (
              <span className="badge badge-delivered">On</span>
            ) : state === 'blocked' ? (
              <span className="badge badge-failed">Blocked</span>
            ) : state === 'unavailable' ? (
              <span className="badge badge-neutral">Not available</span>
            ) : (
              <span className="badge badge-neutral">Off</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Permission</dt>
          <dd>{permission ? permissionText[permission] : 'Not supported'}</dd>
        </div>
      </dl>
      {support !== 'supported' ? (
        <p className="callout callout-info">
          <Icon name="info" size={16} />
          <span>{supportText[support]}</span>
        </p>
      ) : state === 'blocked' ? (
        <p className="callout callout-warning">
          <Icon name="alert" size={16} />
          <span>Notifications are blocked for this site. Allow them in the browser’s site settings (the icon next to the address), then come back here.</span>
        </p>
      ) : null}
      {error && (
        <p className="callout callout-error" role="alert">
          <Icon name="alert" size={16} />
          <span>{error}</span>
        </p>
      )}
      {support === 'supported' && (
        <div className="push-actions">
          {state === 'on' ? (
            <button type="button" className="btn" disabled={busy} onClick={() => void run(() => disablePush(session), 'Push notifications turned off')}>
              {busy ? 'Turning off…' : 'Turn off on this device'}
            </button>
          ) : (
            <button
              type="button"
              className="btn btn-primary"
              disabled={busy || state === 'blocked'}
              onClick={() => void run(() => enablePush(session, deviceName), 'Push notifications are on')}
            >
              <Icon name="bell" size={16} /> {busy ? 'Turning on…' : 'Enable push notifications'}
            </button>
          )}
        </div>
      )}
    </Section>
  );
}
