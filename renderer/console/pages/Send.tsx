import { useEffect, useId, useState, type FormEvent } from 'react';
import { api, ApiError, errorMessage, type TestPushInput } from '../api';
import { Icon } from '../components/Icon';
import { EmptyState, ErrorState, Loading, PageHeader, Section } from '../components/States';
import { useResource, useTitle } from '../hooks';
import { Link, useRouter } from '../router';
import { NotificationDetail } from './NotificationDetail';
import { TargetPicker, useTargets, type Target } from './targets';

const TITLE_MAX = 250;
const BODY_MAX_BYTES = 4096;
const utf8Length = (s: string) => new TextEncoder().encode(s).length;

interface FieldError {
  message: string;
  field?: string;
}

/**
 * Sends a notification on an app's behalf through the pipeline of POST /v1/push
 * (POST /api/apps/:id/test-push), then follows its deliveries.
 */
export function SendPage() {
  useTitle('Send test');
  const { location } = useRouter();
  const apps = useResource(api.apps, []);
  const targets = useTargets(true);
  const [appId, setAppId] = useState(() => new URLSearchParams(location.search).get('app') ?? '');
  const [target, setTarget] = useState<Target | null>(null);
  const [title, setTitle] = useState('Hello from Pushhub');
  const [body, setBody] = useState('This is a test notification.');
  const [emoji, setEmoji] = useState('');
  const [image, setImage] = useState('');
  const [url, setUrl] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<FieldError | null>(null);
  const [sent, setSent] = useState<{ id: string; deliveries: number } | null>(null);
  const ids = { app: useId(), title: useId(), body: useId(), emoji: useId(), image: useId(), url: useId() };

  useEffect(() => {
    if (!appId && apps.data?.[0]) setAppId(apps.data[0].id);
  }, [apps.data, appId]);
  const chosen = target ?? targets.first;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!chosen) return;
    setBusy(true);
    setError(null);
    const input: TestPushInput = { ...chosen.address, title, body };
    if (emoji.trim()) input.emoji = emoji.trim();
    if (image.trim()) input.image = image.trim();
    if (url.trim()) input.url = url.trim();
    try {
      setSent(await api.testPush(appId, input));
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) {
        setError({ message: `This app is over its rate limit. Try again in ${err.retryAfterSeconds ?? 1} s.` });
      } else {
        setError({ message: errorMessage(err), ...(err instanceof ApiError && err.field ? { field: err.field } : {}) });
      }
    } finally {
      setBusy(false);
    }
  };
  const invalid = (field: string) => error?.field === field || undefined;
  const fieldError = (field: string) =>
    error?.field === field ? (
      <span className="field-error" role="alert">
        {error.message}
      </span>
    ) : null;

  const header = (
    <PageHeader
      title="Send test"
      description="Sends a notification on an app’s behalf through the same checks and delivery as POST /v1/push."
    />
  );
  if ((apps.error !== undefined && !apps.data) || targets.error !== undefined) {
    return (
      <div className="page">
        {header}
        <ErrorState error={apps.error ?? targets.error} onRetry={apps.reload} />
      </div>
    );
  }
  if (!apps.data || targets.loading) {
    return (
      <div className="page">
        {header}
        <Loading />
      </div>
    );
  }
  if (apps.data.length === 0 || targets.options.length === 0) {
    return (
      <div className="page">
        {header}
        <EmptyState
          icon="send"
          title={apps.data.length === 0 ? 'Create an app first' : 'Create a user first'}
          action={
            <Link to={apps.data.length === 0 ? '/apps' : '/users'} className="btn btn-primary">
              {apps.data.length === 0 ? 'Go to Apps' : 'Go to Users'}
            </Link>
          }
        >
          A notification is sent by an app to a user or a User Group.
        </EmptyState>
      </div>
    );
  }

  const titleLength = [...title].length;
  const bodyBytes = utf8Length(body);
  return (
    <div className="page">
      {header}
      <div className="grid-send">
        <Section title="Notification">
          <form className="form" onSubmit={submit}>
            <div className="form-row">
              <div className="field">
                <label className="field-label" htmlFor={ids.app}>
                  From app
                </label>
                <select id={ids.app} value={appId} onChange={(e) => setAppId(e.target.value)} required>
                  {apps.data.map((a) => (
                    <option key={a.id} value={a.id}>
                      {a.name}
                    </option>
                  ))}
                </select>
              </div>
              <TargetPicker targets={targets.options} value={chosen} onChange={setTarget} label="To" />
            </div>
            {fieldError('userKey')}
            {fieldError('userGroupKey')}
            <div className="form-row form-row-emoji">
              <div className="field field-emoji">
                <label className="field-label" htmlFor={ids.emoji}>
                  Emoji <span className="optional">optional</span>
                </label>
                <input id={ids.emoji} value={emoji} onChange={(e) => setEmoji(e.target.value)} placeholder="🔔" maxLength={32} aria-invalid={invalid('emoji')} />
                {fieldError('emoji')}
              </div>
              <div className="field">
                <label className="field-label" htmlFor={ids.title}>
                  Title
                </label>
                <input id={ids.title} value={title} onChange={(e) => setTitle(e.target.value)} required aria-invalid={invalid('title')} aria-describedby={`${ids.title}-count`} />
                <span id={`${ids.title}-count`} className={titleLength > TITLE_MAX ? 'field-hint over' : 'field-hint'}>
                  {titleLength}/{TITLE_MAX} characters
                </span>
                {fieldError('title')}
              </div>
            </div>
            <div className="field">
              <label className="field-label" htmlFor={ids.body}>
                Body
              </label>
              <textarea id={ids.body} rows={4} value={body} onChange={(e) => setBody(e.target.value)} required aria-invalid={invalid('body')} aria-describedby={`${ids.body}-count`} />
              <span id={`${ids.body}-count`} className={bodyBytes > BODY_MAX_BYTES ? 'field-hint over' : 'field-hint'}>
                {bodyBytes}/{BODY_MAX_BYTES} bytes
              </span>
              {fieldError('body')}
            </div>
            <div className="form-row">
              <div className="field">
                <label className="field-label" htmlFor={ids.image}>
                  Image URL <span className="optional">optional</span>
                </label>
                <input id={ids.image} type="url" inputMode="url" placeholder="https://…" value={image} onChange={(e) => setImage(e.target.value)} aria-invalid={invalid('image')} />
                {fieldError('image')}
              </div>
              <div className="field">
                <label className="field-label" htmlFor={ids.url}>
                  Link <span className="optional">optional</span>
                </label>
                <input id={ids.url} type="url" inputMode="url" placeholder="https://…" value={url} onChange={(e) => setUrl(e.target.value)} aria-invalid={invalid('url')} />
                {fieldError('url')}
              </div>
            </div>
            {error && !error.field && (
              <div className="callout callout-error" role="alert">
                <Icon name="alert" size={16} />
                <span>{error.message}</span>
              </div>
            )}
            <div className="form-actions">
              <button type="submit" className="btn btn-primary" disabled={busy}>
                <Icon name="send" size={16} /> {busy ? 'Sending…' : 'Send notification'}
              </button>
            </div>
          </form>
        </Section>
        <div className="send-side">
          <div className="preview" aria-label="Preview">
            <span className="preview-label">Preview</span>
            <div className="preview-card">
              <span className="preview-icon" aria-hidden="true">
                {emoji.trim() || <Icon name="bell" size={18} />}
              </span>
              <div className="preview-text">
                <strong>{[emoji.trim(), title].filter(Boolean).join(' ') || 'Title'}</strong>
                <span>{body || 'Body'}</span>
              </div>
            </div>
          </div>
        </div>
      </div>
      {sent && (
        <section className="send-result" aria-live="polite" aria-labelledby="sent-title">
          <div className="callout callout-success">
            <Icon name="check" size={16} />
            <span id="sent-title">
              Accepted: <code>{sent.id}</code>, {sent.deliveries === 1 ? '1 delivery' : `${sent.deliveries} deliveries`} queued.{' '}
              <Link to={`/notifications/${sent.id}`}>Open in Notifications</Link>
            </span>
          </div>
          <NotificationDetail key={sent.id} id={sent.id} />
        </section>
      )}
    </div>
  );
}
