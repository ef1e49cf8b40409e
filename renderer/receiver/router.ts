import { useCallback, useEffect, useState } from 'react';

/** The receiver's pages: the inbox at /receiver/ and the settings at /receiver/settings. */
export type Page = 'inbox' | 'settings';

/** The page a path shows (anything unknown under /receiver/ is the inbox). */
export function pageOf(pathname: string): Page {
  return /^\/receiver\/settings\/?$/.test(pathname) ? 'settings' : 'inbox';
}

export const pathOf = (page: Page) => (page === 'settings' ? '/receiver/settings' : '/receiver/');

/** History-API routing between the two pages; the hub answers index.html for both. */
export function usePage(): [Page, (page: Page, options?: { replace?: boolean }) => void] {
  const [page, setPage] = useState<Page>(() => pageOf(window.location.pathname));
  useEffect(() => {
    const onPop = () => setPage(pageOf(window.location.pathname));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const go = useCallback((next: Page, options: { replace?: boolean } = {}) => {
    const path = pathOf(next);
    if (window.location.pathname !== path) {
      // `inApp` marks entries this app pushed: "back" may then leave a page by history.back().
      if (options.replace) window.history.replaceState(window.history.state, '', path);
      else window.history.pushState({ inApp: true }, '', path);
    }
    setPage(next);
    window.scrollTo(0, 0);
  }, []);
  return [page, go];
}

/**
 * The pairing token of a pairing link, if this page was opened with one: `/receiver/#pair=<token>`
 * (what the console hands out: the fragment never reaches a server log) or `/receiver/pair?token=…`.
 */
export function pairingTokenOf(location: Pick<Location, 'pathname' | 'search' | 'hash'>): string | null {
  const hash = new URLSearchParams(location.hash.replace(/^#/, '')).get('pair');
  if (hash) return hash;
  if (/^\/receiver\/pair\/?$/.test(location.pathname)) return new URLSearchParams(location.search).get('token');
  return null;
}

/** True when the current history entry was pushed by this app (so going back stays in it). */
export const cameFromApp = () => (window.history.state as { inApp?: boolean } | null)?.inApp === true;
