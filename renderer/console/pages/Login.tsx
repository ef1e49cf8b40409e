import { useEffect, useState, type FormEvent } from 'react';
import { api, ApiError, errorMessage } from '../api';
import { Brand } from '../App';
import { Icon } from '../components/Icon';
import { useTitle } from '../hooks';

/** Sign-in with the operator account. The session lives in an HttpOnly cookie set by the hub. */
export function LoginPage({ onSignedIn }: { onSignedIn: () => void }) {
  useTitle('Sign in');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [setupRequired, setSetupRequired] = useState(false);

  useEffect(() => {
    api.status().then((s) => setSetupRequired(s.setupRequired), () => {});
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.login(username.trim(), password);
      onSignedIn();
    } catch (err) {
      setBusy(false);
      if (err instanceof ApiError && err.status === 401) setError('Wrong username or password.');
      else if (err instanceof ApiError && err.status === 429)
        setError(`Too many failed attempts from this address. Try again in ${waitText(err.retryAfterSeconds)}.`);
      else setError(errorMessage(err));
    }
  };

  return (
    <div className="auth-page">
      <form className="auth-card" onSubmit={submit}>
        <Brand />
        <h1>Sign in</h1>
        <p className="muted">Manage apps, receivers and notifications of this hub.</p>
        {setupRequired && (
          <div className="callout callout-info">
            <Icon name="info" size={16} />
            <span>
              This hub has no operator account yet. Open the one-time setup URL printed in the hub’s log (it ends in{' '}
              <code>/setup?token=…</code>).
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
          <input name="username" autoComplete="username" required autoFocus value={username} onChange={(e) => setUsername(e.target.value)} />
        </label>
        <label className="field">
          <span className="field-label">Password</span>
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </div>
  );
}

function waitText(seconds: number | undefined): string {
  if (!seconds) return 'a minute';
  return seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
}
