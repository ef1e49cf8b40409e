import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Newest modification time (ms) of the files under `dir`. */
function newest(dir: string): number {
  let max = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    max = Math.max(max, entry.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return max;
}

/**
 * Builds the renderer (Vite) unless dist/renderer is newer than every source, so `npm test`
 * works on a fresh clone and does not rebuild after `npm run build`.
 */
export default async function globalSetup(): Promise<void> {
  const built = path.join(root, 'dist', 'renderer', 'index.html');
  const sources = Math.max(newest(path.join(root, 'renderer')), fs.statSync(path.join(root, 'vite.config.ts')).mtimeMs);
  if (fs.existsSync(built) && fs.statSync(built).mtimeMs >= sources) return;
  const { build } = await import('vite');
  await build({ configFile: path.join(root, 'vite.config.ts'), logLevel: 'warn' });
}
