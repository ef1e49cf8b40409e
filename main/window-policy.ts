/**
 * What the console window may do (DESIGN.md convention 10; issue "Desktop app" / Security).
 * Plain functions of URLs and permission names, so they are tested without Electron; main.ts
 * wires them to every webContents.
 */

/** webPreferences of every window: isolated, sandboxed, no Node, no webviews. */
export function secureWebPreferences(preload: string) {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webviewTag: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    safeDialogs: true,
  } as const;
}

/** The origin of `url` (`http://127.0.0.1:8780`), or null when it is not a URL or has an opaque origin. */
export function originOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/** Schemes handed to the system (browser, mail client) when a page tries to leave the hub. */
const EXTERNAL_SCHEMES = new Set(['http:', 'https:', 'mailto:']);

/** What happens to a navigation; see {@link decideNavigation}. */
export type NavigationDecision = 'allow' | 'open-external' | 'deny';

/**
 * A navigation of a window (a link, `location = …`, a redirect):
 * - `allow` within the hub's origin (scheme, host and port: another port is another origin);
 * - `open-external`: refused in the window and opened by the system (http, https, mailto),
 *   which is also where the hub's own pages go while its origin is unknown (hub not running);
 * - `deny` for anything else (file:, data:, javascript:, custom schemes, unparsable URLs).
 */
export function decideNavigation(targetUrl: string, hubOrigin: string | null): NavigationDecision {
  let url: URL;
  try {
    url = new URL(targetUrl);
  } catch {
    return 'deny';
  }
  if (hubOrigin && url.origin === hubOrigin) return 'allow';
  return EXTERNAL_SCHEMES.has(url.protocol) ? 'open-external' : 'deny';
}

/**
 * `window.open` and `target=_blank`: no new Electron windows at all. A link within the hub opens
 * in the console window itself (`load-here`); others as {@link decideNavigation}.
 */
export function decideWindowOpen(targetUrl: string, hubOrigin: string | null): 'load-here' | 'open-external' | 'deny' {
  const decision = decideNavigation(targetUrl, hubOrigin);
  return decision === 'allow' ? 'load-here' : decision;
}

/**
 * Permissions granted, and only to pages of the hub's origin:
 * - `notifications` (the issue: "permission requests denied except notifications");
 * - `clipboard-sanitized-write`: writing plain text to the clipboard, which the console's "copy"
 *   buttons need for the API key shown once (Chromium asks for it on navigator.clipboard.writeText);
 *   reading the clipboard stays denied.
 */
export const GRANTED_PERMISSIONS: readonly string[] = ['notifications', 'clipboard-sanitized-write'];

/** Answer to a permission request or check from `requestingUrl` (a URL or an origin). */
export function permissionAllowed(permission: string, requestingUrl: string | null | undefined, hubOrigin: string | null): boolean {
  if (!hubOrigin || !GRANTED_PERMISSIONS.includes(permission)) return false;
  return originOf(requestingUrl) === hubOrigin;
}

/** IPC from the preload is answered only for frames showing the hub (not another origin that got loaded somehow). */
export function ipcSenderAllowed(frameUrl: string | null | undefined, hubOrigin: string | null): boolean {
  return hubOrigin !== null && originOf(frameUrl) === hubOrigin;
}

/** The part of Electron's WebContents the policies need (main.ts adapts a WebContents to it). */
export interface PolicyTarget {
  /** Every navigation of any frame (`will-frame-navigate`) and every server redirect (`will-redirect`). */
  onNavigate(listener: (event: { url: string; preventDefault(): void }) => void): void;
  /** `will-attach-webview`. */
  onAttachWebview(listener: (event: { preventDefault(): void }) => void): void;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
  loadURL(url: string): Promise<void>;
}

/**
 * Installs the navigation and window-open policies on one webContents: navigations and redirects
 * out of the hub are stopped (and http(s)/mailto handed to `openExternal`), new windows are never
 * created, webviews are never attached.
 */
export function installNavigationPolicy(
  contents: PolicyTarget,
  hubOrigin: () => string | null,
  openExternal: (url: string) => void,
): void {
  contents.onNavigate((event) => {
    const decision = decideNavigation(event.url, hubOrigin());
    if (decision === 'allow') return;
    event.preventDefault();
    if (decision === 'open-external') openExternal(event.url);
  });
  contents.onAttachWebview((event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const decision = decideWindowOpen(url, hubOrigin());
    if (decision === 'load-here') void contents.loadURL(url).catch(() => {});
    else if (decision === 'open-external') openExternal(url);
    return { action: 'deny' };
  });
}
