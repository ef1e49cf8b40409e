import { z } from 'zod';
import { issue, toHubError, wellFormedString } from './validation.js';

/** Limits on the push operation's fields (DESIGN.md "Contracts the spec leaves open"). */
export const notificationLimits = {
  /** Unicode code points. */
  titleChars: 250,
  /** Bytes of UTF-8. */
  bodyBytes: 4096,
  /** Characters of the URL string. */
  urlChars: 2048,
} as const;

/** The content and target of an accepted push (spec "Notification"), after validation. */
export interface NotificationInput {
  userKey?: string;
  userGroupKey?: string;
  title: string;
  body: string;
  emoji?: string;
  image?: string;
  url?: string;
}

const RGI_EMOJI = /^(?:\p{RGI_Emoji}|\p{Extended_Pictographic}\uFE0F?)$/v;
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Answers of {@link isSingleEmoji}, remembered: the emoji a hub sees are few, and the check is costly. */
const emojiVerdicts = new Map<string, boolean>();
const EMOJI_CACHE_SIZE = 2048;

/** True when `s` is exactly one emoji grapheme (e.g. "🔥", "👨‍👩‍👧", "🇩🇪", "⚠"). */
export function isSingleEmoji(s: string): boolean {
  const known = emojiVerdicts.get(s);
  if (known !== undefined) return known;
  const verdict = s.length <= 64 && RGI_EMOJI.test(s) && [...segmenter.segment(s)].length === 1;
  if (emojiVerdicts.size >= EMOJI_CACHE_SIZE) emojiVerdicts.clear();
  emojiVerdicts.set(s, verdict);
  return verdict;
}

/** True for an absolute http(s) URL. */
export function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

// Form bodies and templated scripts send "" for a field they mean to leave out, and JSON
// serialisers write null for an absent optional value (Python's None, Go's nil pointers).
const absentToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);
const optional = <T extends z.ZodType>(t: T) => z.preprocess(absentToUndefined, t.optional());

const httpUrl = wellFormedString()
  .max(notificationLimits.urlChars, `at most ${notificationLimits.urlChars} characters`)
  .refine(isHttpUrl, issue('invalid_field', 'must be an absolute http:// or https:// URL'));

const nonBlank = (s: string) => s.trim() !== '';

/** Schema of the push operation's fields; apiKey is checked before this runs. */
export const notificationSchema = z
  .object({
    userKey: optional(wellFormedString()),
    userGroupKey: optional(wellFormedString()),
    title: wellFormedString()
      .refine(nonBlank, issue('missing_field', 'title is required'))
      .refine(
        (s) => [...s].length <= notificationLimits.titleChars,
        issue('too_long', `title: at most ${notificationLimits.titleChars} characters`),
      ),
    body: wellFormedString()
      .refine(nonBlank, issue('missing_field', 'body is required'))
      .refine(
        (s) => Buffer.byteLength(s, 'utf8') <= notificationLimits.bodyBytes,
        issue('too_long', `body: at most ${notificationLimits.bodyBytes} bytes of UTF-8`),
      ),
    emoji: optional(wellFormedString().refine(isSingleEmoji, issue('invalid_field', 'emoji: must be exactly one emoji'))),
    image: optional(httpUrl),
    url: optional(httpUrl),
  })
  .refine((n) => n.userKey !== undefined || n.userGroupKey !== undefined, {
    ...issue('missing_field', 'give userKey or userGroupKey (or both)'),
    path: ['userKey'],
  });

/**
 * Validates the push operation's fields (spec "Endpoints / Send push notification", rules 1–3,
 * and the limits above). Unknown fields are ignored; an optional field that is `""` or `null`
 * counts as absent. Strings come back well-formed (a lone surrogate becomes U+FFFD, counted as
 * one code point and three bytes), so what is answered, streamed and stored is the same text.
 *
 * @throws HubError 400 `missing_field` | `invalid_field` | `too_long`, naming the field.
 */
export function parseNotification(raw: unknown): NotificationInput {
  const result = notificationSchema.safeParse(raw);
  if (!result.success) throw toHubError(result.error, raw);
  const { userKey, userGroupKey, title, body, emoji, image, url } = result.data;
  const out: NotificationInput = { title, body };
  if (userKey !== undefined) out.userKey = userKey;
  if (userGroupKey !== undefined) out.userGroupKey = userGroupKey;
  if (emoji !== undefined) out.emoji = emoji;
  if (image !== undefined) out.image = image;
  if (url !== undefined) out.url = url;
  return out;
}
