import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Two pages built from renderer/: the operator console (index.html, served at /) and the web
// receiver (receiver/index.html, served at /receiver/). The hub serves dist/renderer itself
// (server/http/routes/console.ts); `npm run dev:renderer` serves them with hot reload and
// proxies the API to a hub started with `npm run dev` (PUSHHUB_DEV_HUB, default :8780).
const root = fileURLToPath(new URL('./renderer', import.meta.url));
const hub = process.env.PUSHHUB_DEV_HUB ?? 'http://127.0.0.1:8780';

// The hub refuses state-changing requests from another origin: the dev server forwards them
// as if they came from the hub's own origin (the browser itself talks to one origin, the dev server).
const toHub = {
  target: hub,
  changeOrigin: true,
  configure: (proxy: { on(event: 'proxyReq', cb: (req: { getHeader(n: string): unknown; setHeader(n: string, v: string): void }) => void): void }) => {
    proxy.on('proxyReq', (req) => {
      if (req.getHeader('origin')) req.setHeader('origin', new URL(hub).origin);
    });
  },
};

// In development, the receiver's own pages (/receiver/settings, /receiver/pair) are its
// index.html, as the hub serves them (server/http/routes/console.ts); Vite would answer the console's.
const receiverPages = {
  name: 'pushhub-receiver-pages',
  configureServer(server: { middlewares: { use(fn: (req: { url?: string }, res: unknown, next: () => void) => void): void } }) {
    server.middlewares.use((req, _res, next) => {
      if (req.url && /^\/receiver\/[^.?]+(?:\?.*)?$/.test(req.url)) req.url = '/receiver/index.html';
      next();
    });
  },
};

export default defineConfig({
  root,
  base: '/',
  publicDir: 'public',
  plugins: [react(), receiverPages],
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    // Hashed file names under assets/ are served as immutable; keep them there.
    assetsDir: 'assets',
    sourcemap: false,
    chunkSizeWarningLimit: 900,
    rollupOptions: {
      input: {
        console: fileURLToPath(new URL('./renderer/index.html', import.meta.url)),
        receiver: fileURLToPath(new URL('./renderer/receiver/index.html', import.meta.url)),
        // The receiver's service worker: one file at a fixed address, /receiver/sw.js (its scope is
        // its folder; the hub serves it with no-cache, so a new build is picked up at once).
        sw: fileURLToPath(new URL('./renderer/receiver/sw.ts', import.meta.url)),
      },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'sw' ? 'receiver/sw.js' : 'assets/[name]-[hash].js'),
      },
    },
  },
  server: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: false,
    proxy: { '/api': toHub, '/v1': toHub, '/healthz': toHub, '/auth': toHub, '/emoji': toHub },
  },
  preview: { host: '127.0.0.1' },
});
