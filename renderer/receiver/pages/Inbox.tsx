import { useEffect, useRef, useState } from 'react';
import { CopyButton } from '../../console/components/Copy';
import { Icon } from '../../console/components/Icon';
import { EmptyState, ErrorState, Loading } from '../../console/components/States';
import { errorMessage } from '../api';
import { NotificationItem } from '../components/NotificationItem';
import type { Inbox } from '../inbox';

/** `Date.now()`, refreshed every `ms` so relative times move on. */
export function useNow(ms = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = window.setInterval(() => setNow(Date.now()), ms);
    return () => window.clearInterval(id);
  }, [ms]);
  return now;
}

/** The inbox: newest first, new ones arrive live, older ones load while scrolling down. */
export function InboxPage({ inbox, userKey }: { inbox: Inbox; userKey: string }) {
  const now = useNow();
  const sentinel = useRef<HTMLDivElement>(null);
  const { items, hasMore, loadMore, loadingMore, moreError } = inbox;

  // Load the next page when the end of the list scrolls into view.
  useEffect(() => {
    const el = sentinel.current;
    if (!el || !hasMore || moreError !== undefined) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) loadMore();
    }, { rootMargin: '400px 0px' });
    observer.observe(el);
    return () => observer.disconnect();
  }, [hasMore, loadMore, moreError, items?.length]);

  if (inbox.error !== undefined && !items) {
    return (
      <div className="receiver-page">
        <ErrorState error={inbox.error} onRetry={inbox.reload} title="Your notifications could not be loaded" />
      </div>
    );
  }
  if (!items) {
    return (
      <div className="receiver-page">
        <Loading label="Loading your notifications…" />
      </div>
    );
  }
  if (items.length === 0) {
    return (
      <div className="receiver-page">
        <EmptyState icon="bell" title="No notifications yet">
          <p>New notifications appear here as soon as they are sent. Scripts send to your User Key:</p>
          <p className="empty-key">
            <code>{userKey}</code>
            <CopyButton value={userKey} label="Copy User Key" className="btn btn-small btn-ghost" />
          </p>
        </EmptyState>
      </div>
    );
  }
  return (
    <div className="receiver-page">
      <ol className="notes" aria-label="Notifications">
        {items.map((n) => (
          <li key={n.id}>
            <NotificationItem n={n} now={now} fresh={inbox.fresh.has(n.id)} />
          </li>
        ))}
      </ol>
      <div ref={sentinel} className="notes-end">
        {loadingMore ? (
          <Loading inline label="Loading older notifications…" />
        ) : moreError !== undefined ? (
          <div className="callout callout-error" role="alert">
            <Icon name="alert" size={16} />
            <span>
              Older notifications could not be loaded: {errorMessage(moreError)}{' '}
              <button type="button" className="btn btn-small" onClick={loadMore}>
                Try again
              </button>
            </span>
          </div>
        ) : hasMore ? (
          <button type="button" className="btn btn-small" onClick={loadMore}>
            Load older notifications
          </button>
        ) : (
          <span className="muted">{items.length === 1 ? 'That is your only notification.' : 'That is all of them.'}</span>
        )}
      </div>
    </div>
  );
}
