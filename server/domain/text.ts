/**
 * Shortens `text` so that its UTF-8 encoding takes at most `maxBytes` bytes, cutting at a
 * grapheme boundary and ending with "…" when anything was cut. Used to fit channel payload caps
 * (APNs and FCM: 4096 bytes, DESIGN.md) while the stored notification keeps the full text.
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const ellipsis = '…';
  const budget = maxBytes - Buffer.byteLength(ellipsis, 'utf8');
  if (budget <= 0) return '';
  let out = '';
  let used = 0;
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)) {
    const size = Buffer.byteLength(segment, 'utf8');
    if (used + size > budget) break;
    out += segment;
    used += size;
  }
  return out + ellipsis;
}

/** "<emoji> <title>" when there is an emoji (spec: "Emoji shown in the title"), else the title. */
export function titleWithEmoji(title: string, emoji: string | null | undefined): string {
  return emoji ? `${emoji} ${title}` : title;
}
