import { Router } from 'express';
import { HubError } from '../../domain/errors.js';
import { isSingleEmoji } from '../../domain/notification.js';

/** Cache-Control of an emoji image: its URL names its content, so it never changes. */
const EMOJI_CACHE = 'public, max-age=31536000, immutable';
/** An SVG image needs nothing from anywhere; this stops it doing anything if opened as a document. */
const EMOJI_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";
/** `1f6aa.svg`, `1f468-200d-1f469-200d-1f467.svg`: lowercase hex code points joined by `-`. */
const FILE = /^([0-9a-f]{1,6}(?:-[0-9a-f]{1,6}){0,15})\.svg$/;

/**
 * The file name of an emoji's image: its code points in lowercase hex joined by `-`, plus
 * `.svg` (`🚪` → `1f6aa.svg`, `❤️` → `2764-fe0f.svg`). The web receiver builds the same name
 * (renderer/receiver/sw-logic.ts `emojiIconPath`).
 */
export function emojiFileName(emoji: string): string {
  return `${[...emoji].map((c) => c.codePointAt(0)!.toString(16)).join('-')}.svg`;
}

/** The emoji a file name stands for, or null when it is not one emoji (see {@link emojiFileName}). */
export function emojiFromFileName(file: string): string | null {
  const m = FILE.exec(file);
  if (!m) return null;
  const points = m[1]!.split('-').map((h) => parseInt(h, 16));
  if (points.some((p) => p > 0x10ffff || (p >= 0xd800 && p <= 0xdfff))) return null;
  const emoji = String.fromCodePoint(...points);
  return isSingleEmoji(emoji) ? emoji : null;
}

/**
 * A square SVG (viewBox 0 0 128 128) with the emoji as text, centred, drawn in the viewer's
 * colour-emoji font. Its only variable content is one emoji grapheme, which needs no escaping.
 */
export function emojiSvg(emoji: string): string {
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128">' +
    `<text x="64" y="64" dy="0.05em" text-anchor="middle" dominant-baseline="central" font-size="104" ` +
    `font-family="'Apple Color Emoji','Segoe UI Emoji','Noto Color Emoji','Twemoji Mozilla',sans-serif">${emoji}</text></svg>`
  );
}

/**
 * `GET /emoji/:codepoints.svg` (public): an image of one emoji, so a notification can show its
 * emoji as the icon (spec "Notification": "Emoji shown in the title and as the icon"); the web
 * receiver's service worker and native apps use it. `image/svg+xml`, cached for a year
 * (immutable: the name is the content). 404 `not_found` for a name that is not one emoji.
 */
export function createEmojiRoutes(): Router {
  const router = Router();
  router.get('/:file', (req, res) => {
    const emoji = emojiFromFileName(req.params.file.toLowerCase());
    if (emoji === null) throw new HubError('not_found', 'no such emoji image: use /emoji/<code points in hex, joined by ->.svg');
    res
      .set('Content-Type', 'image/svg+xml; charset=utf-8')
      .set('Cache-Control', EMOJI_CACHE)
      .set('Content-Security-Policy', EMOJI_CSP)
      .send(emojiSvg(emoji));
  });
  return router;
}
