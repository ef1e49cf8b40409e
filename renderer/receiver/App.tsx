import { useCallback, useEffect, useRef, useState } from 'react';
import { ToastProvider, useToast } from '../console/components/Toast';
import { onSessionEnded, receiverApi, type SignInAnswer } from './api';
import { AppBar } from './components/AppBar';
import { useInbox, type LiveState } from './inbox';
import { InboxPage } from './pages/Inbox';
import { SettingsPage } from './pages/Settings';
import { PairingPage, SignInPage, pairingNotice, type Notice } from './pages/SignIn';
import { UserKeyPage } from './pages/UserKey';
import { disablePush, syncPush } from './push';
import { cameFromApp, pairingTokenOf, usePage } from './router';
import { loadDevicePrefs, loadSession, saveSession, sessionFrom, type Session } from './session';

/** The receiver; `pairingToken` is the token of the pairing link this page was opened with, if any. */
export function App({ pairingToken }: { pairingToken: string | null }) {
  return (
    <ToastProvider>
      <Receiver pairingToken={pairingToken} />
    </ToastProvider>
  );
}

/**
 * Takes a pairing token out of the address, once, before the first render (so a reload, the
 * history or a shared screenshot does not carry it).
 */
export function takePairingToken(): string | null {
  const token = pairingTokenOf(window.location);
  if (token) window.history.replaceState(null, '', '/receiver/');
  return token;
}

/**
 * Decides what the receiver shows: a pairing link being redeemed, sign-in, the User Key right
 * after signing in on this device, then the inbox (and Settings behind the ⋮ menu). A later
 * visit with a stored session opens straight to the inbox.
 */
function Receiver({ pairingToken }: { pairingToken: string | null }) {
  const [pairing, setPairing] = useState<string | null>(pairingToken);
  const [session, setSessionState] = useState<Session | null>(loadSession);
  const [notice, setNotice] = useState<Notice | null>(null);
  const toast = useToast();

  const setSession = useCallback((next: Session | null) => {
    saveSession(next);
    setSessionState(next);
  }, []);

  /** Signed in (password or pairing link): a session of the new account replaces any other. */
  const signedIn = useCallback(
    (answer: SignInAnswer) => {
      const previous = loadSession();
      setNotice(null);
      setSession(sessionFrom(answer));
      if (previous && previous.token !== answer.token) {
        // A pairing link opened while signed in: the other account stops reaching this browser.
        const cleanup = previous.user.id !== answer.user.id && loadDevicePrefs().pushDeviceId ? disablePush(previous) : Promise.resolve();
        void cleanup.catch(() => undefined).then(() => receiverApi.logout(previous.token).catch(() => undefined));
      }
    },
    [setSession],
  );

  // A pairing link opened while this page is showing changes only the fragment: no new page load.
  useEffect(() => {
    const onHash = () => {
      const token = takePairingToken();
      if (token) setPairing(token);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  // A pairing link works once: a repeated effect (React's StrictMode in development) must not spend it twice.
  const redeeming = useRef(new Map<string, Promise<SignInAnswer>>());
  useEffect(() => {
    if (!pairing) return;
    let current = true;
    let request = redeeming.current.get(pairing);
    if (!request) redeeming.current.set(pairing, (request = receiverApi.pair(pairing)));
    request.then(
      (answer) => {
        if (!current) return;
        signedIn(answer);
        setPairing(null);
      },
      (err: unknown) => {
        if (!current) return;
        setNotice(pairingNotice(err));
        setPairing(null);
      },
    );
    return () => {
      current = false;
    };
  }, [pairing, signedIn]);

  // The hub said 401 to this session: it was ended (signed out elsewhere, or the account deleted).
  useEffect(
    () =>
      onSessionEnded(() => {
        setSession(null);
        setNotice({ kind: 'info', title: 'You were signed out', text: 'The session on this device ended. Sign in again to keep receiving notifications.' });
      }),
    [setSession],
  );

  if (pairing) return <PairingPage />;
  if (!session) return <SignInPage notice={notice} onSignedIn={signedIn} />;
  if (!session.keySeen) {
    return (
      <UserKeyPage
        name={session.user.name}
        userKey={session.userKey}
        onContinue={() => {
          setSession({ ...session, keySeen: true });
          window.history.replaceState(null, '', '/receiver/');
        }}
      />
    );
  }
  return (
    <SignedIn
      key={session.token}
      session={session}
      onSignedOut={() => {
        setSession(null);
        setNotice(null);
        toast('Signed out');
      }}
    />
  );
}

const liveText: Record<LiveState, string> = { connecting: 'Connecting…', live: 'Live', offline: 'Offline' };

/** The signed-in app: the inbox (kept open behind Settings, so the live stream never stops) and Settings. */
function SignedIn({ session, onSignedOut }: { session: Session; onSignedOut: () => void }) {
  const [page, go] = usePage();
  const inbox = useInbox(session.token);

  useEffect(() => {
    document.title = page === 'settings' ? 'Settings · Pushhub' : 'Inbox · Pushhub';
  }, [page]);
  // A subscription the browser renewed on its own is registered again.
  useEffect(() => {
    void syncPush(session).catch(() => undefined);
  }, [session]);

  const signOut = async () => {
    if (loadDevicePrefs().pushDeviceId) await disablePush(session);
    await receiverApi.logout(session.token).catch(() => undefined);
    onSignedOut();
  };

  const status = (
    <span className={`live live-${inbox.live}`} role="status" title={inbox.live === 'live' ? 'New notifications appear at once' : undefined}>
      <span className="live-dot" aria-hidden="true" />
      <span className="live-text">{liveText[inbox.live]}</span>
    </span>
  );
  return (
    <div className="receiver">
      {page === 'settings' ? (
        <AppBar title="Settings" back={{ label: 'Back to inbox', onClick: () => (cameFromApp() ? window.history.back() : go('inbox', { replace: true })) }} />
      ) : (
        <AppBar
          title="Inbox"
          status={status}
          menu={[
            { label: 'Settings', onSelect: () => go('settings') },
            { label: 'Refresh', onSelect: inbox.reload },
          ]}
        />
      )}
      <main id="main" className="receiver-main">
        {page === 'settings' ? <SettingsPage session={session} onSignOut={signOut} /> : <InboxPage inbox={inbox} userKey={session.userKey} />}
      </main>
    </div>
  );
}
