/** One parsed Server-Sent Event. */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/**
 * Opens an SSE stream with fetch (so headers such as Last-Event-ID can be set) and collects its
 * events and comments as they arrive.
 */
export async function openSse(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let buffer = '';
  const decoder = new TextDecoder();
  const pump = (async () => {
    if (!res.body) return;
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const ev: SseEvent = { data: '' };
          const data: string[] = [];
          let isEvent = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) ((ev.id = line.slice(4)), (isEvent = true));
            else if (line.startsWith('event: ')) ((ev.event = line.slice(7)), (isEvent = true));
            else if (line.startsWith('data: ')) (data.push(line.slice(6)), (isEvent = true));
          }
          ev.data = data.join('\n');
          if (isEvent && ev.event) events.push(ev);
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    res,
    events,
    comments,
    /** Closes the stream and waits for the reader to stop. */
    async close() {
      controller.abort();
      await pump;
    },
  };
}
