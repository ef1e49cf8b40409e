import { afterEach, describe, expect, it } from 'vitest';
import {
  createDesktopReceiver,
  createNotificationBatcher,
  createSseParser,
  notificationContent,
  ReceiverAuthError,
  receiverLogin,
  type DesktopReceiver,
  type ReceiverState,
  type SseMessage,
  type StreamNotification,
} from '../../main/desktop-receiver.js';
import { seed, startTestHub, type TestHub } from '../helpers/hub.js';
import { waitFor } from '../helpers/wait.js';

// The desktop receiver (main/desktop-receiver.ts) against a real hub: a stream device of a
// receiver user, notifications over Server-Sent Events, resumption with Last-Event-ID.

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function hubWithReceiver() {
  const t = await startTestHub();
  cleanup.push(() => t.close());
  const keys = await seed(t, { user: 'Dana' });
  const user = await t.api('GET', `/api/users/${keys.userId}`);
  const login = await receiverLogin(t.url, user.json.username as string, 'receiver-pass');
  return { t, keys, login };
}

function receiverFor(t: TestHub, token: string, extra: Partial<Parameters<typeof createDesktopReceiver>[0]> = {}) {
  const shown: StreamNotification[] = [];
  const states: ReceiverState[] = [];
  const ids: string[] = [];
  const receiver = createDesktopReceiver({
    hubUrl: t.url,
    token,
    deviceName: 'Pushhub desktop (test)',
    deviceToken: 'desktop-test-device-0001',
    onNotification: (n) => shown.push(n),
    onLastEventId: (id) => ids.push(id),
    onState: (s) => states.push(s),
    reconnect: { initialMs: 50, maxMs: 200 },
    ...extra,
  });
  cleanup.push(() => receiver.stop());
  return { receiver, shown, states, ids };
}

const push = (t: TestHub, keys: { apiKey: string; userKey: string }, title: string, extra: Record<string, string> = {}) =>
  t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title, body: `${title} body`, ...extra });

async function deliveryOf(t: TestHub, id: string, deviceId: string) {
  const detail = await t.api('GET', `/api/notifications/${id}`);
  return (detail.json.deliveries as { deviceId: string; status: string }[]).find((d) => d.deviceId === deviceId);
}

describe('desktop receiver against a real hub', () => {
  it('registers a desktop stream device, shows pushes live and records them delivered', async () => {
    const { t, keys, login } = await hubWithReceiver();
    expect(login.user.name).toBe('Dana');
    const { receiver, shown, states, ids } = receiverFor(t, login.token);
    await receiver.start();
    expect(receiver.deviceId).toMatch(/^[0-9A-Z]{26}$/);
    const devices = await t.api('GET', `/api/users/${keys.userId}/devices`);
    expect(devices.json).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: receiver.deviceId, name: 'Pushhub desktop (test)', platform: 'desktop', channel: 'stream' })]),
    );
    await waitFor(() => receiver.state === 'connected', 5000, 'the stream to open');

    const sent = await push(t, keys, 'Front door', { emoji: '🚪', url: 'http://homeassistant.local:8123/' });
    expect(sent.status).toBe(200);
    await waitFor(() => shown.length === 1, 5000, 'the notification');
    expect(shown[0]).toMatchObject({ id: sent.json.id, title: 'Front door', body: 'Front door body', emoji: '🚪', url: 'http://homeassistant.local:8123/' });
    expect(ids).toEqual([sent.json.id]);
    expect(notificationContent(shown[0]!)).toEqual({ title: '🚪 Front door', body: 'Front door body', url: 'http://homeassistant.local:8123/' });
    await waitFor(async () => (await deliveryOf(t, sent.json.id, receiver.deviceId!))?.status === 'delivered', 5000, 'the delivery to be recorded');
    expect(states).toEqual(['connecting', 'connected']);
  });

  it('resumes after the last shown notification: what was sent while it was off arrives once', async () => {
    const { t, keys, login } = await hubWithReceiver();
    const first = receiverFor(t, login.token);
    await first.receiver.start();
    await waitFor(() => first.receiver.state === 'connected', 5000, 'the stream');
    const one = await push(t, keys, 'one');
    await waitFor(() => first.shown.length === 1, 5000, 'one');
    await first.receiver.stop();
    expect(first.receiver.state).toBe('stopped');

    const two = await push(t, keys, 'two');
    const three = await push(t, keys, 'three');
    // The same installation starts again (same device token), resuming after "one".
    const second = receiverFor(t, login.token, { lastEventId: one.json.id });
    await second.receiver.start();
    expect(second.receiver.deviceId).toBe(first.receiver.deviceId);
    await waitFor(() => second.shown.length >= 2, 5000, 'the missed notifications');
    await new Promise((r) => setTimeout(r, 300));
    expect(second.shown.map((n) => n.title)).toEqual(['two', 'three']);
    expect(second.ids.at(-1)).toBe(three.json.id);
    await waitFor(async () => (await deliveryOf(t, two.json.id, second.receiver.deviceId!))?.status === 'delivered', 5000, 'two delivered');
  });

  it('reconnects when the connection drops', async () => {
    const { t, keys, login } = await hubWithReceiver();
    // A fetch that cuts the first stream after it opened, as a sleeping laptop or a proxy would.
    let streams = 0;
    const cutting: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!String(input).includes('/stream') || ++streams > 1) return res;
      const reader = res.body!.getReader();
      const body = new ReadableStream({
        async pull(controller) {
          const { value, done } = await reader.read();
          if (done) return controller.close();
          controller.enqueue(value);
          await reader.cancel();
          controller.close();
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
    const { receiver, shown, states } = receiverFor(t, login.token, { fetch: cutting });
    await receiver.start();
    await waitFor(() => streams >= 2 && receiver.state === 'connected', 5000, 'a second connection');
    expect(states).toContain('reconnecting');
    await push(t, keys, 'after the drop');
    await waitFor(() => shown.length === 1, 5000, 'the notification');
  });

  it('says unauthorized for a bad session, and unregister removes the device and ends the session', async () => {
    const { t, keys, login } = await hubWithReceiver();
    const bad = receiverFor(t, 'not-a-session');
    await expect(bad.receiver.start()).rejects.toBeInstanceOf(ReceiverAuthError);
    expect(bad.receiver.state).toBe('unauthorized');
    await expect(receiverLogin(t.url, 'nobody', 'wrong password')).rejects.toBeInstanceOf(ReceiverAuthError);

    const { receiver } = receiverFor(t, login.token);
    await receiver.start();
    const deviceId = receiver.deviceId!;
    await receiver.unregister();
    const devices = await t.api('GET', `/api/users/${keys.userId}/devices`);
    expect((devices.json as { id: string }[]).map((d) => d.id)).not.toContain(deviceId);
    const me = await fetch(`${t.url}/api/receiver/me`, { headers: { authorization: `Bearer ${login.token}` } });
    expect(me.status).toBe(401);
  });
});

describe('SSE parser', () => {
  it('follows the WHATWG event-stream rules across chunk boundaries', () => {
    const events: SseMessage[] = [];
    const retries: number[] = [];
    const parser = createSseParser({ onEvent: (e) => events.push(e), onRetry: (ms) => retries.push(ms) });
    const stream = 'retry: 3000\r\n\r\n: heartbeat\n\nid: 1\nevent: notification\ndata: {"a":\ndata: 1}\n\ndata:no space\r\rid\nevent: x\n\nid: 2\0bad\ndata: y\n\nretry: soon\n\n';
    // Feed it one character at a time: CRLF split across chunks included.
    for (const ch of stream) parser.push(ch);
    expect(retries).toEqual([3000]);
    expect(events).toEqual([
      { event: 'notification', data: '{"a":\n1}', lastEventId: '1' },
      { event: 'message', data: 'no space', lastEventId: '1' },
      { event: 'message', data: 'y', lastEventId: '' },
    ]);
  });
});

describe('notification helpers', () => {
  it('opens only http(s) urls on click', () => {
    const n: StreamNotification = { id: '1', title: 'T', body: 'B', emoji: null, image: null, url: 'javascript:alert(1)', createdAt: '' };
    expect(notificationContent(n)).toEqual({ title: 'T', body: 'B', url: null });
    expect(notificationContent({ ...n, url: null }).url).toBe(null);
    expect(notificationContent({ ...n, url: 'https://example.com/x' }).url).toBe('https://example.com/x');
  });

  it('a burst becomes a few notifications and one summary', async () => {
    const shown: number[] = [];
    const summaries: number[][] = [];
    const batcher = createNotificationBatcher<number>({ windowMs: 50, max: 2, show: (n) => shown.push(n), showSummary: (items) => summaries.push(items) });
    for (const n of [1, 2, 3, 4, 5]) batcher.add(n);
    expect(shown).toEqual([1, 2]);
    await new Promise((r) => setTimeout(r, 80));
    expect(summaries).toEqual([[3, 4, 5]]);
    batcher.add(6);
    expect(shown).toEqual([1, 2, 6]);
    batcher.add(7);
    batcher.add(8);
    batcher.flush();
    expect(shown).toEqual([1, 2, 6, 7, 8]);
    batcher.dispose();
  });
});
