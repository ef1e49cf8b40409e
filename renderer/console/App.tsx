import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { api, onUnauthorized, type ConsoleInfo } from './api';
import { Icon, type IconName } from './components/Icon';
import { Loading } from './components/States';
import { ToastProvider, useToast } from './components/Toast';
import { HubInfoProvider } from './hub';
import { AppDetailPage, AppsPage } from './pages/Apps';
import { GroupDetailPage, GroupsPage } from './pages/Groups';
import { LoginPage } from './pages/Login';
import { NotFoundPage } from './pages/NotFound';
import { NotificationsPage } from './pages/Notifications';
import { OverviewPage } from './pages/Overview';
import { SendPage } from './pages/Send';
import { SettingsPage } from './pages/Settings';
import { SetupPage } from './pages/Setup';
import { UserDetailPage, UsersPage } from './pages/Users';
import { Link, matchRoute, RouterProvider, useRouter, type Route } from './router';

type Auth = 'checking' | 'signed-in' | 'signed-out' | 'offline';

export function App() {
  return (
    <RouterProvider>
      <ToastProvider>
        <Console />
      </ToastProvider>
    </RouterProvider>
  );
}

/** Decides between setup, sign-in and the signed-in console. */
function Console() {
  const { location, navigate } = useRouter();
  const route = matchRoute(location.pathname);
  const [auth, setAuth] = useState<Auth>('checking');
  const [info, setInfo] = useState<ConsoleInfo | undefined>(undefined);

  const check = useCallback(async () => {
    try {
      setAuth((await api.status()).signedIn ? 'signed-in' : 'signed-out');
    } catch (err) {
      setAuth(err instanceof TypeError ? 'offline' : 'signed-out');
    }
  }, []);

  useEffect(() => {
    void check();
    return onUnauthorized(() => setAuth('signed-out'));
  }, [check]);

  useEffect(() => {
    if (auth !== 'signed-in') return;
    api.info().then(setInfo, () => setInfo(undefined));
  }, [auth]);

  useEffect(() => {
    if (auth === 'signed-in' && route.page === 'login') navigate('/', { replace: true });
  }, [auth, route.page, navigate]);

  const signedIn = useCallback(() => {
    setAuth('signed-in');
    // From the sign-in or setup page go on to where the link pointed; elsewhere, stay.
    const page = matchRoute(window.location.pathname).page;
    if (page !== 'login' && page !== 'setup') return;
    const back = new URLSearchParams(window.location.search).get('next');
    navigate(back && back.startsWith('/') && !back.startsWith('//') ? back : '/', { replace: true });
  }, [navigate]);

  if (route.page === 'setup') return <SetupPage onSignedIn={signedIn} />;
  if (auth === 'checking') {
    return (
      <div className="splash">
        <Loading label="Opening the console…" />
      </div>
    );
  }
  if (auth === 'offline') {
    return (
      <div className="auth-page">
        <div className="auth-card" role="alert">
          <Brand />
          <h1>The hub does not answer</h1>
          <p className="muted">Check that Pushhub is running, then try again.</p>
          <button type="button" className="btn btn-primary btn-block" onClick={() => void check()}>
            Try again
          </button>
        </div>
      </div>
    );
  }
  if (auth === 'signed-out') return <LoginPage onSignedIn={signedIn} />;
  if (route.page === 'login') return null;
  return (
    <HubInfoProvider info={info}>
      <Shell route={route} onSignOut={() => setAuth('signed-out')}>
        <Page route={route} />
      </Shell>
    </HubInfoProvider>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'overview':
      return <OverviewPage />;
    case 'apps':
      return <AppsPage />;
    case 'app':
      return <AppDetailPage id={route.id} />;
    case 'users':
      return <UsersPage />;
    case 'user':
      return <UserDetailPage id={route.id} />;
    case 'groups':
      return <GroupsPage />;
    case 'group':
      return <GroupDetailPage id={route.id} />;
    case 'notifications':
      return <NotificationsPage selectedId={route.id} />;
    case 'send':
      return <SendPage />;
    case 'settings':
      return <SettingsPage />;
    default:
      return <NotFoundPage />;
  }
}

export function Brand() {
  return (
    <span className="brand">
      <span className="brand-mark" aria-hidden="true">
        <Icon name="bell" size={16} />
      </span>
      <span className="brand-name">Pushhub</span>
    </span>
  );
}

const NAV: { to: string; label: string; icon: IconName; pages: Route['page'][] }[] = [
  { to: '/', label: 'Overview', icon: 'overview', pages: ['overview'] },
  { to: '/notifications', label: 'Notifications', icon: 'bell', pages: ['notifications'] },
  { to: '/send', label: 'Send test', icon: 'send', pages: ['send'] },
  { to: '/apps', label: 'Apps', icon: 'apps', pages: ['apps', 'app'] },
  { to: '/users', label: 'Users', icon: 'users', pages: ['users', 'user'] },
  { to: '/groups', label: 'User Groups', icon: 'groups', pages: ['groups', 'group'] },
  { to: '/settings', label: 'Settings', icon: 'settings', pages: ['settings'] },
];

/** The signed-in frame: navigation on the side, the page in the middle. */
function Shell({ route, onSignOut, children }: { route: Route; onSignOut: () => void; children: ReactNode }) {
  const toast = useToast();
  const { navigate } = useRouter();
  const signOut = async () => {
    try {
      await api.logout();
    } catch {
      // The session may already be gone; signing out locally is what matters.
    }
    onSignOut();
    navigate('/login', { replace: true });
    toast('Signed out');
  };
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="sidebar">
        <Link to="/" className="sidebar-brand" aria-label="Pushhub overview">
          <Brand />
        </Link>
        <nav aria-label="Main">
          <ul className="nav">
            {NAV.map((item) => {
              const active = item.pages.includes(route.page);
              return (
                <li key={item.to}>
                  <Link
                    to={item.to}
                    className={active ? 'nav-link active' : 'nav-link'}
                    aria-current={active ? 'page' : undefined}
                    title={item.label}
                  >
                    <Icon name={item.icon} />
                    <span>{item.label}</span>
                  </Link>
                </li>
              );
            })}
          </ul>
        </nav>
        <div className="sidebar-footer">
          <button type="button" className="nav-link nav-button" onClick={signOut} title="Sign out">
            <Icon name="logout" />
            <span>Sign out</span>
          </button>
        </div>
      </aside>
      <main id="main" className="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
