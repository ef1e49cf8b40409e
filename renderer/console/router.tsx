import { createContext, useCallback, useContext, useEffect, useMemo, useState, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from 'react';

// History-API routing for a handful of pages. The hub answers index.html for each of these
// paths (server/http/routes/console.ts, CONSOLE_PAGE): keep the two lists in step.

/** The console's pages and their paths. */
export type Route =
  | { page: 'overview' }
  | { page: 'login' }
  | { page: 'setup' }
  | { page: 'apps' }
  | { page: 'app'; id: string }
  | { page: 'users' }
  | { page: 'user'; id: string }
  | { page: 'groups' }
  | { page: 'group'; id: string }
  | { page: 'notifications'; id?: string }
  | { page: 'send' }
  | { page: 'settings' }
  | { page: 'not-found' };

/** Maps a pathname to its page. */
export function matchRoute(pathname: string): Route {
  const parts = pathname.replace(/\/+$/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [first, id, ...rest] = parts;
  if (rest.length) return { page: 'not-found' };
  switch (first) {
    case undefined:
      return { page: 'overview' };
    case 'login':
    case 'setup':
    case 'send':
    case 'settings':
      return id === undefined ? { page: first } : { page: 'not-found' };
    case 'apps':
      return id === undefined ? { page: 'apps' } : { page: 'app', id };
    case 'users':
      return id === undefined ? { page: 'users' } : { page: 'user', id };
    case 'groups':
      return id === undefined ? { page: 'groups' } : { page: 'group', id };
    case 'notifications':
      return id === undefined ? { page: 'notifications' } : { page: 'notifications', id };
    default:
      return { page: 'not-found' };
  }
}

interface Location {
  pathname: string;
  search: string;
}

interface RouterValue {
  location: Location;
  navigate: (to: string, options?: { replace?: boolean }) => void;
}

const RouterContext = createContext<RouterValue | null>(null);

const current = (): Location => ({ pathname: window.location.pathname, search: window.location.search });

export function RouterProvider({ children }: { children: ReactNode }) {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const onPop = () => setLocation(current());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const navigate = useCallback((to: string, options: { replace?: boolean } = {}) => {
    const url = new URL(to, window.location.href);
    if (url.pathname + url.search === window.location.pathname + window.location.search) return;
    if (options.replace) window.history.replaceState(null, '', url);
    else window.history.pushState(null, '', url);
    setLocation(current());
    if (!options.replace) window.scrollTo(0, 0);
  }, []);
  const value = useMemo(() => ({ location, navigate }), [location, navigate]);
  return <RouterContext.Provider value={value}>{children}</RouterContext.Provider>;
}

export function useRouter(): RouterValue {
  const value = useContext(RouterContext);
  if (!value) throw new Error('useRouter outside RouterProvider');
  return value;
}

/** A link that navigates without reloading (plain clicks only; modified clicks open as usual). */
export function Link({ to, onClick, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const { navigate } = useRouter();
  const handle = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={handle} {...rest} />;
}
