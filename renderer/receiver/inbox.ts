import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, receiverApi, streamUrl, type ReceivedNotification } from './api';

/** State of the live stream: connecting (first time or again), open, or waiting to retry. */
export type LiveState = 'connecting' | 'live' | 'offline';

export interface Inbox {
  /** Newest first. Undefined until the first page arrived. */
  items: ReceivedNotification[] | undefined;
  /** Ids that arrived live since the page opened (for a highlight). */
  fresh: ReadonlySet<string>;
  /** Why the first page failed, while there is nothing to show. */
  error: unknown;
  /** True while more history may exist. */
  hasMore: boolean;
  loadingMore: boolean;
  moreError: unknown;
  live: LiveState;
  loadMore: () => void;
  reload: () => void;
}

const PAGE = 30;
const MAX_RETRY_MS = 30_000;

/** Merges notifications into a list sorted newest first (ids are ULIDs: they sort by time), each once. */
export function mergeNewestFirst(current: readonly ReceivedNotification[], incoming: readonly ReceivedNotification[]): ReceivedNotification[] {
  const byId = new Map(current.map((n) => [n.id, n]));
  for (const n of incoming) byId.set(n.id, n);
  return [...byId.values()].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/**
 * The inbox of the signed-in account: the newest page of `GET /api/receiver/notifications`,
 * older pages on demand (`before`), and new notifications live from the stream
 * (`GET /api/receiver/stream?token=`). The stream is opened before the history is read, so
 * nothing accepted in between is missed; both are merged by id. EventSource reconnects on its own
 * after a dropped connection, sending `Last-Event-ID`; when the hub refuses it (EventSource then
 * gives up) it is reopened after a growing pause with the last id seen; a 401 ends the session.
 */
export function useInbox(token: string): Inbox {
  const [items, setItems] = useState<ReceivedNotification[] | undefined>(undefined);
  const [fresh, setFresh] = useState<ReadonlySet<string>>(new Set());
  const [error, setError] = useState<unknown>(undefined);
  const [next, setNext] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<unknown>(undefined);
  const [live, setLive] = useState<LiveState>('connecting');
  const [generation, setGeneration] = useState(0);
  const lastId = useRef<string | undefined>(undefined);

  // The live stream.
  useEffect(() => {
    let source: EventSource | null = null;
    let retryTimer: number | undefined;
    let retryMs = 2000;
    let stopped = false;

    const open = () => {
      if (stopped) return;
      setLive('connecting');
      source = new EventSource(streamUrl(token, lastId.current));
      source.onopen = () => {
        retryMs = 2000;
        setLive('live');
      };
      source.addEventListener('notification', (event) => {
        const message = event as MessageEvent<string>;
        let n: ReceivedNotification;
        try {
          n = JSON.parse(message.data) as ReceivedNotification;
        } catch {
          return;
        }
        if (!lastId.current || n.id > lastId.current) lastId.current = n.id;
        setItems((cur) => mergeNewestFirst(cur ?? [], [n]));
        setFresh((cur) => new Set(cur).add(n.id));
      });
      source.onerror = () => {
        if (!source || source.readyState !== EventSource.CLOSED) {
          // EventSource retries by itself (with Last-Event-ID).
          setLive('connecting');
          return;
        }
        // The hub refused the stream: find out whether the session is still valid (a 401 ends it
        // for the whole app, see api.ts onSessionEnded), else try again after a pause.
        source = null;
        setLive('offline');
        receiverApi.me(token).then(
          () => schedule(),
          (err: unknown) => {
            if (!(err instanceof ApiError && err.status === 401)) schedule();
          },
        );
      };
    };
    const schedule = () => {
      if (stopped) return;
      window.clearTimeout(retryTimer);
      retryTimer = window.setTimeout(open, retryMs);
      retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
    };
    // Back from the background or the network: reconnect at once rather than after the pause.
    const wake = () => {
      if (document.visibilityState === 'visible' && source === null && !stopped) {
        window.clearTimeout(retryTimer);
        open();
      }
    };
    open();
    document.addEventListener('visibilitychange', wake);
    window.addEventListener('online', wake);
    return () => {
      stopped = true;
      window.clearTimeout(retryTimer);
      source?.close();
      document.removeEventListener('visibilitychange', wake);
      window.removeEventListener('online', wake);
    };
  }, [token, generation]);

  // The newest page of history.
  useEffect(() => {
    let current = true;
    setError(undefined);
    receiverApi.notifications(token, { limit: PAGE }).then(
      (page) => {
        if (!current) return;
        setItems((cur) => mergeNewestFirst(cur ?? [], page.items));
        setNext(page.next);
        const newest = page.items[0]?.id;
        if (newest && (!lastId.current || newest > lastId.current)) lastId.current = newest;
      },
      (err: unknown) => {
        if (current) setError(err);
      },
    );
    return () => {
      current = false;
    };
  }, [token, generation]);

  const loadMore = useCallback(() => {
    if (!next || loadingMore) return;
    setLoadingMore(true);
    setMoreError(undefined);
    receiverApi.notifications(token, { limit: PAGE, before: next }).then(
      (page) => {
        setItems((cur) => mergeNewestFirst(cur ?? [], page.items));
        setNext(page.next);
        setLoadingMore(false);
      },
      (err: unknown) => {
        setMoreError(err);
        setLoadingMore(false);
      },
    );
  }, [token, next, loadingMore]);

  const reload = useCallback(() => {
    setItems(undefined);
    setNext(null);
    setGeneration((g) => g + 1);
  }, []);

  return { items, fresh, error, hasMore: next !== null, loadingMore, moreError, live, loadMore, reload };
}
