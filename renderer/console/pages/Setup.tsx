import { useState, type FormEvent } from 'react';
import { api, ApiError, errorMessage } from '../api';
import { Brand } from '../App';
import { TextField } from '../components/Field';
import { useTitle } from '../hooks';
import { Link, useRouter } from '../router';

const MIN_PASSWORD = 8;

/**
 * First-run setup behind the one-time URL the hub prints (`/setup?token=…`): creates the
 * operator account, then signs in with it.
 */
export function SetupPage({ onSignedIn }: { onSignedIn: () => void }) {
  useTitle('Set up');
  const { location } = useRouter();
  const token = new URLSearchParams(location.search).get('token') ?? '';
  const [username, setUsername] = useState('admin');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; field?: string; done?: boolean } | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (password !== confirm) {
      setError({ message: 'The two passwords are different.', field: 'confirm' });
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await api.setup(token, username.trim(), password);
      await api.login(username.trim(), password);
      onSignedIn();
    } catch (err) {
      setBusy(false);
      if (err instanceof ApiError && err.code === 'conflict') setError({ message: 'This hub is already set up.', done: true });
      else if (err instanceof ApiError && err.code === 'invalid_setup_token')
        setError({ message: 'This setup link is not valid. Use the exact URL the hub printed when it started.', field: 'token' });
      else setError({ message: errorMessage(err), ...(err instanceof ApiError && err.field ? { field: err.field } : {}) });
    }
  };

  if (!token) {
    return (
      <div className="auth-page">
        <div className="auth-card">
          <Brand />
          <h1>Set up Pushhub</h1>
          <p className="muted">
            Open the one-time setup URL that the hub printed when it started (it ends in <code>/setup?token=…</code>). If the hub is
            already set up, <Link to="/login">sign in</Link>.
          </p>
        </div>
      </div>
    );
  }

  return (
    <div className="auth-page">
      <form className="auth-card" onSubmit={submit} noValidate={false}>
        <Brand />
        <h1>Set up Pushhub</h1>
        <p className="muted">Create the operator account. This link works once; afterwards you sign in with this account.</p>
        {error && (
          <div className="callout callout-error" role="alert">
            <span>
              {error.message} {error.done && <Link to="/login">Sign in instead</Link>}
            </span>
          </div>
        )}
        <TextField
          label="Username"
          name="username"
          autoComplete="username"
          required
          maxLength={64}
          pattern="[A-Za-z0-9._@\-]+"
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          hint="Letters, digits and . _ @ - only."
          invalid={error?.field === 'username'}
        />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={MIN_PASSWORD}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          hint={`At least ${MIN_PASSWORD} characters.`}
          invalid={error?.field === 'password'}
        />
        <TextField
          label="Repeat the password"
          name="confirm"
          type="password"
          autoComplete="new-password"
          required
          minLength={MIN_PASSWORD}
          value={confirm}
          onChange={(e) => setConfirm(e.target.value)}
          invalid={error?.field === 'confirm'}
        />
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {busy ? 'Creating the account…' : 'Create account and sign in'}
        </button>
      </form>
    </div>
  );
}
