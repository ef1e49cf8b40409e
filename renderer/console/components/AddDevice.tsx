import QRCode from 'qrcode';
import { useEffect, useState } from 'react';
import './AddDevice.css';
import { errorMessage, request } from '../api';
import { useBaseUrl } from '../hub';
import { CopyField } from './Copy';
import { Icon } from './Icon';

/** `POST /api/users/:id/pairing`: a one-time link that signs a device in to this receiver's account. */
interface Pairing {
  url: string;
  /** ISO 8601. */
  expiresAt: string;
}

type State =
  | { kind: 'idle' }
  | { kind: 'busy' }
  | { kind: 'ready'; pairing: Pairing; qr: string }
  | { kind: 'error'; error: unknown };

const hoursMinutes = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

/** True for an address a phone cannot reach: this computer's loopback. */
function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host);
  } catch {
    return false;
  }
}

/** The link as a QR code: an SVG in a data: URL (the CSP allows data: images, and no markup is injected). */
async function qrDataUrl(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, color: { dark: '#101828', light: '#ffffff' } });
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

/**
 * "Add a device" on a user's page (issue "Web receiver app" / "Pairing"): makes a one-time
 * pairing link, valid 15 minutes, and shows it with its QR code. Opening it on a phone signs that
 * device in to this account in the web receiver, without the password.
 */
export function AddDevice({ userId, name, username }: { userId: string; name: string; username: string }) {
  const [state, setState] = useState<State>({ kind: 'idle' });
  const [now, setNow] = useState(() => Date.now());
  const base = useBaseUrl();
  const ready = state.kind === 'ready';

  useEffect(() => {
    if (!ready) return;
    const id = window.setInterval(() => setNow(Date.now()), 5000);
    return () => window.clearInterval(id);
  }, [ready]);

  const create = async () => {
    setState({ kind: 'busy' });
    try {
      const pairing = await request<Pairing>('POST', `/api/users/${encodeURIComponent(userId)}/pairing`);
      setNow(Date.now());
      setState({ kind: 'ready', pairing, qr: await qrDataUrl(pairing.url) });
    } catch (error) {
      setState({ kind: 'error', error });
    }
  };

  if (state.kind !== 'ready') {
    return (
      <div className="pairing">
        <p className="muted">
          Make a one-time link for {name}’s phone or computer: opening it there signs in to the Pushhub receiver without the password. Or sign in at{' '}
          <code className="break">{base}/receiver/</code> as <strong>@{username}</strong> with the password.
        </p>
        {state.kind === 'error' && (
          <p className="callout callout-error" role="alert">
            <Icon name="alert" size={16} />
            <span>The pairing link could not be made: {errorMessage(state.error)}</span>
          </p>
        )}
        <div>
          <button type="button" className="btn btn-primary" onClick={() => void create()} disabled={state.kind === 'busy'}>
            <Icon name="link" size={16} /> {state.kind === 'busy' ? 'Making a link…' : 'Create pairing link'}
          </button>
        </div>
      </div>
    );
  }

  const { pairing, qr } = state;
  const expired = Date.parse(pairing.expiresAt) <= now;
  return (
    <div className="pairing pairing-ready">
      <img className={expired ? 'pairing-qr pairing-qr-expired' : 'pairing-qr'} src={qr} width={176} height={176} alt={`QR code of the pairing link for ${name}`} />
      <div className="pairing-text">
        <p>
          <strong>Scan it with the phone’s camera</strong>, or send {name} the link. It works once, until{' '}
          <time dateTime={pairing.expiresAt}>{hoursMinutes.format(new Date(pairing.expiresAt))}</time> (15 minutes).
        </p>
        <CopyField value={pairing.url} label="Pairing link" copyLabel="Copy pairing link" />
        {expired ? (
          <p className="callout callout-warning" role="status">
            <Icon name="alert" size={16} />
            <span>This link has expired. Make a new one.</span>
          </p>
        ) : (
          isLoopback(pairing.url) && (
            <p className="callout callout-warning">
              <Icon name="alert" size={16} />
              <span>
                A phone cannot open this address: it is this computer’s own. Open the console at the hub’s network address, or start the hub with{' '}
                <code>PUSHHUB_PUBLIC_URL</code> set to one (e.g. <code>http://192.168.1.20:8780</code>), then make a new link.
              </span>
            </p>
          )
        )}
        <div>
          <button type="button" className="btn" onClick={() => void create()}>
            <Icon name="rotate" size={16} /> New link
          </button>
        </div>
      </div>
    </div>
  );
}
