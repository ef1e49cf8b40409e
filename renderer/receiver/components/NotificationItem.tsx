import { useId, useState } from 'react';
import { Icon } from '../../console/components/Icon';
import { formatDateTime, formatRelative } from '../../console/format';
import type { ReceivedNotification } from '../api';

/** "homeassistant.local:8123/lovelace" for a link's text: the address without its scheme. */
export function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    const rest = `${u.pathname === '/' ? '' : u.pathname}${u.search}`;
    return `${u.host}${rest.length > 40 ? `${rest.slice(0, 39)}…` : rest}`;
  } catch {
    return url;
  }
}

/**
 * One notification in the inbox: the emoji as its icon and in front of the title (spec:
 * "Emoji shown in the title and as the icon"), the body, the image when given, the url as a
 * link, and when it arrived ("5 minutes ago"; the exact time on hover). `now` (ms) refreshes
 * the relative time.
 */
export function NotificationItem({ n, now, fresh = false }: { n: ReceivedNotification; now: number; fresh?: boolean }) {
  const titleId = useId();
  const [imageFailed, setImageFailed] = useState(false);
  return (
    <article className={fresh ? 'note note-fresh' : 'note'} aria-labelledby={titleId} data-id={n.id}>
      <div className={n.emoji ? 'note-icon' : 'note-icon note-icon-plain'} aria-hidden="true">
        {n.emoji ?? <Icon name="bell" size={20} />}
      </div>
      <div className="note-main">
        <div className="note-head">
          <h2 className="note-title" id={titleId}>
            {n.emoji ? `${n.emoji} ${n.title}` : n.title}
          </h2>
          <time className="note-time" dateTime={n.createdAt} title={formatDateTime(n.createdAt)}>
            {formatRelative(n.createdAt, now)}
          </time>
        </div>
        {n.body && <p className="note-body">{n.body}</p>}
        {n.image &&
          (imageFailed ? (
            <a className="note-image-missing" href={n.image} target="_blank" rel="noopener noreferrer">
              <Icon name="image" size={16} /> Image could not be shown here: open it
            </a>
          ) : (
            <a className="note-image-link" href={n.image} target="_blank" rel="noopener noreferrer" aria-label="Open the image">
              <img className="note-image" src={n.image} alt="" loading="lazy" decoding="async" referrerPolicy="no-referrer" onError={() => setImageFailed(true)} />
            </a>
          ))}
        {n.url && (
          <a className="note-link" href={n.url} target="_blank" rel="noopener noreferrer">
            <Icon name="external" size={14} />
            <span>{shortUrl(n.url)}</span>
          </a>
        )}
      </div>
    </article>
  );
}
