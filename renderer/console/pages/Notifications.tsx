import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { api, type App, type Notification, type User } from '../api';
import { Icon } from '../components/Icon';
import { EmptyState, ErrorState, Loading, PageHeader } from '../components/States';
import { SummaryBar, Time } from '../components/Status';
import { displayTitle, notificationStatus, type NotificationStatus } from '../format';
import { useInterval, useResource, useTitle } from '../hooks';
import { Link, useRouter } from '../router';
import { NotificationDetail } from './NotificationDetail';

const PAGE = 50;
/** Pages fetched on their own to find matches of a status or title filter before asking the operator to scroll. */
const AUTO_PAGES = 10;
/** How often the newest page is fetched again (new notifications, delivery progress). */
const REFRESH_MS = 5000;

interface Filters {
  app: string;
  user: string;
  status: '' | NotificationStatus;
  q: string;
}

const statusLabels: Record<NotificationStatus, string> = {
  delivered: 'All delivered',
  pending: 'Still pending',
  failed: 'With failures',
  'no-devices': 'No devices',
};

function readFilters(search: string): Filters {
  const p = new URLSearchParams(search);
  const status = p.get('status') ?? '';
  return {
    app: p.get('app') ?? '',
    user: p.get('user') ?? '',
    status: status in statusLabels ? (status as NotificationStatus) : '',
    q: p.get('q') ?? '',
  };
}

function writeFilters(f: Filters): string {
  const p = new URLSearchParams();
  if (f.app) p.set('app', f.app);
  if (f.user) p.set('user', f.user);
  if (f.status) p.set('status', f.status);
  if (f.q) p.set('q', f.q);
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** Merges a fresh newest page into the loaded list: new ones on top, known ones updated. */
function mergeNewest(current: Notification[], fresh: Notification[]): Notification[] {
  const byId = new Map(fresh.map((n) => [n.id, n]));
  const newest = current[0]?.id ?? '';
  const added = fresh.filter((n) => n.id > newest);
  return [...added, ...current.map((n) => byId.get(n.id) ?? n)];
}

/**
 * Every notification, newest first: filter by app and user (server side), by status and title
 * (over what is loaded, fetching older pages as needed), infinite scroll, and a detail panel
 * with each delivery.
 */
export function NotificationsPage({ selectedId }: { selectedId: string | undefined }) {
  useTitle('Notifications');
  const { location, navigate } = useRouter();
  const filters = readFilters(location.search);
  const lists = useResource(() => Promise.all([api.apps(), api.users()]), []);
  const [apps, users] = lists.data ?? [[] as App[], [] as User[]];

  const [items, setItems] = useState<Notification[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const autoPages = useRef(0);
  const generation = useRef(0);
  const [search, setSearch] = useState(filters.q);

  const setFilters = useCallback(
    (change: Partial<Filters>) => {
      const f = { ...readFilters(window.location.search), ...change };
      navigate(`${window.location.pathname}${writeFilters(f)}`, { replace: true });
    },
    [navigate],
  );

  // Server-side filters: start over when they change.
  const serverKey = `${filters.app}|${filters.user}`;
  const loadFirst = useCallback(async () => {
    const mine = ++generation.current;
    autoPages.current = 0;
    setLoading(true);
    setError(undefined);
    try {
      const page = await api.notifications({ limit: PAGE, appId: filters.app || undefined, userId: filters.user || undefined });
      if (mine !== generation.current) return;
      setItems(page.items);
      setNext(page.next);
      setLoaded(true);
    } catch (err) {
      if (mine === generation.current) setError(err);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, [serverKey]);

  useEffect(() => {
    setLoaded(false);
    setItems([]);
    void loadFirst();
  }, [loadFirst]);

  const loadMore = useCallback(async () => {
    if (!next || loading) return;
    const mine = generation.current;
    setLoading(true);
    try {
      const page = await api.notifications({ limit: PAGE, before: next, appId: filters.app || undefined, userId: filters.user || undefined });
      if (mine !== generation.current) return;
      setItems((cur) => [...cur, ...page.items.filter((n) => !cur.some((c) => c.id === n.id))]);
      setNext(page.next);
    } catch (err) {
      if (mine === generation.current) setError(err);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, [next, loading, filters.app, filters.user]);

  // Keep the newest page current while the tab is visible.
  useInterval(
    () => {
      if (document.visibilityState !== 'visible' || loading) return;
      const mine = generation.current;
      api.notifications({ limit: PAGE, appId: filters.app || undefined, userId: filters.user || undefined }).then(
        (page) => mine === generation.current && setItems((cur) => mergeNewest(cur, page.items)),
        () => {},
      );
    },
    REFRESH_MS,
    loaded,
  );

  // The title search is applied as you type, a moment after the last key.
  useEffect(() => {
    if (search === filters.q) return;
    const t = window.setTimeout(() => setFilters({ q: search.trim() }), 250);
    return () => window.clearTimeout(t);
  }, [search, filters.q, setFilters]);

  const visible = useMemo(() => {
    const q = filters.q.toLowerCase();
    return items.filter(
      (n) => (!filters.status || notificationStatus(n) === filters.status) && (!q || n.title.toLowerCase().includes(q) || (n.emoji ?? '') === q),
    );
  }, [items, filters.status, filters.q]);
  const clientFiltered = Boolean(filters.status || filters.q);

  // With a status or title filter, fetch older pages until a screenful matches (bounded).
  useEffect(() => {
    autoPages.current = 0;
  }, [filters.status, filters.q]);
  useEffect(() => {
    if (!clientFiltered || !loaded || loading || !next || visible.length >= 20 || autoPages.current >= AUTO_PAGES) return;
    autoPages.current += 1;
    void loadMore();
  }, [clientFiltered, loaded, loading, next, visible.length, loadMore]);

  // Infinite scroll: load the next page when the end of the list comes into view.
  const sentinel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = sentinel.current;
    if (!el || !next) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) void loadMore();
    }, { rootMargin: '300px' });
    observer.observe(el);
    return () => observer.disconnect();
  }, [next, loadMore]);

  const hrefFor = (id?: string) => `/notifications${id ? `/${id}` : ''}${writeFilters(filters)}`;
  const anyFilter = Boolean(filters.app || filters.user || filters.status || filters.q);
  const ids = { app: useId(), user: useId(), status: useId(), q: useId() };

  return (
    <div className="page page-wide">
      <PageHeader
        title="Notifications"
        description="Everything sent through this hub, newest first, with the delivery to each device."
        actions={
          <button type="button" className="btn" onClick={() => void loadFirst()} disabled={loading}>
            <Icon name="rotate" size={16} /> Refresh
          </button>
        }
      />
      <div className="filters" role="search" aria-label="Filter notifications">
        <div className="filter">
          <label htmlFor={ids.q}>Search titles</label>
          <div className="search-field">
            <Icon name="search" size={16} />
            <input id={ids.q} type="search" placeholder="Title contains…" value={search} onChange={(e) => setSearch(e.target.value)} />
          </div>
        </div>
        <div className="filter">
          <label htmlFor={ids.app}>App</label>
          <select id={ids.app} value={filters.app} onChange={(e) => setFilters({ app: e.target.value })}>
            <option value="">All apps</option>
            {apps.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </div>
        <div className="filter">
          <label htmlFor={ids.user}>User</label>
          <select id={ids.user} value={filters.user} onChange={(e) => setFilters({ user: e.target.value })}>
            <option value="">All users</option>
            {users.map((u) => (
              <option key={u.id} value={u.id}>
                {u.name}
              </option>
            ))}
          </select>
        </div>
        <div className="filter">
          <label htmlFor={ids.status}>Status</label>
          <select id={ids.status} value={filters.status} onChange={(e) => setFilters({ status: e.target.value as Filters['status'] })}>
            <option value="">Any status</option>
            {(Object.keys(statusLabels) as NotificationStatus[]).map((s) => (
              <option key={s} value={s}>
                {statusLabels[s]}
              </option>
            ))}
          </select>
        </div>
        {anyFilter && (
          <button
            type="button"
            className="btn btn-ghost filter-clear"
            onClick={() => {
              setSearch('');
              navigate(`${window.location.pathname}`, { replace: true });
            }}
          >
            Clear filters
          </button>
        )}
      </div>

      <div className={selectedId ? 'split split-open' : 'split'}>
        <div className="split-main">
          {error !== undefined && !loaded ? (
            <ErrorState error={error} onRetry={() => void loadFirst()} title="The notifications could not be loaded" />
          ) : !loaded ? (
            <Loading label="Loading notifications…" />
          ) : visible.length === 0 && !next ? (
            anyFilter ? (
              <EmptyState icon="search" title="Nothing matches these filters">
                Try another app, user or status, or clear the filters.
              </EmptyState>
            ) : (
              <EmptyState
                icon="bell"
                title="No notifications yet"
                action={
                  <Link to="/send" className="btn btn-primary">
                    <Icon name="send" size={16} /> Send a test
                  </Link>
                }
              >
                Notifications appear here as soon as a script calls <code>POST /v1/push</code>.
              </EmptyState>
            )
          ) : (
            <div className="card card-flush">
              <table className="table table-notifications" aria-label="Notifications">
                <thead>
                  <tr>
                    <th scope="col">Notification</th>
                    <th scope="col">App</th>
                    <th scope="col">To</th>
                    <th scope="col">Deliveries</th>
                    <th scope="col">Sent</th>
                  </tr>
                </thead>
                <tbody>
                  {visible.map((n) => (
                    <tr key={n.id} className={n.id === selectedId ? 'selected' : undefined} aria-selected={n.id === selectedId}>
                      <td className="cell-title">
                        <Link to={hrefFor(n.id)} className="row-link" aria-current={n.id === selectedId ? 'true' : undefined}>
                          {displayTitle(n)}
                        </Link>
                        <span className="cell-body">{n.body}</span>
                      </td>
                      <td>{n.app.name}</td>
                      <td>
                        <span className="with-icon">
                          <Icon name={n.target.groupId && !n.target.userId ? 'groups' : 'users'} size={14} />
                          {n.target.label || <span className="muted">deleted</span>}
                        </span>
                      </td>
                      <td>
                        <SummaryBar summary={n.summary} />
                      </td>
                      <td className="nowrap">
                        <Time iso={n.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <div ref={sentinel} className="list-footer">
                {loading ? (
                  <Loading inline label="Loading older notifications…" />
                ) : next ? (
                  <button type="button" className="btn" onClick={() => void loadMore()}>
                    Load older notifications
                  </button>
                ) : (
                  <span className="muted">
                    {clientFiltered ? `${visible.length} of ${items.length} loaded notifications match.` : 'That is all of them.'}
                  </span>
                )}
              </div>
              {error !== undefined && loaded && (
                <p className="form-error list-footer" role="alert">
                  Loading more failed. <button type="button" className="btn btn-small" onClick={() => void loadMore()}>Try again</button>
                </p>
              )}
            </div>
          )}
        </div>
        {selectedId && (
          <aside className="split-side" aria-label="Notification details">
            <NotificationDetail id={selectedId} closeHref={hrefFor()} />
          </aside>
        )}
      </div>
    </div>
  );
}
