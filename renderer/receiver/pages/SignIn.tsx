import { useState, type FormEvent } from 'react';
import { Icon } from '../../console/components/Icon';
import { Loading } from '../../console/components/States';
import { ApiError, errorMessage, receiverApi, type SignInAnswer } from '../api';
import { BrandMark } from '../components/AppBar';

/** A message shown above the sign-in form (a refused pairing link, an ended session). */
export interface Notice {
  kind: 'error' | 'info';
  title: string;
  text: string;
}

/** The message for a pairing link the hub refused, by its error code. */
export function pairingNotice(err: unknown): Notice {
  const code = err instanceof ApiError ? err.code : '';
  switch (code) {
    case 'pairing_used':
      return {
        kind: 'error',
        title: 'This pairing link was already used',
        text: 'Each link signs in one device, once. Ask for a new link, or sign in with your username and password.',
      };
    case 'pairing_expired':
      return {
        kind: 'error',
        title: 'This pairing link has expired',
        text: 'Pairing links work for 15 minutes. Ask for a new link, or sign in with your username and password.',
      };
    case 'pairing_invalid':
      return {
        kind: 'error',
        title: 'This pairing link is not valid',
        text: 'Check that the whole link was copied, or ask for a new one. You can also sign in with your username and password.',
      };
    default:
      return { kind: 'error', title: 'The pairing link did not work', text: errorMessage(err) };
  }
}

/** Sign-in with the username and password the operator created (or a pairing link, explained). */
export function SignInPage({ notice, onSignedIn }: { notice: Notice | null; onSignedIn: (answer: SignInAnswer) => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await receiverApi.login(username.trim(), password));
    } catch (err) {
      setBusy(false);
      if (err instanceof ApiError && err.status === 401) setError('Wrong username or password.');
      else if (err instanceof ApiError && err.status === 429) {
        const s = err.retryAfterSeconds;
        setError(`Too many failed attempts. Try again in ${!s ? 'a minute' : s < 90 ? `${s} seconds` : `${Math.ceil(s / 60)} minutes`}.`);
      } else setError(errorMessage(err));
    }
  };

  return (
    <div className="auth-page receiver-auth">
      <form className="auth-card" onSubmit={submit}>
        <span className="brand">
          <BrandMark />
          <span className="receiver-brand-name">Pushhub</span>
        </span>
        <h1>Sign in</h1>
        <p className="muted">Receive the notifications your scripts and apps send you, on this device.</p>
        {notice && (
          <div className={notice.kind === 'error' ? 'callout callout-error' : 'callout callout-info'} role="alert">
            <Icon name={notice.kind === 'error' ? 'alert' : 'info'} size={16} />
            <span>
              <strong>{notice.title}.</strong> {notice.text}
            </span>
          </div>
        )}
        {error && (
          <div className="callout callout-error" role="alert">
            <Icon name="alert" size={16} />
            <span>{error}</span>
          </div>
        )}
        <label className="field">
          <span className="field-label">Username</span>
          <input
            name="username"
            autoComplete="username"
            autoCapitalize="none"
            autoCorrect="off"
            spellCheck={false}
            required
            value={username}
            onChange={(e) => setUsername(e.target.value)}
          />
        </label>
        <label className="field">
          <span className="field-label">Password</span>
          <input name="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="auth-foot">
          <Icon name="link" size={15} />
          <span>Got a pairing link or QR code from the hub’s operator? Open it on this device to sign in without a password.</span>
        </p>
      </form>
    </div>
  );
}

/** Shown while a pairing link is being redeemed. */
export function PairingPage() {
  return (
    <div className="auth-page receiver-auth">
      <div className="auth-card">
        <span className="brand">
          <BrandMark />
          <span className="receiver-brand-name">Pushhub</span>
        </span>
        <Loading label="Signing you in with the pairing link…" />
      </div>
    </div>
  );
}
