import { ulid } from 'ulid';
import { describe, expect, it } from 'vitest';
import type { NotificationContent } from '../../server/delivery/types.js';
import { webPushPayload, WEBPUSH_MAX_PLAINTEXT_BYTES } from '../../server/delivery/senders/webpush-sender.js';
import { emojiFileName, emojiFromFileName } from '../../server/http/routes/emoji.js';
import {
  clickTarget,
  emojiIconPath,
  FALLBACK_BODY,
  FALLBACK_TITLE,
  notificationFromPush,
  parsePushPayload,
  ulidTime,
  windowToReuse,
} from '../../renderer/receiver/sw-logic.js';

// The web receiver's service worker logic (renderer/receiver/sw-logic.ts), fed the exact text
// the hub's Web Push sender encrypts (webPushPayload), as the service worker's push event gets it.

const SCOPE = 'https://hub.example/receiver/';
const CREATED = Date.UTC(2026, 10, 21, 8, 14, 3);

function notification(fields: Partial<NotificationContent> = {}): NotificationContent {
  return {
    id: ulid(CREATED),
    title: 'Front door',
    body: 'The front door opened',
    emoji: '🚪',
    image: 'https://cam.example/front.jpg',
    url: 'http://homeassistant.local:8123/lovelace/door',
    createdAt: CREATED,
    ...fields,
  };
}

/** What the service worker receives: the sender's plaintext, as `event.data.json()` reads it. */
const received = (n: NotificationContent) => JSON.parse(webPushPayload(n)!) as unknown;

describe('a Web Push message → the notification shown', () => {
  it('puts the emoji in front of the title, shows body and image, the emoji as the icon, and keeps the url for the click', () => {
    const n = notification();
    const spec = notificationFromPush(received(n), SCOPE);
    expect(spec).toEqual({
      title: '🚪 Front door',
      emoji: '🚪',
      options: {
        body: 'The front door opened',
        icon: 'https://hub.example/emoji/1f6aa.svg',
        badge: 'https://hub.example/receiver/icons/badge-96.png',
        image: 'https://cam.example/front.jpg',
        tag: n.id,
        timestamp: CREATED,
        data: { id: n.id, url: 'http://homeassistant.local:8123/lovelace/door' },
      },
    });
  });

  it('without emoji, image or url: the plain title, the app icon, no image, a click opens the inbox', () => {
    const n = notification({ emoji: null, image: null, url: null, title: 'Backup finished', body: 'Nightly backup done.' });
    const spec = notificationFromPush(received(n), SCOPE);
    expect(spec.title).toBe('Backup finished');
    expect(spec.emoji).toBeNull();
    expect(spec.options.icon).toBe('https://hub.example/receiver/icons/icon-192.png');
    expect(spec.options).not.toHaveProperty('image');
    expect(spec.options.data).toEqual({ id: n.id, url: null });
    expect(clickTarget(spec.options.data, SCOPE)).toBe(SCOPE);
  });

  it('handles multi-code-point emoji (ZWJ sequences, flags, variation selectors) in the title and the icon address', () => {
    for (const [emoji, file] of [
      ['👨‍👩‍👧', '1f468-200d-1f469-200d-1f467.svg'],
      ['🇩🇪', '1f1e9-1f1ea.svg'],
      ['❤️', '2764-fe0f.svg'],
      ['⚠', '26a0.svg'],
    ] as const) {
      const spec = notificationFromPush(received(notification({ emoji })), SCOPE);
      expect(spec.title).toBe(`${emoji} Front door`);
      expect(spec.options.icon).toBe(`https://hub.example/emoji/${file}`);
      // The hub's emoji route reads the same name back (server/http/routes/emoji.ts).
      expect(emojiIconPath(emoji)).toBe(`/emoji/${emojiFileName(emoji)}`);
      expect(emojiFromFileName(file)).toBe(emoji);
    }
  });

  it('shows a body the sender shortened to fit Web Push whole (it ends with …)', () => {
    const n = notification({ body: 'x'.repeat(6000) });
    const text = webPushPayload(n)!;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(WEBPUSH_MAX_PLAINTEXT_BYTES);
    const spec = notificationFromPush(JSON.parse(text), SCOPE);
    expect(spec.options.body.endsWith('…')).toBe(true);
    expect(spec.options.body.length).toBeGreaterThan(3000);
    expect(spec.title).toBe('🚪 Front door');
  });

  it('reads the message as text too (event.data.text() when json() fails elsewhere)', () => {
    const n = notification();
    expect(notificationFromPush(webPushPayload(n)!, SCOPE)).toEqual(notificationFromPush(received(n), SCOPE));
  });

  it('still shows something for a message it cannot read (browsers require a visible notification)', () => {
    for (const raw of [null, '', 'not json', '[]', '{"body":"no title"}', 42]) {
      const spec = notificationFromPush(raw, SCOPE);
      expect(spec.title).toBe(FALLBACK_TITLE);
      expect(spec.options.body).toBe(FALLBACK_BODY);
      expect(spec.options.data).toEqual({ id: null, url: null });
      expect(clickTarget(spec.options.data, SCOPE)).toBe(SCOPE);
    }
  });

  it('ignores an image or url that is not http(s)', () => {
    const payload = { id: 'x', title: 'T', body: 'B', emoji: null, image: 'javascript:alert(1)', url: 'data:text/html,hi' };
    expect(parsePushPayload(payload)).toEqual({ id: 'x', title: 'T', body: 'B', emoji: null, image: null, url: null });
    expect(notificationFromPush(payload, SCOPE).options).not.toHaveProperty('timestamp');
  });
});

describe('a click on the notification', () => {
  it('opens the notification url, or the inbox', () => {
    expect(clickTarget({ id: 'a', url: 'https://example.com/x' }, SCOPE)).toBe('https://example.com/x');
    expect(clickTarget({ id: 'a', url: null }, SCOPE)).toBe(SCOPE);
    expect(clickTarget({ id: 'a', url: 'javascript:alert(1)' }, SCOPE)).toBe(SCOPE);
    expect(clickTarget(undefined, SCOPE)).toBe(SCOPE);
  });

  it('reuses a window already showing the target, or for the inbox any window of the app', () => {
    const windows = ['https://hub.example/receiver/settings', 'https://example.com/x'];
    expect(windowToReuse(windows, 'https://example.com/x', SCOPE)).toBe(1);
    expect(windowToReuse(windows, 'https://example.com/other', SCOPE)).toBe(-1);
    expect(windowToReuse(windows, SCOPE, SCOPE)).toBe(0);
    expect(windowToReuse(['https://hub.example/'], SCOPE, SCOPE)).toBe(-1);
  });
});

describe('ulidTime', () => {
  it('reads the creation time out of a notification id', () => {
    expect(ulidTime(ulid(CREATED))).toBe(CREATED);
    expect(ulidTime('not-a-ulid')).toBeUndefined();
  });
});
