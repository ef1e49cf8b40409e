import { useState } from 'react';
import { api, type Delivery, type NotificationDetail as Detail } from '../api';
import { Icon } from '../components/Icon';
import { ErrorState, Loading } from '../components/States';
import { StatusBadge, SummaryBar, Time } from '../components/Status';
import { channelNames, formatDateTime, formatTime } from '../format';
import { useInterval, useResource } from '../hooks';
import { Link } from '../router';

/** While a delivery is pending, the detail is fetched again this often. */
const POLL_MS = 2000;

/** One notification in full, with every delivery; follows pending deliveries as they complete. */
export function NotificationDetail({ id, closeHref }: { id: string; closeHref?: string }) {
  const detail = useResource(() => api.notification(id), [id]);
  const pending = (detail.data?.summary.pending ?? 0) > 0;
  useInterval(
    () => {
      if (document.visibilityState === 'visible') void detail.reload();
    },
    POLL_MS,
    pending,
  );

  if (detail.error !== undefined && !detail.data) {
    return (
      <div className="card detail">
        {closeHref && <CloseLink href={closeHref} />}
        <ErrorState error={detail.error} onRetry={detail.reload} title="This notification could not be loaded" />
      </div>
    );
  }
  if (!detail.data) {
    return (
      <div className="card detail">
        <Loading label="Loading the notification…" />
      </div>
    );
  }
  return <DetailView n={detail.data} {...(closeHref ? { closeHref } : {})} />;
}

function CloseLink({ href }: { href: string }) {
  return (
    <Link to={href} className="icon-button detail-close" aria-label="Close details">
      <Icon name="x" />
    </Link>
  );
}

function DetailView({ n, closeHref }: { n: Detail; closeHref?: string }) {
  return (
    <article className="card detail" aria-labelledby="detail-title">
      <header className="detail-header">
        {n.emoji && (
          <span className="detail-emoji" aria-hidden="true">
            {n.emoji}
          </span>
        )}
        <div className="detail-heading">
          <h2 id="detail-title">{n.title}</h2>
          <p className="muted">
            <time dateTime={n.createdAt}>{formatDateTime(n.createdAt)}</time>
          </p>
        </div>
        {closeHref && <CloseLink href={closeHref} />}
      </header>
      <p className="detail-body">{n.body}</p>
      {n.image && <ImagePreview src={n.image} />}
      <dl className="facts facts-compact">
        <div>
          <dt>App</dt>
          <dd>{n.app.id ? <Link to={`/apps/${n.app.id}`}>{n.app.name}</Link> : `${n.app.name} (deleted)`}</dd>
        </div>
        <div>
          <dt>To</dt>
          <dd>
            {n.target.userId && !n.target.groupId ? (
              <Link to={`/users/${n.target.userId}`}>{n.target.label}</Link>
            ) : n.target.groupId && !n.target.userId ? (
              <Link to={`/groups/${n.target.groupId}`}>{n.target.label}</Link>
            ) : (
              n.target.label || 'deleted'
            )}{' '}
            <span className="muted">
              ({n.recipients} {n.recipients === 1 ? 'recipient' : 'recipients'})
            </span>
          </dd>
        </div>
        {n.url && (
          <div>
            <dt>URL</dt>
            <dd className="break">
              <a href={n.url} target="_blank" rel="noopener noreferrer">
                {n.url} <Icon name="external" size={12} />
              </a>
            </dd>
          </div>
        )}
        {n.image && (
          <div>
            <dt>Image</dt>
            <dd className="break">
              <a href={n.image} target="_blank" rel="noopener noreferrer">
                {n.image}
              </a>
            </dd>
          </div>
        )}
        <div>
          <dt>Id</dt>
          <dd>
            <code className="break">{n.id}</code>
          </dd>
        </div>
      </dl>
      <h3 className="subheading">Deliveries</h3>
      <SummaryBar summary={n.summary} />
      <Deliveries deliveries={n.deliveries} />
    </article>
  );
}

/** The image, if the browser may load it (https only, by the console's CSP); else a note. */
function ImagePreview({ src }: { src: string }) {
  const [failed, setFailed] = useState(false);
  const https = src.startsWith('https:');
  if (!https || failed) {
    return (
      <p className="image-missing">
        <Icon name="image" size={16} />
        <span>{https ? 'The image could not be loaded.' : 'Images over plain http are not previewed here.'} Receivers still get it.</span>
      </p>
    );
  }
  return <img className="detail-image" src={src} alt="" referrerPolicy="no-referrer" loading="lazy" onError={() => setFailed(true)} />;
}

/** Every delivery: device, channel, status, attempts, provider id, last error. */
export function Deliveries({ deliveries }: { deliveries: Delivery[] }) {
  if (deliveries.length === 0) {
    return <p className="muted">No deliveries: none of the recipients had an active device when it was sent.</p>;
  }
  return (
    <ul className="deliveries" aria-label="Deliveries">
      {deliveries.map((d) => (
        <li key={d.id} className={`delivery delivery-${d.status}`}>
          <div className="delivery-head">
            <span className="delivery-device">
              <Icon name="device" size={16} />
              {d.deviceName ?? <span className="muted">removed device</span>}
            </span>
            <StatusBadge status={d.status} />
          </div>
          <dl className="delivery-facts">
            <div>
              <dt>Channel</dt>
              <dd>{channelNames[d.channel] ?? d.channel}</dd>
            </div>
            <div>
              <dt>Attempts</dt>
              <dd>{d.attempts}</dd>
            </div>
            <div>
              <dt>{d.status === 'pending' ? 'Next try' : 'Finished'}</dt>
              <dd>
                {d.status === 'pending' ? (
                  d.nextAttemptAt ? (
                    <time dateTime={d.nextAttemptAt}>{formatTime(d.nextAttemptAt)}</time>
                  ) : (
                    '—'
                  )
                ) : (
                  <Time iso={d.updatedAt} />
                )}
              </dd>
            </div>
            <div>
              <dt>Provider id</dt>
              <dd>{d.providerId ? <code className="break">{d.providerId}</code> : <span className="muted">—</span>}</dd>
            </div>
          </dl>
          {d.lastError && (
            <p className="delivery-error">
              <Icon name="alert" size={14} />
              <span>
                <span className="visually-hidden">Last error: </span>
                {d.lastError}
              </span>
            </p>
          )}
        </li>
      ))}
    </ul>
  );
}
