// What the web receiver keeps in this browser (docs/decisions/0005-receiver-session-storage.md):
// the receiver session of the one account signed in here, and this device's own settings. The
// receiver token reaches only its own account (it is refused by the admin API).

import type { SignInAnswer } from './api';

/** The signed-in account on this device. */
export interface Session {
  token: string;
  userKey: string;
  user: { id: string; name: string };
  /** False until the "Your User Key" screen after sign-in was acknowledged. */
  keySeen: boolean;
}

/** This browser's own settings; they outlive a sign-out. */
export interface DevicePrefs {
  /** The name the account's device list shows for this browser. */
  name: string;
  /** The hub's id of this browser's Web Push device, when push is on. */
  pushDeviceId?: string;
  /** The subscription endpoint registered with it (to notice a renewed subscription). */
  pushEndpoint?: string;
}

const SESSION_KEY = 'pushhub.receiver.session';
const DEVICE_KEY = 'pushhub.receiver.device';

function read<T>(key: string): T | null {
  try {
    const raw = localStorage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}

function write(key: string, value: unknown): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Storage full or disabled (private mode): the app still works until the page closes.
  }
}

/** The stored session, or null (never signed in, signed out, or unreadable). */
export function loadSession(): Session | null {
  const s = read<Partial<Session>>(SESSION_KEY);
  if (!s || typeof s.token !== 'string' || typeof s.userKey !== 'string' || !s.user || typeof s.user.id !== 'string') return null;
  return { token: s.token, userKey: s.userKey, user: { id: s.user.id, name: String(s.user.name ?? '') }, keySeen: s.keySeen === true };
}

/** A new session from a sign-in or pairing answer: the User Key screen comes next. */
export function sessionFrom(answer: SignInAnswer): Session {
  return { token: answer.token, userKey: answer.userKey, user: answer.user, keySeen: false };
}

export function saveSession(session: Session | null): void {
  write(SESSION_KEY, session);
}

export function loadDevicePrefs(): DevicePrefs {
  const p = read<Partial<DevicePrefs>>(DEVICE_KEY);
  return {
    name: typeof p?.name === 'string' && p.name.trim() ? p.name : guessDeviceName(navigator.userAgent),
    ...(typeof p?.pushDeviceId === 'string' ? { pushDeviceId: p.pushDeviceId } : {}),
    ...(typeof p?.pushEndpoint === 'string' ? { pushEndpoint: p.pushEndpoint } : {}),
  };
}

export function saveDevicePrefs(prefs: DevicePrefs): void {
  write(DEVICE_KEY, prefs);
}

/** "Chrome on Android", "Safari on iPhone", "Firefox on Windows": a name a person recognises. */
export function guessDeviceName(ua: string): string {
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /SamsungBrowser\//.test(ua)
      ? 'Samsung Internet'
      : /OPR\//.test(ua)
        ? 'Opera'
        : /Firefox\/|FxiOS\//.test(ua)
          ? 'Firefox'
          : /Chrome\/|CriOS\//.test(ua)
            ? 'Chrome'
            : /Safari\//.test(ua)
              ? 'Safari'
              : 'Browser';
  const os = /iPhone/.test(ua)
    ? 'iPhone'
    : /iPad/.test(ua) || (/Macintosh/.test(ua) && navigator.maxTouchPoints > 1)
      ? 'iPad'
      : /Android/.test(ua)
        ? 'Android'
        : /CrOS/.test(ua)
          ? 'ChromeOS'
          : /Windows/.test(ua)
            ? 'Windows'
            : /Macintosh|Mac OS X/.test(ua)
              ? 'Mac'
              : /Linux/.test(ua)
                ? 'Linux'
                : '';
  return os ? `${browser} on ${os}` : browser;
}
